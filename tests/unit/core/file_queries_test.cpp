#include "kopt/core/file_queries.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/core/files.hpp"

namespace kopt {
namespace {

namespace fs = std::filesystem;

TEST(FileQueries, TellFilesFromFoldersAndAbsenceWithoutThrowing) {
  TempDir dir("file-queries-test");
  write_file_atomic(dir.path() / "a.txt", "four");
  create_folders(dir.path() / "sub");
  EXPECT_TRUE(path_exists(dir.path() / "a.txt"));
  EXPECT_TRUE(is_file(dir.path() / "a.txt"));
  EXPECT_FALSE(is_folder(dir.path() / "a.txt"));
  EXPECT_TRUE(is_folder(dir.path() / "sub"));
  EXPECT_FALSE(is_file(dir.path() / "sub"));
  EXPECT_EQ(file_size_of(dir.path() / "a.txt"), 4u);
  EXPECT_EQ(file_size_of(dir.path() / "missing"), std::nullopt);
  // A file where a folder is expected is not an error to ask about, only an absence.
  EXPECT_FALSE(path_exists(dir.path() / "a.txt" / "below"));
  EXPECT_EQ(lookup_error(dir.path() / "missing"), "");
}

TEST(FileQueries, ASymlinkLoopReadsAsAbsentAndLookupErrorSaysWhy) {
  TempDir dir("file-queries-test");
  fs::create_symlink(dir.path() / "loop", dir.path() / "loop");
  EXPECT_FALSE(path_exists(dir.path() / "loop" / "x"));
  EXPECT_THAT(lookup_error(dir.path() / "loop" / "x"), testing::HasSubstr("symbolic links"));
}

TEST(FileQueries, FolderEntriesAreSortedAndEmptyForAFileOrNothing) {
  TempDir dir("file-queries-test");
  for (const char* name : {"b10", "a", "b2"}) write_file_atomic(dir.path() / name, "");
  EXPECT_THAT(folder_entries(dir.path()),
              testing::ElementsAre(dir.path() / "a", dir.path() / "b10", dir.path() / "b2"));
  EXPECT_TRUE(folder_entries(dir.path() / "a").empty());
  EXPECT_TRUE(folder_entries(dir.path() / "missing").empty());
}

TEST(FileQueries, AStampChangesWhenTheFileIsReplaced) {
  TempDir dir("file-queries-test");
  const fs::path file = dir.path() / "tool";
  EXPECT_EQ(file_stamp(file), "");
  write_file_atomic(file, "one");
  const std::string first = file_stamp(file);
  EXPECT_THAT(first, testing::StartsWith("3 "));
  write_file_atomic(file, "three");
  EXPECT_NE(file_stamp(file), first);
}

TEST(FileQueries, PathsResolveThroughLinksAsFarAsTheyExist) {
  TempDir dir("file-queries-test");
  create_folders(dir.path() / "real");
  fs::create_symlink(dir.path() / "real", dir.path() / "link");
  const fs::path real = resolved_path(dir.path() / "real");
  EXPECT_EQ(resolved_path(dir.path() / "link" / "not-yet"), real / "not-yet");
  EXPECT_EQ(link_target(dir.path() / "link"), dir.path() / "real");
  EXPECT_EQ(link_target(dir.path() / "real"), fs::path());
  EXPECT_FALSE(working_folder().empty());
  EXPECT_FALSE(link_target("/proc/self/exe").empty());
}

TEST(FileQueries, CharacterDevicesUnderDevIncludeNull) {
  EXPECT_THAT(character_devices_under("/dev"), testing::Contains(fs::path("/dev/null")));
  TempDir dir("file-queries-test");
  EXPECT_TRUE(character_devices_under(dir.path()).empty());
}

}  // namespace
}  // namespace kopt
