#include "kopt/core/files.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <functional>
#include <span>
#include <stdexcept>

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

TEST(Files, AtomicWriteOfPartsJoinsThemWhetherSyncedOrScratch) {
  TempDir dir("files-test");
  for (Durability durability : {Durability::synced, Durability::scratch}) {
    const auto path = dir.path() / (durability == Durability::synced ? "synced.npy" : "scratch.npy");
    write_file_atomic(path, {"header|", "", "body"}, durability);
    EXPECT_EQ(read_file(path), "header|body");
  }
  int entries = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir.path())) ++entries;
  EXPECT_EQ(entries, 2);  // no temporary left beside them
}

TEST(Files, RemovingMovingAndAppendingNameThePathWhenTheyFail) {
  TempDir dir("files-test");
  const auto a = dir.path() / "a.txt";
  append_to_file(a, "one\n");
  append_to_file(a, "two\n");
  EXPECT_EQ(read_file(a), "one\ntwo\n");
  EXPECT_THAT([&] { append_to_file(dir.path() / "no-folder" / "log", "x"); },
              ::testing::ThrowsMessage<Error>(::testing::HasSubstr("no-folder")));

  move_path(a, dir.path() / "b.txt");
  EXPECT_FALSE(std::filesystem::exists(a));
  EXPECT_FALSE(try_move_path(a, dir.path() / "c.txt"));
  EXPECT_THAT([&] { move_path(a, dir.path() / "c.txt"); }, ::testing::ThrowsMessage<Error>(::testing::HasSubstr("a.txt")));

  EXPECT_TRUE(remove_file(dir.path() / "b.txt"));
  EXPECT_FALSE(remove_file(dir.path() / "b.txt"));  // absent: nothing to do, no error
  write_file_atomic(dir.path() / "tree" / "x" / "y", "z");
  EXPECT_THAT([&] { remove_file(dir.path() / "tree"); }, ::testing::ThrowsMessage<Error>(::testing::HasSubstr("tree")));
  remove_folder(dir.path() / "tree");
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "tree"));
  remove_folder(dir.path() / "tree");  // absent: nothing to do
}

TEST(Files, ABodyWrittenInPlaceFollowsItsHeaderAndAFailedFillLeavesNothing) {
  TempDir dir("files-test");
  write_file_atomic_in_place(dir.path() / "x.npy", "HEAD|", 6, [](std::span<std::byte> body) {
    for (std::size_t i = 0; i < body.size(); ++i) body[i] = static_cast<std::byte>('a' + i);
  });
  EXPECT_EQ(read_file(dir.path() / "x.npy"), "HEAD|abcdef");
  EXPECT_THROW(write_file_atomic_in_place(dir.path() / "y.npy", "H", 4096,
                                          [](std::span<std::byte>) { throw input_error("no values"); }),
               Error);
  int entries = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir.path())) ++entries;
  EXPECT_EQ(entries, 1);  // x.npy alone: neither y.npy nor a temporary
}

TEST(Files, AStreamedBodyIsWrittenPieceByPieceAfterItsHeader) {
  TempDir dir("files-test");
  std::string piece = "abc";
  int pieces_handed = 0;
  write_file_atomic_streamed(dir.path() / "x.npy", "HEAD|", 9,
                             [&](const ByteSink& sink) {
                               for (int i = 0; i < 3; ++i) {
                                 sink(std::as_bytes(std::span(piece)));
                                 ++pieces_handed;
                                 piece[0] = static_cast<char>(piece[0] + 3);  // the sink's copy is already written
                               }
                             },
                             Durability::scratch);
  EXPECT_EQ(pieces_handed, 3);
  EXPECT_EQ(read_file(dir.path() / "x.npy"), "HEAD|abcdbcgbc");
}

TEST(Files, AStreamedBodyOfTheWrongLengthOrAFailedPieceLeavesNothing) {
  TempDir dir("files-test");
  const std::string four = "1234";
  auto pieces = [&](int count) {
    return [&, count](const ByteSink& sink) {
      for (int i = 0; i < count; ++i) sink(std::as_bytes(std::span(four)));
    };
  };
  EXPECT_THROW(write_file_atomic_streamed(dir.path() / "short", "H", 12, pieces(2), Durability::synced),
               std::logic_error);
  EXPECT_THROW(write_file_atomic_streamed(dir.path() / "long", "H", 6, pieces(2), Durability::synced),
               std::logic_error);
  EXPECT_THROW(write_file_atomic_streamed(dir.path() / "failed", "H", 8,
                                          [](const ByteSink&) { throw input_error("the download failed"); },
                                          Durability::synced),
               Error);
  write_file_atomic_streamed(dir.path() / "right", "H", 8, pieces(2), Durability::synced);
  EXPECT_EQ(read_file(dir.path() / "right"), "H12341234");
  int entries = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir.path())) ++entries;
  EXPECT_EQ(entries, 1);  // right alone: no partial file, no temporary
}

TEST(Files, BytesAreReadFromAnOffsetAndFewerAtTheEnd) {
  TempDir dir("files-test");
  write_file_atomic(dir.path() / "f", "0123456789");
  std::string part(4, '\0');
  EXPECT_EQ(read_file_bytes(dir.path() / "f", 3, part), 4u);
  EXPECT_EQ(part, "3456");
  EXPECT_EQ(read_file_bytes(dir.path() / "f", 8, part), 2u);
  EXPECT_EQ(part.substr(0, 2), "89");
  EXPECT_THAT([&] { read_file_bytes(dir.path() / "missing", 0, part); },
              ::testing::ThrowsMessage<Error>(::testing::HasSubstr("does not exist")));
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

std::string refusal_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::bad_input);
    return e.what();
  }
  return "";
}

TEST(Files, InputsAreReadOnlyFromRegularFilesUnderTheCap) {
  TempDir dir("files-test");
  const std::filesystem::path fifo = dir.path() / "kernel.cu", loop = dir.path() / "loop.cu",
                              zero = dir.path() / "zero.cu", big = dir.path() / "big.cu";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  std::filesystem::create_symlink("loop.cu", loop);
  std::filesystem::create_symlink("/dev/zero", zero);
  write_file_atomic(big, std::string(2048, 'x'));
  // A FIFO without a writer would block a plain read forever.
  EXPECT_THAT(refusal_of([&] { read_file(fifo); }), ::testing::HasSubstr("kernel.cu is a FIFO, not a regular file"));
  EXPECT_THAT(refusal_of([&] { read_file(loop); }), ::testing::HasSubstr("symbolic link loop"));
  EXPECT_THAT(refusal_of([&] { read_file(zero); }), ::testing::HasSubstr("is a character device"));
  EXPECT_THAT(refusal_of([&] { read_file(dir.path()); }), ::testing::HasSubstr("is a folder, not a regular file"));
  EXPECT_THAT(refusal_of([&] { read_file(big, 1024); }), ::testing::HasSubstr("more than the"));
  EXPECT_EQ(read_file(big, 4096).size(), 2048u);
}

TEST(Files, OutputsNeverReplaceWhatIsNotARegularFile) {
  TempDir dir("files-test");
  const std::filesystem::path fifo = dir.path() / "out.fifo", link = dir.path() / "link.json",
                              target = dir.path() / "target.json", file = dir.path() / "a.cu";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  write_file_atomic(target, "kept");
  std::filesystem::create_symlink(target, link);
  write_file_atomic(file, "text");
  EXPECT_THAT(refusal_of([&] { write_file_atomic(fifo, "x"); }), ::testing::HasSubstr("out.fifo is a FIFO; kopt writes only"));
  EXPECT_THAT(refusal_of([&] { write_file_atomic(link, "x"); }), ::testing::HasSubstr("is a symbolic link"));
  EXPECT_THAT(refusal_of([&] { write_file_atomic(file / "x.json", "x"); }),
              ::testing::HasSubstr("a.cu is a regular file, not a folder"));
  EXPECT_THAT(refusal_of([&] { check_output_folder(file); }), ::testing::HasSubstr("a.cu is a regular file, not a folder"));
  EXPECT_TRUE(std::filesystem::is_fifo(fifo));
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  EXPECT_EQ(read_file(target), "kept");
}

TEST(Files, StaleTemporariesAreRemovedAndNothingElse) {
  TempDir dir("files-test");
  write_file_atomic(dir.path() / "a" / "state.json", "{}");
  write_file_atomic(dir.path() / "a" / "state.json.tmp.Ab12Cd", "{");
  write_file_atomic(dir.path() / "notes.tmp.txt", "mine");
  EXPECT_EQ(remove_stale_temporaries(dir.path()), 1);
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "a" / "state.json"));
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "notes.tmp.txt"));
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
