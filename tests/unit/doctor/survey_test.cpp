#include "kopt/doctor/survey.hpp"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/core/parallel_for.hpp"

namespace kopt::doctor {
namespace {

using ::testing::HasSubstr;

// nvcc --version and the Python version script, answered without running anything.
class FakeTools final : public ProcessRunner {
 public:
  ProcessResult run(const ProcessSpec& spec) override {
    ProcessResult result{.started = true, .exit_status = 0};
    if (spec.argv.at(0) == "nvcc") result.out = "Cuda compilation tools, release 13.0, V13.0.88\nBuild cuda_13.0.r13.0/compiler.1\n";
    if (spec.argv.at(0) == "python3") result.out = python_says;
    return result;
  }
  std::string python_says = "Python 3.12.3, numpy 2.1.0, torch absent\n";
};

class SurveyTest : public ::testing::Test {
 protected:
  TempDir dir{"survey-test"};
  FakeTools runner;
  FixedToolchain tools{{{Tool::nvcc, "nvcc"}, {Tool::python, "python3"}}};
  Context context{.runner = runner, .tools = tools, .cache_dir = dir.path()};

  static const Finding& finding(const Survey& survey, const std::string& what) {
    const auto found = std::ranges::find(survey.findings, what, &Finding::what);
    if (found == survey.findings.end()) throw std::runtime_error("no finding " + what);
    return *found;
  }
};

GpuProbe no_gpu() {
  return []() -> run::DeviceProbe { throw environment_error("no CUDA device: cudaErrorNoDevice"); };
}

GpuProbe an_h200() {
  return [] {
    return run::DeviceProbe{.device = {.name = "NVIDIA H200", .cc_major = 9, .cc_minor = 0, .sm_count = 132,
                                       .l2_bytes = 60 * 1048576LL, .global_memory_bytes = 141LL << 30},
                            .writes_confinable = true,
                            .sandbox = "landlock"};
  };
}

TEST_F(SurveyTest, WithoutAGpuKoptCannotCheckAndSaysWhyForEachPart) {
  const Survey survey = survey_machine(context, {}, no_gpu());
  EXPECT_FALSE(survey.can_check);
  EXPECT_FALSE(survey.device);
  EXPECT_THAT(finding(survey, "gpu").detail, HasSubstr("no CUDA device"));
  EXPECT_EQ(finding(survey, "sandbox").detail, "not tried without a GPU");
  EXPECT_EQ(finding(survey, "ncu").detail, "not tried: no GPU");
  EXPECT_TRUE(finding(survey, "nvcc").ok);
  EXPECT_THAT(finding(survey, "nvcc").detail, HasSubstr("release 13.0"));
}

TEST_F(SurveyTest, AGpuAndNvccAreEnoughToCheck) {
  const Survey survey = survey_machine(context, {.skip_ncu = "the run's profile step tries it"}, an_h200());
  EXPECT_TRUE(survey.can_check);
  ASSERT_TRUE(survey.device);
  EXPECT_EQ(survey.device->arch(), "sm_90");
  EXPECT_THAT(finding(survey, "gpu").detail, HasSubstr("NVIDIA H200 (sm_90, 132 SMs, 60 MiB L2, 141 GiB)"));
  EXPECT_TRUE(finding(survey, "sandbox").ok);
  EXPECT_EQ(finding(survey, "ncu").detail, "not tried (the run's profile step tries it)");
  EXPECT_TRUE(finding(survey, "python").ok);
}

// The width of kopt's parallel work, as the affinity mask allows it, beside what the system says.
TEST_F(SurveyTest, SaysHowManyCpusKoptMayUse) {
  const Survey survey = survey_machine(context, {}, no_gpu());
  const Finding& cpus = finding(survey, "cpus");
  EXPECT_TRUE(cpus.ok);
  EXPECT_EQ(cpus.data.at("usable").get<unsigned>(), usable_cores());
  EXPECT_THAT(cpus.detail, HasSubstr(fmt::format("{} usable by kopt", usable_cores())));
}

TEST_F(SurveyTest, PythonWithoutNumpyIsNotEnough) {
  runner.python_says = "Python 3.12.3, numpy absent, torch absent\n";
  const Survey survey = survey_machine(context, {}, no_gpu());
  EXPECT_FALSE(finding(survey, "python").ok);
}

TEST_F(SurveyTest, AMissingNvccIsAFindingNotAnError) {
  FixedToolchain python_only{{{Tool::python, "python3"}}};
  Context without{.runner = runner, .tools = python_only, .cache_dir = dir.path()};
  const Survey survey = survey_machine(without, {}, an_h200());
  EXPECT_FALSE(finding(survey, "nvcc").ok);
  EXPECT_FALSE(survey.can_check);
}

// The document `kopt doctor --json` prints and env.json holds under "survey".
TEST_F(SurveyTest, TheDocumentHasOneEntryPerFinding) {
  const Survey survey = survey_machine(context, {}, no_gpu());
  const nlohmann::json document = survey_json(survey);
  EXPECT_EQ(document.at("schema"), "kopt.doctor/1");
  EXPECT_FALSE(document.at("can_check").get<bool>());
  for (const Finding& f : survey.findings) EXPECT_EQ(document.at(f.what).at("ok").get<bool>(), f.ok) << f.what;
}

// Python run for real, on a torch that cannot be imported (its __init__ raises) but has its
// metadata and version.py: the loop's record of its environment reads torch's version and CUDA
// build without importing it (importing torch only for its version costs kopt init seconds);
// kopt doctor imports it, and finds it broken.
class RealPythonFakeNvcc final : public ProcessRunner {
 public:
  explicit RealPythonFakeNvcc(std::filesystem::path site) : site_(std::move(site)) {}
  ProcessResult run(const ProcessSpec& spec) override {
    if (spec.argv.at(0) == "nvcc") return FakeTools().run(spec);
    ProcessSpec python = spec;
    python.env.emplace_back("PYTHONPATH", site_.string());
    return system_.run(python);
  }

 private:
  std::filesystem::path site_;
  SystemProcessRunner system_;
};

TEST_F(SurveyTest, TheLoopsRecordReadsTorchsVersionWithoutImportingIt) {
  if (!find_program("python3")) GTEST_SKIP() << "needs python3";
  const std::filesystem::path site = dir.path() / "site";
  write_file_atomic(site / "torch" / "__init__.py", "raise RuntimeError('torch was imported')\n");
  write_file_atomic(site / "torch" / "version.py",
                    "from typing import Optional\n__version__ = '2.11.0+cu130'\ncuda: Optional[str] = '13.0'\n");
  write_file_atomic(site / "torch-2.11.0+cu130.dist-info" / "METADATA", "Metadata-Version: 2.1\nName: torch\nVersion: 2.11.0+cu130\n");
  RealPythonFakeNvcc real(site);
  FixedToolchain python_tools{{{Tool::nvcc, "nvcc"}, {Tool::python, find_python()}}};
  Context with_python{.runner = real, .tools = python_tools, .cache_dir = dir.path()};
  const std::string read =
      finding(survey_machine(with_python, {.import_python_packages = false}, no_gpu()), "python").detail;
  EXPECT_THAT(read, HasSubstr("torch 2.11.0+cu130 (CUDA 13.0 build)"));
  EXPECT_THAT(read, HasSubstr(", numpy "));
  // kopt doctor imports: the same torch fails to import, and says so as absent.
  const std::string imported = finding(survey_machine(with_python, {}, no_gpu()), "python").detail;
  EXPECT_THAT(imported, HasSubstr("torch absent"));
}

}  // namespace
}  // namespace kopt::doctor
