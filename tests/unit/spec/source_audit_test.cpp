#include "kopt/spec/source_audit.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "kopt/core/files.hpp"

namespace kopt::spec {
namespace {

bool names(const std::vector<SourceFinding>& findings, const std::string& category, int line) {
  return std::ranges::any_of(findings, [&](const SourceFinding& f) { return f.category == category && f.line == line; });
}

TEST(SourceAudit, NamesAProcPathInAStringLiteral) {
  const auto findings = audit_source("void f() {\n  FILE* f = fopen(\"/proc/self/cmdline\", \"r\");\n}\n", "kernel.cu");
  EXPECT_TRUE(names(findings, "memory_patching", 2));
  EXPECT_TRUE(names(findings, "file_access", 2));
}

// Clocks locked high for its own calls (or low for a competitor's) through NVML, where kopt
// runs as root; a device reset or switch; device-wide limits; another GPU reached.
TEST(SourceAudit, NamesControlOfTheDevice) {
  const auto findings = audit_source(
      "#include <nvml.h>\nvoid f(nvmlDevice_t d) {\n  nvmlDeviceSetGpuLockedClocks(d, 1980, 1980);\n"
      "  cudaDeviceReset();\n  cudaSetDevice(1);\n  cudaDeviceSetLimit(cudaLimitStackSize, 0);\n"
      "  cudaDeviceEnablePeerAccess(0, 0);\n  cudaMemcpyPeerAsync(d0, 0, d1, 1, n, s);\n}\n",
      "kernel.cu");
  for (int line : {2, 3, 4, 5, 6, 7, 8}) EXPECT_TRUE(names(findings, "device_control", line)) << line;
  EXPECT_TRUE(audit_source("__global__ void k(float* x) { x[0] = 1.0f; }\n", "kernel.cu").empty());
}

// What a kernel would need to forge what the OS tells kopt's worker (the timed calls' seeds
// come from getrandom, core/secret.hpp): a raw system call, a seccomp trap, syscall user
// dispatch, a tracer let in.
TEST(SourceAudit, NamesRawAndInterceptedSystemCalls) {
  const auto findings = audit_source(
      "void f() {\n  syscall(SYS_getrandom, b, 8, 0);\n  prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);\n"
      "  sigaction(SIGSYS, &sa, nullptr);\n  prctl(PR_SET_PTRACER, child);\n  seccomp(SECCOMP_SET_MODE_FILTER, 0, &p);\n"
      "  prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_ON, start, length, &selector);\n"
      "  selector = SYSCALL_DISPATCH_FILTER_BLOCK;\n}\n",
      "kernel.cu");
  for (int line : {2, 3, 4, 5, 6, 7, 8}) EXPECT_TRUE(names(findings, "system_calls", line)) << line;
  EXPECT_TRUE(audit_source("int syscall_count = 0;  // a name, not a call\n", "kernel.cu").empty());
}

TEST(SourceAudit, IgnoresAProcPathInALineComment) {
  const auto findings = audit_source("// we never read /proc/self/mem here\nvoid f() {}\n", "kernel.cu");
  EXPECT_TRUE(findings.empty()) << findings.front().category;
}

TEST(SourceAudit, IgnoresForbiddenNamesInABlockComment) {
  const auto findings = audit_source("/* unlike a cheat, no getenv(\"X\") and no\n   /proc/self/maps */\nint x;\n", "k.cu");
  EXPECT_TRUE(findings.empty()) << findings.front().category;
}

TEST(SourceAudit, ACommentAfterCodeHidesOnlyItself) {
  const auto findings = audit_source("const char* p = \"/proc/self/mem\";  // not /proc/ again\n", "kernel.cu");
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].category, "memory_patching");
  EXPECT_EQ(findings[0].text, "const char* p = \"/proc/self/mem\";  // not /proc/ again");
}

TEST(SourceAudit, AStringThatLooksLikeACommentIsStillAString) {
  // "//" inside a literal opens no comment: the path after it is still read.
  const auto findings = audit_source("const char* p = \"file:///proc/self/mem\";\n", "kernel.cu");
  EXPECT_TRUE(names(findings, "memory_patching", 1));
}

TEST(SourceAudit, NamesACallInCodeButNotInAComment) {
  const auto findings = audit_source("// getenv(\"KOPT\") is what cheats do\nconst char* v = getenv(\"KOPT\");\n", "k.cu");
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].category, "environment");
  EXPECT_EQ(findings[0].line, 2);
}


// Atomics make an honest kernel's outputs vary run to run: the hint, from the kernel or a local
// header or inline PTX, comments left out; a kernel without them has none.
TEST(VaryingOutputsHint, FindsAtomicsInTheKernelOrItsLocalHeaders) {
  TempDir dir{"varying-outputs"};
  write_file_atomic(dir.path() / "sum.cuh", "__device__ void add(float* t, float v) { atomicAdd(t, v); }\n");
  write_file_atomic(dir.path() / "kernel.cu", "#include \"sum.cuh\"\n// atomicAdd would vary\nvoid f() {}\n");
  const auto hint = varying_outputs_hint(dir.path() / "kernel.cu");
  ASSERT_TRUE(hint.has_value());
  EXPECT_EQ(hint->file, "sum.cuh");
  EXPECT_EQ(hint->line, 1);
  write_file_atomic(dir.path() / "plain.cu", "// atomicAdd(x, 1) in a comment only\nvoid g() { int atomicAddress = 0; }\n");
  EXPECT_FALSE(varying_outputs_hint(dir.path() / "plain.cu").has_value());
  write_file_atomic(dir.path() / "ptx.cu", "void h() { asm(\"red.global.add.f32 [%0], %1;\" :: \"l\"(p), \"f\"(v)); }\n");
  EXPECT_TRUE(varying_outputs_hint(dir.path() / "ptx.cu").has_value());  // inline PTX, in a string literal
  write_file_atomic(dir.path() / "ref.cu", "void k(cuda::atomic_ref<float> r) { r.fetch_add(1.0f); }\n");
  EXPECT_TRUE(varying_outputs_hint(dir.path() / "ref.cu").has_value());
}

// A Triton kernel.py is read with Python's comments and strings: its categories in Python's
// words, and host_patching for code that reaches into the interpreter kopt's timing runs in.
TEST(SourceAudit, NamesWhatAPythonKernelNeedsToCheat) {
  const std::string source =
      "import threading, inspect, subprocess  # threading is named where it is imported\n"
      "import torch\n"
      "side = torch.cuda.Stream()\n"
      "home = os.environ['HOME']\n"
      "data = open('/proc/self/cmdline').read()\n"
      "frame = sys._getframe(1)\n"
      "torch.cuda.Event.elapsed_time = lambda *a: 0.0\n"
      "torch.backends.cuda.matmul.allow_tf32 = True\n"
      "def __del__(self): pass\n";
  const auto findings = audit_source(source, "kernel.py");
  EXPECT_TRUE(names(findings, "host_threads", 1));
  EXPECT_TRUE(names(findings, "host_patching", 1));
  EXPECT_TRUE(names(findings, "process_creation", 1));
  EXPECT_TRUE(names(findings, "side_streams", 3));
  EXPECT_TRUE(names(findings, "environment", 4));
  EXPECT_TRUE(names(findings, "file_access", 5));
  EXPECT_TRUE(names(findings, "memory_patching", 5));
  EXPECT_TRUE(names(findings, "host_patching", 6));
  EXPECT_TRUE(names(findings, "events", 7));
  EXPECT_TRUE(names(findings, "host_patching", 7));  // a module attribute assigned
  EXPECT_TRUE(names(findings, "precision", 8));
  EXPECT_TRUE(names(findings, "exit_hooks", 9));
}

// Comments and the insides of strings (triple-quoted too) are not code; CUDA's rules do not
// read Python, nor Python's CUDA.
TEST(SourceAudit, APythonCommentOrStringIsNotCode) {
  const std::string source =
      "\"\"\"Docs may say threading, subprocess and os.environ.\n"
      "torch.cuda.Stream() too.\"\"\"\n"
      "# open('x') in a comment\n"
      "label = 'time.time() in a string'\n"
      "x = y == z\n"
      "cudaStreamCreate = 1\n";
  EXPECT_TRUE(audit_source(source, "kernel.py").empty());
  EXPECT_TRUE(audit_source("t = threading.Thread(target=f)\n", "kernel.cu").empty());
}

// The bundled examples are honest: no finding in any of their kernels, .cu or .py.
TEST(SourceAudit, TheBundledExamplesHaveNoFinding) {
  namespace fs = std::filesystem;
  int audited = 0;
  for (const auto& entry : fs::recursive_directory_iterator(fs::path(KOPT_SOURCE_DIR) / "examples")) {
    const fs::path& path = entry.path();
    if (!entry.is_regular_file() || (path.extension() != ".cu" && path.filename() != "kernel.py")) continue;
    if (path.filename().string().starts_with("ref")) continue;  // references are kopt's, not the adversary's
    ++audited;
    for (const SourceFinding& f : audit_kernel_source(path)) ADD_FAILURE() << path << ": " << describe(f);
  }
  EXPECT_GT(audited, 5);
}

// A module beside a Python kernel that it imports by name is the kernel's own, and audited.
TEST(SourceAudit, FollowsAPythonKernelsLocalImports) {
  TempDir dir{"python-audit"};
  write_file_atomic(dir.path() / "helpers.py", "import subprocess\n");
  write_file_atomic(dir.path() / "kernel.py", "import triton\nfrom helpers import run\n");
  const auto findings = audit_kernel_source(dir.path() / "kernel.py");
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].file, "helpers.py");
  EXPECT_EQ(findings[0].category, "process_creation");
}

// cuBLAS asked for TF32 in an FP32 kernel: the lower-precision family, named.
TEST(SourceAudit, NamesLowerPrecisionMathInCuda) {
  const auto findings = audit_source("cublasSetMathMode(handle, CUBLAS_TF32_TENSOR_OP_MATH);\n", "kernel.cu");
  EXPECT_TRUE(names(findings, "precision", 1));
}

}  // namespace
}  // namespace kopt::spec
