#include "kopt/system/system_trace.hpp"

#include <sqlite3.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cctype>

#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"

namespace kopt::system {
namespace {
namespace fs = std::filesystem;
using json = nlohmann::json;
using ::testing::HasSubstr;

const fs::path kFixtures = fs::path(KOPT_FIXTURES_DIR) / "evidence";
constexpr double kUs = 1e-6;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// The hand-made trace's figures are worked out in its events: see the fixture's _comment.
TEST(SystemEvidence, TheHandMadeTorchTraceSplitsKernelsCopiesGapsAndHostTime) {
  const SystemTrace trace = read_system_trace(kFixtures / "handmade_torch_trace.json");
  EXPECT_EQ(trace.format, "torch_trace");
  const json e = system_evidence(trace, {});
  EXPECT_NEAR(e["gpu_span_s"].get<double>(), 440 * kUs, 1e-12);
  EXPECT_NEAR(e["kernel_s"].get<double>(), 182 * kUs, 1e-12);
  EXPECT_NEAR(e["copy_s"].get<double>(), 60 * kUs, 1e-12);
  EXPECT_NEAR(e["gap_s"].get<double>(), 198 * kUs, 1e-12);
  EXPECT_NEAR(e["host_api_s"].get<double>(), 115 * kUs, 1e-12);  // overlapping API calls count once
  EXPECT_NEAR(e["window_s"].get<double>(), 445 * kUs, 1e-12);
  EXPECT_EQ(e["gaps"]["count"], 8);
  EXPECT_NEAR(e["gaps"]["median_s"].get<double>(), 24 * kUs, 1e-12);
  EXPECT_NEAR(e["gaps"]["max_s"].get<double>(), 60 * kUs, 1e-12);
  EXPECT_EQ(e["bound"], "gaps");  // 45 % of the span idle
  ASSERT_EQ(e["kernels"].size(), 3u);
  EXPECT_EQ(e["kernels"][0]["name"], "ampere_sgemm_128x64_nn");
  EXPECT_EQ(e["kernels"][0]["calls"], 3);
  EXPECT_NEAR(e["kernels"][0]["share"].get<double>(), 150.0 / 182, 1e-9);
  // The elementwise add is 1 % of kernel time: not worth a loop.
  ASSERT_EQ(e["candidates"].size(), 2u);
  EXPECT_THAT(e["candidates"][1]["name"].get<std::string>(), HasSubstr("softmax_warp_forward"));
  ASSERT_EQ(e["copies"].size(), 2u);
  EXPECT_EQ(e["copies"][0]["name"], "HtoD");
  EXPECT_EQ(e["copies"][0]["bytes"], 4194304);
  const std::string text = format_system_evidence(e);
  EXPECT_THAT(text, HasSubstr("kernels 182.0 µs (41 %), copies 60.0 µs (14 %), idle gaps 198.0 µs (45 %)"));
  EXPECT_THAT(text, HasSubstr("Bound by: gaps"));
}

// An Nsight Systems export with the documented tables: names through StringIds, copies by
// CUPTI's copyKind, memsets, runtime calls; timestamps in ns.
void write_nsys_export(const fs::path& file, bool with_kernels = true) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
  std::string sql =
      "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
      "INSERT INTO StringIds VALUES (1, 'gemm_kernel'), (2, 'void gemm_kernel<128>(float*)'), (3, 'tiny'),"
      "  (4, 'void tiny<1>(int)'), (5, 'cudaLaunchKernel_v7000'), (6, 'cudaMemcpy_v3020');"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INT NOT NULL, end INT NOT NULL, deviceId INT NOT NULL,"
      "  streamId INT NOT NULL, correlationId INT, bytes INT NOT NULL, copyKind INT NOT NULL, srcKind INT, dstKind INT);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (0, 10000, 0, 7, 1, 1048576, 1, 0, 1), (95000, 100000, 0, 7, 5, 4096, 2, 1, 0);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INT NOT NULL, end INT NOT NULL, bytes INT NOT NULL, value INT);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (10000, 12000, 256, 0);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INT NOT NULL, end INT NOT NULL, globalTid INT, correlationId INT,"
      "  nameId INT NOT NULL, returnValue INT);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (18000, 20000, 1, 2, 5, 0), (0, 12000, 1, 1, 6, 0);";
  if (with_kernels) {
    sql += "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT NOT NULL, end INT NOT NULL, deviceId INT NOT NULL,"
           "  contextId INT, streamId INT, correlationId INT, globalPid INT, demangledName INT NOT NULL,"
           "  shortName INT NOT NULL, mangledName INT, gridX INT, gridY INT, gridZ INT, blockX INT, blockY INT, blockZ INT);"
           "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES"
           "  (20000, 60000, 0, 1, 7, 2, 1, 2, 1, 0, 64, 1, 1, 256, 1, 1),"
           "  (60000, 90000, 0, 1, 7, 3, 1, 2, 1, 0, 64, 1, 1, 256, 1, 1),"
           "  (90000, 91000, 0, 1, 7, 4, 1, 4, 3, 0, 1, 1, 1, 32, 1, 1);";
  }
  char* message = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message);
  EXPECT_EQ(rc, SQLITE_OK) << (message ? message : "");
  sqlite3_free(message);
  sqlite3_close(db);
}

TEST(SystemEvidence, ReadsAnNsightSystemsSqliteExport) {
  TempDir dir("nsys-test");
  write_nsys_export(dir.path() / "report.sqlite");
  const SystemTrace trace = read_system_trace(dir.path() / "report.sqlite");
  EXPECT_EQ(trace.format, "nsys_sqlite");
  const json e = system_evidence(trace, {});
  EXPECT_NEAR(e["gpu_span_s"].get<double>(), 100 * kUs, 1e-12);
  EXPECT_NEAR(e["kernel_s"].get<double>(), 71 * kUs, 1e-12);  // back to back: one busy stretch
  EXPECT_NEAR(e["copy_s"].get<double>(), 17 * kUs, 1e-12);    // 10 HtoD + 2 memset + 5 DtoH
  EXPECT_NEAR(e["gap_s"].get<double>(), 12 * kUs, 1e-12);     // 12..20 and 91..95
  EXPECT_NEAR(e["host_api_s"].get<double>(), 14 * kUs, 1e-12);
  EXPECT_EQ(e["gaps"]["count"], 2);
  EXPECT_EQ(e["bound"], "kernels");
  EXPECT_EQ(e["kernels"][0]["name"], "void gemm_kernel<128>(float*)");  // the demangled name
  EXPECT_EQ(e["kernels"][0]["calls"], 2);
  ASSERT_EQ(e["candidates"].size(), 1u);  // tiny is 1.4 % of kernel time
  std::vector<std::string> copies;
  for (const json& c : e["copies"]) copies.push_back(c["name"]);
  EXPECT_THAT(copies, ::testing::UnorderedElementsAre("HtoD", "DtoH", "memset"));
}

TEST(SystemEvidence, RefusesWhatItCannotReadWithOneLine) {
  TempDir dir("nsys-bad");
  write_nsys_export(dir.path() / "no_kernels.sqlite", false);
  EXPECT_THAT(error_of([&] { read_system_trace(dir.path() / "no_kernels.sqlite"); }),
              HasSubstr("no CUPTI_ACTIVITY_KIND_KERNEL table"));
  write_file_atomic(dir.path() / "other.json", R"({"events": []})");
  EXPECT_THAT(error_of([&] { read_system_trace(dir.path() / "other.json"); }), HasSubstr("no traceEvents array"));
  write_file_atomic(dir.path() / "broken.json", "{\"traceEvents\": [");
  EXPECT_THAT(error_of([&] { read_system_trace(dir.path() / "broken.json"); }), HasSubstr("not valid JSON"));
  write_file_atomic(dir.path() / "bad_ts.json", R"({"traceEvents": [{"ph": "X", "cat": "kernel", "ts": "1", "dur": 2}]})");
  EXPECT_THAT(error_of([&] { read_system_trace(dir.path() / "bad_ts.json"); }), HasSubstr("not a number"));
  EXPECT_THAT(error_of([&] { read_system_trace(dir.path() / "missing.sqlite"); }), HasSubstr("missing.sqlite"));
}

TEST(SystemEvidence, TheRulesComeFromTheDataFile) {
  const EvidenceRules rules = load_evidence_rules();
  EXPECT_DOUBLE_EQ(rules.min_kernel_share, 0.05);
  EXPECT_EQ(rules.max_candidates, 10);
  EXPECT_DOUBLE_EQ(rules.gap_share, 0.25);
}

bool contains_gemm(std::string name) {
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name.find("gemm") != std::string::npos || name.find("matmul") != std::string::npos;
}

// The captures of tools/capture_evidence_fixtures.sh on the GPU machine: a few matmuls, a
// softmax and copies, under the PyTorch profiler and (where installed) Nsight Systems.
void expect_a_real_workload(const fs::path& file, const std::string& format) {
  if (!fs::exists(file)) GTEST_SKIP() << file << " not captured yet (tools/capture_evidence_fixtures.sh)";
  const SystemTrace trace = read_system_trace(file);
  EXPECT_EQ(trace.format, format);
  const json e = system_evidence(trace, load_evidence_rules());
  EXPECT_GT(e["kernel_s"].get<double>(), 0);
  EXPECT_GT(e["copy_s"].get<double>(), 0);      // the workload copies to and from the host
  EXPECT_GT(e["host_api_s"].get<double>(), 0);
  const json& s = e["shares"];
  EXPECT_NEAR(s["kernels"].get<double>() + s["copies"].get<double>() + s["gaps"].get<double>(), 1.0, 1e-9);
  ASSERT_FALSE(e["candidates"].empty());
  bool gemm = false;
  for (const json& c : e["candidates"]) gemm = gemm || contains_gemm(c["name"]);
  EXPECT_TRUE(gemm) << "the matmuls are the workload's largest kernels: " << e["candidates"].dump();
}

TEST(SystemEvidence, ACapturedTorchProfilerTrace) { expect_a_real_workload(kFixtures / "torch_trace.json", "torch_trace"); }

TEST(SystemEvidence, ACapturedNsightSystemsExport) { expect_a_real_workload(kFixtures / "nsys_workload.sqlite", "nsys_sqlite"); }

}  // namespace
}  // namespace kopt::system
