#include "kopt/core/files.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/core/error.hpp"

namespace kopt {
namespace {

TEST(Files, AtomicWriteCreatesFoldersAndLeavesNoTemporaries) {
  TempDir dir("files-test");
  write_file_atomic(dir.path() / "a" / "b" / "x.json", "{}\n");
  write_file_atomic(dir.path() / "a" / "b" / "x.json", "{\"v\": 2}\n");
  EXPECT_EQ(read_file(dir.path() / "a" / "b" / "x.json"), "{\"v\": 2}\n");
  int entries = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir.path() / "a" / "b")) ++entries;
  EXPECT_EQ(entries, 1);
}

TEST(Files, ReadingAMissingFileNamesIt) {
  try {
    read_file("/no/such/kopt/file.cu");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::bad_input);
    EXPECT_THAT(e.what(), ::testing::HasSubstr("/no/such/kopt/file.cu does not exist"));
  }
}

TEST(Files, TempDirIsRemovedUnlessKept) {
  std::filesystem::path removed, kept;
  {
    TempDir a("files-test");
    removed = a.path();
    TempDir b("files-test");
    kept = b.path();
    b.keep();
  }
  EXPECT_FALSE(std::filesystem::exists(removed));
  EXPECT_TRUE(std::filesystem::exists(kept));
  std::filesystem::remove_all(kept);
}

}  // namespace
}  // namespace kopt
