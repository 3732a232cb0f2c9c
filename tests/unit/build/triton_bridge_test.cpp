#include "kopt/build/triton_bridge.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "../../../runtime/kopt_triton_bridge.h"
#include "kopt/core/files.hpp"
#include "kopt/spec/kernel_signature.hpp"

namespace kopt::build {
namespace {

using ::testing::HasSubstr;

std::vector<kopt_bridge_word> received;
void fake_callback(int count, const kopt_bridge_word* words) { received.assign(words, words + count); }

spec::KernelSignature softmax_signature() {
  return spec::parse_kernel_signature("extern \"C\" void solve(const float* x, float* y, int n, double scale);",
                                      "kernel.py");
}

TEST(TritonBridge, SolveForwardsEachParameterAsItsWord) {
  const std::string source = triton_bridge_source(softmax_signature(), "abc123");
  EXPECT_THAT(source, HasSubstr("kernel.py abc123"));
  EXPECT_THAT(source, HasSubstr("extern \"C\" void solve(const float* x, float* y, int n, double scale) {"));
  EXPECT_THAT(source, HasSubstr("kopt_bridge_pointer(x), kopt_bridge_pointer(y), kopt_bridge_integer(n), "
                                "kopt_bridge_real(scale)"));
  EXPECT_THAT(source, HasSubstr("kopt_bridge_forward(4, words);"));
  EXPECT_THAT(source, HasSubstr("kopt_bridge_register"));  // the header is inlined: one file to compile
}

TEST(TritonBridge, IncludesCudasHeadersForSixteenBitFloatsOnly) {
  EXPECT_THAT(triton_bridge_source(softmax_signature(), "0"), ::testing::Not(HasSubstr("cuda_bf16.h")));
  const std::string source = triton_bridge_source(
      spec::parse_kernel_signature("extern \"C\" void solve(const __nv_bfloat16* a, __half* c, int n);", "kernel.py"),
      "0");
  EXPECT_THAT(source, HasSubstr("#include <cuda_bf16.h>"));
  EXPECT_THAT(source, HasSubstr("#include <cuda_fp16.h>"));
  EXPECT_LT(source.find("cuda_bf16.h"), source.find("extern \"C\" void solve("));
}

TEST(TritonBridge, ASolveWithoutParametersStillCompilesAsCpp) {
  const std::string source =
      triton_bridge_source(spec::parse_kernel_signature("extern \"C\" void solve();", "kernel.py"), "0");
  EXPECT_THAT(source, HasSubstr("words[] = {0};"));
  EXPECT_THAT(source, HasSubstr("kopt_bridge_forward(0, words);"));
}

// What the generated solve does, through the header it inlines, with a fake in Python's place.
TEST(TritonBridge, MarshalsPointersIntegersAndRealsToTheRegisteredCallback) {
  float buffer[4] = {};
  const kopt_bridge_word words[] = {kopt_bridge_pointer(buffer), kopt_bridge_integer(-7), kopt_bridge_real(0.5)};
  kopt_bridge_register(nullptr);
  const int before = kopt_bridge_unregistered();
  kopt_bridge_forward(3, words);
  EXPECT_EQ(kopt_bridge_unregistered(), before + 1);  // no host script: nothing runs, and it is counted

  kopt_bridge_register(&fake_callback);
  kopt_bridge_forward(3, words);
  ASSERT_EQ(received.size(), 3u);
  EXPECT_EQ(reinterpret_cast<float*>(static_cast<std::uintptr_t>(received[0])), buffer);
  EXPECT_EQ(static_cast<long long>(received[1]), -7);
  double real = 0;
  std::memcpy(&real, &received[2], sizeof real);
  EXPECT_EQ(real, 0.5);
  kopt_bridge_register(nullptr);
}

TEST(TritonBridge, WritesOneSourcePerKernelContent) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "kopt_triton_bridge_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  write_file_atomic(dir / "kernel.py", "def solve(x: \"const float*\", y: \"float*\", n: int, scale: float): pass\n");
  const std::filesystem::path first = write_triton_bridge(dir / "cache", dir / "kernel.py", softmax_signature());
  write_file_atomic(dir / "kernel.py", "def solve(x: \"const float*\", y: \"float*\", n: int, scale: float): return\n");
  const std::filesystem::path second = write_triton_bridge(dir / "cache", dir / "kernel.py", softmax_signature());
  EXPECT_TRUE(std::filesystem::is_regular_file(first));
  EXPECT_NE(first, second);  // a changed kernel.py is a new library, never a cached result of the old one
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kopt::build
