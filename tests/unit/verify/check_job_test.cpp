#include "kopt/verify/check_job.hpp"

#include <gtest/gtest.h>

#include <gmock/gmock.h>

#include <cstring>
#include <vector>

#include "kopt/core/files.hpp"
#include "kopt/spec/dtype.hpp"
#include "kopt/verify/npy.hpp"

namespace kopt::verify {
namespace {

spec::KernelSignature vector_add_signature() {
  const spec::DType* f32 = spec::dtype_named("float32");
  const spec::DType* i32 = spec::dtype_named("int32");
  return {.entry = "solve",
          .line = 3,
          .params = {{"A", f32, true, true, "const float* A"},
                     {"C", f32, true, false, "float* C"},
                     {"N", i32, false, false, "int N"}}};
}

spec::BoundCase vector_add_case() {
  const spec::DType* f32 = spec::dtype_named("float32");
  const spec::DType* i32 = spec::dtype_named("int32");
  spec::BoundCase c{.name = "N=1024", .dims = {{"N", std::int64_t{1024}}}};
  c.args.push_back({.buffer = spec::BoundBuffer{.name = "A", .dtype = f32, .elements = 1024, .shape = {1024},
                                                .init = spec::InitSpec{.kind = spec::InitKind::uniform, .a = -1, .b = 1}}});
  c.args.push_back({.buffer = spec::BoundBuffer{.name = "C", .dtype = f32, .elements = 1024, .shape = {1024},
                                                .is_output = true, .tolerance = {1e-4, 1e-3}}});
  c.args.push_back({.scalar = spec::BoundScalar{.name = "N", .dtype = i32, .value = std::int64_t{1024}}});
  return c;
}

TEST(CheckJob, RoundTripsThroughJson) {
  CheckJob job{.library = "/cache/lib.so",
               .signature = vector_add_signature(),
               .cases = {vector_add_case()},
               .seeds = {1, 2},
               .reference_dirs = {{"/ref/a", "/ref/b"}},
               .device = 1};
  CheckJob back = check_job_from_json(check_job_to_json(job));
  EXPECT_EQ(back.library, job.library);
  EXPECT_EQ(back.signature.params.size(), 3u);
  EXPECT_TRUE(back.signature.params[0].is_const);
  EXPECT_EQ(back.cases[0].name, "N=1024");
  ASSERT_TRUE(back.cases[0].args[0].buffer.has_value());
  EXPECT_EQ(back.cases[0].args[0].buffer->init->kind, spec::InitKind::uniform);
  EXPECT_TRUE(back.cases[0].args[1].buffer->is_output);
  EXPECT_FALSE(back.cases[0].args[1].buffer->init.has_value());
  EXPECT_DOUBLE_EQ(back.cases[0].args[1].buffer->tolerance.rtol, 1e-3);
  EXPECT_EQ(std::get<std::int64_t>(back.cases[0].args[2].scalar->value), 1024);
  EXPECT_EQ(back.seeds, job.seeds);
  EXPECT_EQ(back.reference_dirs[0][1], "/ref/b");
  EXPECT_TRUE(back.dump_dirs.empty());
  EXPECT_EQ(back.device, 1);
}

TEST(CheckJobResult, KeepsFindingsInOrderAndTheFatalOne) {
  CheckJobResult result;
  result.device = {{"name", "test"}};
  RunRecord run{.case_name = "N=1024", .seed = 1};
  run.findings.push_back({FindingKind::unwritten_output, "C", "output C: 10 of 1024 elements were never written"});
  run.outputs.push_back({.name = "C", .elements = 1024, .bad_count = 10, .first_bad_index = 0});
  result.runs.push_back(run);
  result.fatal = Finding{FindingKind::fault, "", "solve faulted"};
  CheckJobResult back = check_result_from_json(check_result_to_json(result));
  ASSERT_EQ(back.runs.size(), 1u);
  EXPECT_FALSE(back.runs[0].passed());
  EXPECT_EQ(back.runs[0].findings[0].kind, FindingKind::unwritten_output);
  EXPECT_EQ(back.runs[0].outputs[0].bad_count, 10);
  ASSERT_TRUE(back.fatal.has_value());
  EXPECT_EQ(back.fatal->kind, FindingKind::fault);
}

TEST(FindingKind, FundamentalCausesSortFirst) {
  EXPECT_LT(FindingKind::fault, FindingKind::unwritten_output);
  EXPECT_LT(FindingKind::unwritten_output, FindingKind::race);
  EXPECT_LT(FindingKind::race, FindingKind::mismatch);
  EXPECT_EQ(finding_kind_name(FindingKind::input_modified), "input_modified");
}

TEST(CheckJob, TheAuditsSingleCallsAndTheWorkersPhasesRoundTrip) {
  CheckJob job{.library = "/cache/lib.so", .signature = vector_add_signature(), .cases = {vector_add_case()},
               .seeds = {1}, .single_calls = true};
  job.dump_unless_digests = {{{11, 22}}};
  const CheckJob back_job = check_job_from_json(check_job_to_json(job));
  EXPECT_TRUE(back_job.single_calls);
  EXPECT_EQ(back_job.dump_unless_digests, job.dump_unless_digests);
  EXPECT_FALSE(check_job_from_json(check_job_to_json(CheckJob{.signature = vector_add_signature()})).single_calls);

  CheckJobResult result;
  result.device = nlohmann::json::object();
  result.phases = {.setup = 0.5, .generate = 0.01, .calls = 0.2, .checks = 0.03, .transfer = 0.1, .dumps = 0.4};
  RunRecord run{.case_name = "N=1024", .seed = 1};
  run.output_digests = {11, 22};
  result.runs.push_back(run);
  const CheckJobResult back = check_result_from_json(check_result_to_json(result));
  EXPECT_DOUBLE_EQ(back.phases.dumps, 0.4);
  EXPECT_DOUBLE_EQ(back.phases.transfer, 0.1);
  EXPECT_EQ(back.runs[0].output_digests, (std::vector<std::uint64_t>{11, 22}));
}

// A worker result of an earlier build has neither: zeros and no digests, not an error.
TEST(CheckJobResult, ReadsAResultWithoutPhasesOrDigests) {
  nlohmann::json old = check_result_to_json(CheckJobResult{.device = nlohmann::json::object(),
                                                           .runs = {RunRecord{.case_name = "N=1024"}}});
  old.erase("phase_seconds");
  old["runs"][0].erase("output_digests");
  const CheckJobResult back = check_result_from_json(old);
  EXPECT_DOUBLE_EQ(back.phases.calls, 0);
  EXPECT_TRUE(back.runs[0].output_digests.empty());
}

class DumpedOutputs : public ::testing::Test {
 protected:
  void dump(const std::filesystem::path& dir, std::vector<float> values) {
    std::filesystem::create_directories(dir);
    std::vector<std::byte> bytes(values.size() * sizeof(float));
    std::memcpy(bytes.data(), values.data(), bytes.size());
    write_npy(dir / "C.npy", "<f4", static_cast<std::int64_t>(values.size()), bytes);
  }
  RunRecord run_with_digest(std::uint64_t digest) {
    RunRecord run{.case_name = "N=1024", .seed = 1};
    run.output_digests = {digest};
    return run;
  }

  TempDir dir{"dumped-outputs"};
  spec::BoundCase bound_case = [] {
    spec::BoundCase c = vector_add_case();
    c.args[1].buffer->elements = 4;
    c.args[1].buffer->shape = {4};
    return c;
  }();
};

// Equal digests: the bytes are the reference's, so neither file is read (here there are none)
// and the error is what an element-wise comparison of equal bytes gives.
TEST_F(DumpedOutputs, EqualDigestsPassWithoutReadingEitherFile) {
  RunRecord run = run_with_digest(42);
  compare_dumped_outputs(bound_case, dir.path() / "absent", dir.path() / "absent too", {42}, run);
  EXPECT_TRUE(run.passed());
  ASSERT_EQ(run.outputs.size(), 1u);
  EXPECT_EQ(run.outputs[0].name, "C");
  EXPECT_EQ(run.outputs[0].elements, 4);
  EXPECT_EQ(run.outputs[0].bad_count, 0);
  EXPECT_DOUBLE_EQ(run.outputs[0].max_abs_error, 0);
  EXPECT_DOUBLE_EQ(run.outputs[0].tolerance.rtol, 1e-3);

  const std::vector<float> values{1, 2, std::nanf(""), 4};
  dump(dir.path() / "kernel", values);
  dump(dir.path() / "reference", values);
  RunRecord compared = run_with_digest(0);
  compare_dumped_outputs(bound_case, dir.path() / "kernel", dir.path() / "reference", {}, compared);
  EXPECT_EQ(nlohmann::json(compared.outputs).dump(), nlohmann::json(run.outputs).dump());
}

TEST_F(DumpedOutputs, DifferentOrUnknownDigestsAreComparedElementByElement) {
  dump(dir.path() / "kernel", {1, 2, 3, 9});
  dump(dir.path() / "reference", {1, 2, 3, 4});
  for (const std::vector<std::uint64_t>& reference_digests : {std::vector<std::uint64_t>{43}, std::vector<std::uint64_t>{}}) {
    RunRecord run = run_with_digest(42);
    compare_dumped_outputs(bound_case, dir.path() / "kernel", dir.path() / "reference", reference_digests, run);
    ASSERT_FALSE(run.passed());
    EXPECT_THAT(run.findings[0].message, ::testing::HasSubstr("output C: 1 of 4 elements outside atol"));
  }
}

// The kernel's dumps are written in its own worker: one deleted or cut short there is the
// kernel's wrong output, a finding of the run, not a broken spec that ends kopt.
TEST_F(DumpedOutputs, AMissingOrShortDumpIsAMismatchOfTheRun) {
  dump(dir.path() / "reference", {1, 2, 3, 4});
  RunRecord missing = run_with_digest(42);
  compare_dumped_outputs(bound_case, dir.path() / "kernel", dir.path() / "reference", {43}, missing);
  ASSERT_FALSE(missing.passed());
  EXPECT_EQ(missing.findings[0].kind, FindingKind::mismatch);
  EXPECT_THAT(missing.findings[0].message, ::testing::HasSubstr("left no readable output"));
  dump(dir.path() / "kernel", {1, 2, 3});
  RunRecord short_dump = run_with_digest(42);
  compare_dumped_outputs(bound_case, dir.path() / "kernel", dir.path() / "reference", {43}, short_dump);
  ASSERT_FALSE(short_dump.passed());
  EXPECT_THAT(short_dump.findings[0].message, ::testing::HasSubstr("12 bytes where the reference's has 16"));
}

TEST(SameBytesAsReference, NeedsBothDigestsOfEveryOutput) {
  RunRecord run;
  run.output_digests = {1, 2};
  EXPECT_TRUE(same_bytes_as_reference(run, {1, 2}, 0));
  EXPECT_FALSE(same_bytes_as_reference(run, {1, 3}, 1));
  EXPECT_FALSE(same_bytes_as_reference(run, {1}, 0));   // not the same outputs
  EXPECT_FALSE(same_bytes_as_reference(run, {}, 0));    // the reference's unknown (a .py reference)
  run.output_digests.clear();
  EXPECT_FALSE(same_bytes_as_reference(run, {1, 2}, 0));
}

}  // namespace
}  // namespace kopt::verify
