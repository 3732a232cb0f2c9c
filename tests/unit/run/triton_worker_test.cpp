#include "kopt/run/triton_worker.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "../spec/spec_test_support.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"

namespace kopt::run {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

// python3 as the test wants it: torch and triton importable or not. Records what it ran.
class FakePython final : public ProcessRunner {
 public:
  explicit FakePython(bool has_torch) : has_torch_(has_torch) {}
  ProcessResult run(const ProcessSpec& spec) override {
    runs.push_back(spec.argv);
    ProcessResult result{.started = true, .exit_status = has_torch_ ? 0 : 1};
    if (!has_torch_) result.err = "ModuleNotFoundError: No module named 'torch'\n";
    return result;
  }
  std::vector<std::vector<std::string>> runs;

 private:
  bool has_torch_;
};

struct TritonFolder {
  spec::SpecFolder folder;
  spec::Problem problem;
  TritonFolder() {
    folder.add("kopt.toml",
               "name = \"softmax\"\nkernel = \"kernel.py\"\n[dims]\nR = 4\nC = 8\n"
               "[buffers.x]\nshape = [\"R\", \"C\"]\n[buffers.y]\nshape = [\"R\", \"C\"]\n")
        .add("kernel.py", "def solve(x: \"const float*\", y: \"float*\", R: int, C: int):\n  pass\n");
    problem = spec::load_problem(folder.path(), std::nullopt, {});
  }
};

TEST(TritonWorker, ThePlanGivesEachBufferItsShapeInTheCaseOfItsScalars) {
  TritonFolder triton;
  const nlohmann::json plan = triton_plan({{"/cache/bridge.so", &triton.problem}}, 1);
  EXPECT_EQ(plan["schema"], "kopt.triton_plan/1");
  EXPECT_EQ(plan["device"], 1);
  const nlohmann::json& bridge = plan["bridges"][0];
  EXPECT_EQ(bridge["library"], "/cache/bridge.so");
  EXPECT_EQ(bridge["entry"], "solve");
  EXPECT_EQ(bridge["params"][0], (nlohmann::json{{"name", "x"}, {"kind", "pointer"}, {"dtype", "float32"}}));
  EXPECT_EQ(bridge["params"][2]["kind"], "integer");
  EXPECT_EQ(bridge["cases"][0]["scalars"], (nlohmann::json{4, 8}));
  EXPECT_EQ(bridge["cases"][0]["shapes"]["y"], (nlohmann::json{4, 8}));
}

TEST(TritonWorker, CasesAlikeInScalarsButNotInShapesAreRefused) {
  spec::SpecFolder folder;
  folder.add("kopt.toml",
             "name = \"rows\"\nkernel = \"kernel.py\"\n[dims]\nN = 64\nR = 2\n[[cases]]\nR = 3\n"
             "[buffers.y]\nshape = [\"R\", \"N\"]\n")
      .add("kernel.py", "def solve(y: \"float*\", N: int):\n  pass\n");
  const spec::Problem problem = spec::load_problem(folder.path(), std::nullopt, {});
  try {
    triton_plan({{"/b.so", &problem}}, 0);
    ADD_FAILURE() << "no refusal";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ExitCode::bad_input);
    EXPECT_THAT(error.what(), HasSubstr("pass solve the same scalars but differ in buffer shapes"));
  }
}

TEST(TritonWorker, OnlyPythonKernelsAreBridged) {
  TritonFolder triton;
  std::vector<spec::Problem> kernels{triton.problem, triton.problem};
  kernels[1].spec.kernel = "/k/kernel.cu";
  const auto bridges = triton_bridges(kernels, {"/a.so", "/b.so", "/reference.so"});
  ASSERT_EQ(bridges.size(), 1u);
  EXPECT_EQ(bridges[0].library, "/a.so");
}

// -D overrides reach the host with the bridge they were built into: kernel.py's variables.
TEST(TritonWorker, EachBridgeCarriesTheDefinesItsKernelWasBuiltWith) {
  TritonFolder triton;
  std::vector<spec::Problem> kernels{triton.problem, triton.problem};
  const auto bridges = triton_bridges(kernels, {"/a.so", "/b.so"}, {{{"BLOCK", "256"}, {"NUM_WARPS", "8"}}});
  ASSERT_EQ(bridges.size(), 2u);
  const nlohmann::json plan = triton_plan(bridges, 0);
  EXPECT_EQ(plan["bridges"][0]["defines"].dump(), R"([["BLOCK","256"],["NUM_WARPS","8"]])");  // pairs, in order
  EXPECT_EQ(plan["bridges"][1]["defines"], nlohmann::json::array());  // no -D of its own
}

TEST(TritonWorker, RunsKoptsWorkerLibraryUnderPythonAndTheHostScript) {
  TritonFolder triton;
  const fs::path bin = triton.folder / "bin";
  write_file_atomic(bin / "libkopt_worker.so", "");
  WorkerSettings base{.executable = bin / "kopt", .device = 0, .launcher = {"ncu", "--target-processes", "all"}};
  FakePython python(true);
  const WorkerSettings settings = triton_worker_settings(python, base, [] { return fs::path("/usr/bin/python3"); }, triton.folder / "cache",
                                                         {{"/cache/bridge.so", &triton.problem}},
                                                         triton.folder / "plan.json");
  EXPECT_EQ(python.runs.at(0), (std::vector<std::string>{"/usr/bin/python3", "-c", "import torch, triton"}));
  EXPECT_EQ(settings.executable, bin / "libkopt_worker.so");
  ASSERT_EQ(settings.launcher.size(), 6u);
  EXPECT_EQ(settings.launcher[0], "ncu");  // a profiler still runs the whole worker under itself
  EXPECT_EQ(settings.launcher[3], "/usr/bin/python3");
  EXPECT_THAT(read_file(settings.launcher[4]), HasSubstr("kopt_worker_main"));
  EXPECT_EQ(settings.launcher[5], (triton.folder / "plan.json").string());
  EXPECT_THAT(read_file(triton.folder / "plan.json"), HasSubstr("kopt.triton_plan/1"));
}

TEST(TritonWorker, NoTritonKernelLeavesTheWorkerAsItWas) {
  FakePython python(false);
  // A .cu kernel needs no python3: looking for one would refuse it where none is installed.
  const auto no_python_asked = []() -> fs::path { throw std::logic_error("python3 looked for without a Triton kernel"); };
  WorkerSettings base{.executable = "/nowhere/kopt"};
  EXPECT_EQ(triton_worker_settings(python, base, no_python_asked, "/nowhere", {}, "/nowhere/plan.json").executable,
            "/nowhere/kopt");
  EXPECT_TRUE(python.runs.empty());
}

TEST(TritonWorker, RefusesInOneLineWithoutTorchOrTheWorkerLibrary) {
  TritonFolder triton;
  WorkerSettings base{.executable = triton.folder / "kopt"};
  FakePython python(false);
  auto error_of = [&] {
    try {
      triton_worker_settings(python, base, [] { return fs::path("python3"); }, triton.folder / "cache", {{"/b.so", &triton.problem}},
                             triton.folder / "plan.json");
    } catch (const Error& error) {
      EXPECT_EQ(error.code(), ExitCode::environment);
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(error_of(), HasSubstr("libkopt_worker.so (configure kopt with -DKOPT_TRITON_WORKER=ON)"));
  write_file_atomic(triton.folder / "libkopt_worker.so", "");
  const std::string message = error_of();
  EXPECT_THAT(message, HasSubstr("needs torch and triton importable by python3 (python3: "
                                 "ModuleNotFoundError: No module named 'torch')"));
  EXPECT_EQ(message.find('\n'), std::string::npos);
}

// kopt sass of a .py kernel reads what Triton compiled in the check's worker: every cubin of the
// cache beside the job's result, named by its compile's folder, and nothing else Triton wrote.
TEST(TritonWorker, KeepsEveryCubinTritonCompiledBesideTheJob) {
  TempDir job("job");
  TempDir into("cubins");
  write_file_atomic(job.path() / "triton_cache" / "B2" / "gemm_kernel.cubin", "elf");
  write_file_atomic(job.path() / "triton_cache" / "B2" / "gemm_kernel.json", "{}");
  write_file_atomic(job.path() / "triton_cache" / "A1" / "softmax_kernel.cubin", "elf");
  write_file_atomic(job.path() / "triton_cache" / "A1" / "softmax_kernel.ptx", "ptx");
  const std::vector<std::filesystem::path> kept = keep_triton_cubins(job.path(), into.path() / "kept");
  EXPECT_EQ(kept, (std::vector<std::filesystem::path>{into.path() / "kept" / "A1-softmax_kernel.cubin",
                                                      into.path() / "kept" / "B2-gemm_kernel.cubin"}));
  EXPECT_EQ(read_file(kept[1]), "elf");
  EXPECT_FALSE(std::filesystem::exists(job.path() / "triton_cache" / "B2" / "gemm_kernel.cubin"));
}

TEST(TritonWorker, AJobWithoutATritonCacheKeepsNoCubins) {
  TempDir job("job");
  EXPECT_TRUE(keep_triton_cubins(job.path(), job.path() / "kept").empty());
  EXPECT_FALSE(std::filesystem::exists(job.path() / "kept"));
}

// A build tree keeps libkopt_worker.so beside kopt; an install puts it in lib/kopt (its
// relative place from bin/ is compiled in): kopt finds it in either, beside itself first.
TEST(TritonWorker, FindsItsWorkerLibraryBesideKoptOrWhereAnInstallPutsIt) {
  TempDir prefix("prefix");
  const std::filesystem::path kopt = prefix.path() / "bin" / "kopt";
  write_file_atomic(kopt, "");
  EXPECT_FALSE(find_worker_library(kopt).has_value());
  const std::filesystem::path installed = (prefix.path() / "bin" / KOPT_WORKER_FROM_BIN / "libkopt_worker.so").lexically_normal();
  write_file_atomic(installed, "");
  EXPECT_EQ(find_worker_library(kopt), installed);
  EXPECT_NE(installed.string().find("/kopt/libkopt_worker.so"), std::string::npos);
  write_file_atomic(prefix.path() / "bin" / "libkopt_worker.so", "");
  EXPECT_EQ(find_worker_library(kopt), prefix.path() / "bin" / "libkopt_worker.so");
}

}  // namespace
}  // namespace kopt::run
