#include "kopt/verify/check_job.hpp"

#include <gtest/gtest.h>

#include "kopt/spec/dtype.hpp"

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

}  // namespace
}  // namespace kopt::verify
