#include "kopt/verify/npy.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <span>

#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"

namespace kopt::verify {
namespace {

TEST(Npy, HeaderIsPaddedToSixtyFourBytesAndEndsWithNewline) {
  std::string header = npy_header("<f4", 1000);
  EXPECT_EQ(header.size() % 64, 0u);
  EXPECT_EQ(header.substr(0, 6), "\x93NUMPY");
  EXPECT_EQ(header.back(), '\n');
  EXPECT_NE(header.find("'shape': (1000,)"), std::string::npos);
}

TEST(Npy, RoundTripsData) {
  TempDir dir("npy-test");
  std::vector<float> values{1.5f, -2.0f, 3.25f};
  std::vector<std::byte> bytes(values.size() * sizeof(float));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  write_npy(dir.path() / "a.npy", "<f4", 3, bytes);
  NpyArray array = read_npy(dir.path() / "a.npy");
  EXPECT_EQ(array.descr, "<f4");
  EXPECT_EQ(array.elements, 3);
  EXPECT_EQ(array.data, bytes);
}

TEST(Npy, AStreamedFileReadsBackAsTheWholeArray) {
  TempDir dir("npy-test");
  std::vector<float> values(1000);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i) * 0.5f;
  const auto bytes = std::as_bytes(std::span(values));
  write_npy_streamed(dir.path() / "a.npy", "<f4", 1000, bytes.size(),
                     [&](const ByteSink& sink) {
                       for (std::size_t at = 0; at < bytes.size(); at += 1536) {
                         sink(bytes.subspan(at, std::min<std::size_t>(1536, bytes.size() - at)));
                       }
                     },
                     Durability::scratch);
  NpyArray array = read_npy(dir.path() / "a.npy");
  EXPECT_EQ(array.descr, "<f4");
  EXPECT_EQ(array.elements, 1000);
  ASSERT_EQ(array.data.size(), bytes.size());
  EXPECT_EQ(std::memcmp(array.data.data(), bytes.data(), bytes.size()), 0);
}

// What numpy 1.x/2.x writes for np.save('x.npy', np.arange(6, dtype=np.int32).reshape(2, 3)).
TEST(Npy, ReadsNumpysTwoDimensionalFilesFlat) {
  TempDir dir("npy-test");
  std::string dict = "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }";
  dict.append((64 - (10 + dict.size() + 1) % 64) % 64, ' ');
  dict += '\n';
  std::string content = std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(dict.size()) + '\0' + dict;
  for (std::int32_t i = 0; i < 6; ++i) content.append(reinterpret_cast<const char*>(&i), 4);
  write_file_atomic(dir.path() / "m.npy", content);
  NpyArray array = read_npy(dir.path() / "m.npy");
  EXPECT_EQ(array.elements, 6);
  std::int32_t last;
  std::memcpy(&last, array.data.data() + 20, 4);
  EXPECT_EQ(last, 5);
}

TEST(Npy, RejectsTruncatedFilesNamingThem) {
  TempDir dir("npy-test");
  std::string content = npy_header("<f4", 10) + std::string(12, '\0');
  write_file_atomic(dir.path() / "short.npy", content);
  try {
    read_npy(dir.path() / "short.npy");
    FAIL() << "a truncated file was accepted";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("short.npy"));
    EXPECT_THAT(e.what(), ::testing::HasSubstr("the header says 40"));
  }
}

TEST(Npy, ReadsVersionTwoHeaders) {
  // Version 2.0: a four-byte header length. numpy writes it for headers over 65535 bytes.
  TempDir dir("npy-test");
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  std::string padded = dict + std::string((64 - (12 + dict.size() + 1) % 64) % 64, ' ') + "\n";
  std::string content = std::string("\x93NUMPY\x02\x00", 8);
  for (int i = 0; i < 4; ++i) content += static_cast<char>((padded.size() >> (8 * i)) & 0xff);
  const float values[2] = {1.5f, -2.0f};
  content += padded + std::string(reinterpret_cast<const char*>(values), sizeof values);
  write_file_atomic(dir.path() / "v2.npy", content);
  NpyArray array = read_npy(dir.path() / "v2.npy");
  EXPECT_EQ(array.descr, "<f4");
  ASSERT_EQ(array.elements, 2);
  float back[2];
  std::memcpy(back, array.data.data(), sizeof back);
  EXPECT_EQ(back[0], 1.5f);
  EXPECT_EQ(back[1], -2.0f);
}

TEST(Npy, RejectsMissingFilesNamingThem) {
  TempDir dir("npy-test");
  try {
    read_npy(dir.path() / "absent.npy");
    FAIL() << "a missing file was read";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("absent.npy does not exist"));
  }
}

TEST(Npy, RejectsFilesThatAreNotNpy) {
  TempDir dir("npy-test");
  write_file_atomic(dir.path() / "x.npy", "hello world, not numpy");
  EXPECT_THROW(read_npy(dir.path() / "x.npy"), Error);
}

}  // namespace
}  // namespace kopt::verify
