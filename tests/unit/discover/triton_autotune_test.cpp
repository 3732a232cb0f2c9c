#include "kopt/discover/triton_autotune.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"

namespace kopt::discover {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// The reader is python/kopt_python_facts.py: kernel.py is parsed, never imported (triton is
// not installed here, and the file's first line would fail an import).
std::filesystem::path kernel_py(const TempDir& folder, std::string_view source) {
  const std::filesystem::path path = folder.path() / "kernel.py";
  write_file_atomic(path, std::string("import triton_is_not_here\n") + std::string(source));
  return path;
}

TEST(TritonAutotune, EachAutotunedKernelIsOneParameterOfAllAndItsConfigsIndices) {
  TempDir folder("autotune");
  const auto kernels = triton_autotuned_kernels(kernel_py(folder,
      "@triton.autotune(configs=[triton.Config({'BLOCK': 64}, num_warps=2), triton.Config({'BLOCK': 128})], key=[])\n"
      "@triton.jit\ndef scale(x, BLOCK: tl.constexpr):\n    pass\n"));
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(kernels[0].parameter(), "KOPT_TRITON_CONFIG_scale");
  EXPECT_EQ(kernels[0].line, 2);
  EXPECT_THAT(kernels[0].configs, ElementsAre("BLOCK=64, num_warps=2", "BLOCK=128"));
  EXPECT_THAT(kernels[0].values(), ElementsAre("all", "0", "1"));
  EXPECT_EQ(autotune_tune_table(kernels),
            "KOPT_TRITON_CONFIG_scale = [\"all\", \"0\", \"1\"]  # scale's @triton.autotune configs (line 2); \"all\": "
            "Triton's own choice\n");
}

TEST(TritonAutotune, AListBuiltByCodeIsRefusedWithItsLine) {
  TempDir folder("autotune");
  try {
    triton_autotuned_kernels(kernel_py(folder, "@triton.autotune(configs=make_configs(), key=[])\n"
                                               "@triton.jit\ndef scale(x):\n    pass\n"));
    FAIL() << "no refusal";
  } catch (const Error& refused) {
    EXPECT_EQ(refused.code(), ExitCode::bad_input);
    EXPECT_THAT(refused.what(), HasSubstr("kernel.py:2: the configs of scale's @triton.autotune are make_configs()"));
  }
}

TEST(TritonAutotune, AKernelWithoutAutotuneSaysWhereItsParametersAre) {
  EXPECT_THAT(format_autotune_space("kernel.py", {}), HasSubstr("declared in [tune] of its spec"));
}

}  // namespace
}  // namespace kopt::discover
