// exporting::export_torch on a fake nvcc: what it compiles (the arch, the champion's defines and
// the run's flags), the package it publishes, what it refuses, and a Triton kernel's copy.
#include "kopt/export/torch_export.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "kopt/core/embedded_files.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/file_queries.hpp"
#include "kopt/core/files.hpp"
#include "kopt/loop/run_state.hpp"

namespace kopt::exporting {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using ::testing::HasSubstr;

const fs::path kExamples = fs::path(KOPT_SOURCE_DIR) / "examples";

// nvcc that writes its -o file (refusing a source that says "syntax error") and tells its version.
class FakeNvcc final : public ProcessRunner {
 public:
  ProcessResult run(const ProcessSpec& spec) override {
    commands.push_back(spec.argv);
    if (spec.argv.size() == 2 && spec.argv[1] == "--version") {
      return {.started = true, .exit_status = 0, .out = "Cuda compilation tools, release 13.0, V13.0.88\n"};
    }
    const auto out = std::ranges::find(spec.argv, "-o");
    const bool broken = std::ranges::any_of(spec.argv, [](const std::string& arg) {
      return arg.ends_with(".cu") && path_exists(arg) && read_file(arg).find("syntax error") != std::string::npos;
    });
    if (broken) return {.started = true, .exit_status = 2, .err = "k.cu(1): error: expected a \";\"\n"};
    write_file_atomic(*(out + 1), "ELF");
    return {.started = true, .exit_status = 0};
  }
  bool ran_with(const std::string& word) const {
    return std::ranges::any_of(commands, [&](const auto& argv) { return std::ranges::find(argv, word) != argv.end(); });
  }
  std::vector<std::vector<std::string>> commands;
};

class TorchExportTest : public ::testing::Test {
 protected:
  TempDir dir{"torch-export-test"};
  FakeNvcc runner;
  FixedToolchain tools{{{Tool::nvcc, "nvcc"}}};
  Context context{.runner = runner, .tools = tools, .cache_dir = dir.path() / "cache"};
  int probes = 0;
  std::function<std::string()> probe = [this] {
    ++probes;
    return std::string("sm_100a");
  };

  TorchExport exported(TorchExportRequest request) {
    if (request.out_dir.empty()) request.out_dir = dir.path() / "out";
    return export_torch(context, request, probe);
  }
};

TEST_F(TorchExportTest, VectorAddBecomesAPackageOfTheRuntimeTheLibraryAndTheManifest) {
  const TorchExport done = exported({.target = kExamples / "vector_add", .arch = "sm_90"});
  EXPECT_EQ(done.name, "vector_add");
  EXPECT_EQ(done.package, dir.path() / "out" / "vector_add");
  EXPECT_TRUE(runner.ran_with("-gencode=arch=compute_90,code=sm_90"));
  EXPECT_EQ(probes, 0);
  EXPECT_EQ(read_file(done.package / "__init__.py"), data_file("python/kopt_torch_export.py"));
  EXPECT_EQ(read_file(done.package / "kopt_torch_rules.py"), data_file("python/kopt_torch_rules.py"));
  EXPECT_EQ(read_file(done.package / "kopt_expression.py"), data_file("python/kopt_expression.py"));
  EXPECT_EQ(read_file(done.package / "libvector_add.so"), "ELF");
  const json manifest = json::parse(read_file(done.package / "manifest.json"));
  EXPECT_EQ(manifest, done.manifest);
  EXPECT_EQ(manifest.at("arch"), "sm_90");
  EXPECT_EQ(manifest.at("library"), "libvector_add.so");
  EXPECT_THAT(manifest.at("nvcc").at("version").get<std::string>(), HasSubstr("release 13.0"));
  EXPECT_EQ(manifest.at("source").at("digest").get<std::string>().size(), 32u);
  EXPECT_FALSE(path_exists(done.package / "kernel.py"));
  // Nothing but the package is left beside it: the staging folder went with the rename.
  EXPECT_EQ(folder_entries(dir.path() / "out"), (std::vector<fs::path>{done.package}));
}

TEST_F(TorchExportTest, TheArchIsTheOptionTheRunsTheSpecsThenTheGpus) {
  ExportTarget target;
  EXPECT_EQ(export_arch(std::string("sm_80"), target, "sm_90", probe), "sm_80");
  target.recorded_arch = "sm_90a";
  EXPECT_EQ(export_arch(std::nullopt, target, "sm_90", probe), "sm_90a");
  target.recorded_arch = "";
  EXPECT_EQ(export_arch(std::nullopt, target, "sm_90", probe), "sm_90");
  EXPECT_EQ(probes, 0);
  EXPECT_EQ(export_arch(std::nullopt, target, "native", probe), "sm_100a");
  EXPECT_EQ(probes, 1);
  const auto no_gpu = []() -> std::string { throw environment_error("no CUDA device found"); };
  try {
    export_arch(std::nullopt, target, "native", no_gpu);
    FAIL() << "no GPU and no arch, but an arch came back";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::environment);
    EXPECT_THAT(e.what(), HasSubstr("no CUDA device found (name the GPU's arch with --arch, e.g. --arch sm_90a)"));
  }
}

TEST_F(TorchExportTest, ARunsChampionIsExportedWithItsDefinesFlagsAndArch) {
  const fs::path original = dir.path() / "vector_add";
  for (const char* file : {"vector_add.cu", "ref.cu", "kopt.toml"}) {
    write_file_atomic(original / file, read_file(kExamples / "vector_add" / file));
  }
  const loop::RunFolder run(dir.path() / "run");
  write_file_atomic(run.root() / "iter1" / "champion" / "kernel.cu", read_file(original / "vector_add.cu"));
  loop::RunState state{.kernel = original / "vector_add.cu", .spec = original / "kopt.toml"};
  state.baseline = {"baseline", "baseline/kernel.cu", {}};
  state.best = {"iter1/champion", "iter1/champion/kernel.cu", {{"THREADS", "512"}, {"KOPT_USE_VECTORIZED_ACCESS", "1"}}};
  run.save(state);
  write_file_atomic(run.root() / "env.json", json{{"arch", "sm_90a"}, {"device", json::object()}}.dump());

  const TorchExport done = exported({.target = run.root(), .name = "va", .defines = {{"THREADS", "256"}}});
  EXPECT_TRUE(runner.ran_with("-DTHREADS=256"));  // -D on the command line over the champion's
  EXPECT_TRUE(runner.ran_with("-DKOPT_USE_VECTORIZED_ACCESS=1"));
  EXPECT_TRUE(runner.ran_with("-I" + original.string()));
  EXPECT_TRUE(runner.ran_with("-gencode=arch=compute_90a,code=sm_90a"));
  EXPECT_EQ(done.manifest.at("defines"),
            json::array({json::array({"KOPT_USE_VECTORIZED_ACCESS", "1"}), json::array({"THREADS", "256"})}));
  EXPECT_EQ(done.manifest.at("source").at("variant"), "iter1/champion");
  EXPECT_EQ(done.manifest.at("source").at("run"), run.root().string());
  EXPECT_EQ(done.manifest.at("op"), "va");
  EXPECT_TRUE(is_file(dir.path() / "out" / "va" / "libva.so"));
  EXPECT_THROW(exported({.target = run.root(), .spec = original / "kopt.toml"}), Error);
}

TEST_F(TorchExportTest, AnEarlierExportIsReplacedAndAnythingElseIsRefused) {
  exported({.target = kExamples / "vector_add", .arch = "sm_90"});
  write_file_atomic(dir.path() / "out" / "vector_add" / "stale.txt", "from before");
  exported({.target = kExamples / "vector_add", .arch = "sm_90", .defines = {{"THREADS", "128"}}});
  EXPECT_FALSE(path_exists(dir.path() / "out" / "vector_add" / "stale.txt"));
  write_file_atomic(dir.path() / "mine" / "vector_add" / "notes.txt", "the user's");
  try {
    exported({.target = kExamples / "vector_add", .out_dir = dir.path() / "mine", .arch = "sm_90"});
    FAIL() << "a folder that is no export was replaced";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::bad_input);
    EXPECT_THAT(e.what(), HasSubstr("exists and is not a kopt export"));
  }
  EXPECT_EQ(read_file(dir.path() / "mine" / "vector_add" / "notes.txt"), "the user's");
}

TEST_F(TorchExportTest, AKernelThatDoesNotCompileIsTheKernelsFailureAndWritesNothing) {
  write_file_atomic(dir.path() / "k" / "k.cu", "extern \"C\" void solve(float* x, int n) { syntax error }\n");
  try {
    exported({.target = dir.path() / "k" / "k.cu", .arch = "sm_90"});
    FAIL() << "exported a kernel that does not compile";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kernel_failed);
    EXPECT_THAT(e.what(), HasSubstr("k.cu does not compile: k.cu(1): error"));
  }
  EXPECT_FALSE(path_exists(dir.path() / "out" / "k"));
}

TEST_F(TorchExportTest, ABadNameIsRefusedBeforeAnythingIsCompiled) {
  EXPECT_THROW(exported({.target = kExamples / "vector_add", .name = "vector-add", .arch = "sm_90"}), Error);
  EXPECT_TRUE(runner.commands.empty());
}

TEST_F(TorchExportTest, ATritonKernelIsCopiedWithTheHostThatImportsItAndNothingIsCompiled) {
  const TorchExport done = exported({.target = kExamples / "triton_softmax", .defines = {{"BLOCK", "2048"}}});
  EXPECT_TRUE(runner.commands.empty());
  EXPECT_EQ(probes, 0);
  EXPECT_EQ(read_file(done.package / "kernel.py"), read_file(kExamples / "triton_softmax" / "kernel.py"));
  EXPECT_EQ(read_file(done.package / "kopt_triton_host.py"), data_file("python/kopt_triton_host.py"));
  EXPECT_EQ(done.manifest.at("kind"), "triton");
  EXPECT_EQ(done.manifest.at("defines"), json::array({json::array({"BLOCK", "2048"})}));
  EXPECT_TRUE(done.arch.empty());
}

}  // namespace
}  // namespace kopt::exporting
