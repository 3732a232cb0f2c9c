// The planner test set (tests/planner/README.md): small kernels with one planted bottleneck
// each, profiled on the H200 by tools/capture_planner_fixtures.sh into
// tests/fixtures/planner/<name>/raw.csv. The method that fixes the planted bottleneck must be
// among the first three the plan ranks. Skipped, naming the capture script, while a kernel's
// export has not been captured.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "kopt/catalog/method_catalog.hpp"
#include "kopt/spec/problem_spec.hpp"
#include "planner_test_support.hpp"

namespace kopt::catalog {
namespace {

struct PlantedBottleneck {
  std::string kernel;                 // tests/planner/kernels/<kernel>
  std::vector<std::string> accepted;  // any of these in the top 3 fixes it
};

const std::vector<PlantedBottleneck> kPlanted = {
    {"uncoalesced_matvec", {"memory.coalescing", "memory.warp_per_row"}},
    {"strided_aos", {"memory.data_layout_soa", "memory.coalescing"}},
    {"bank_conflicts", {"memory.smem_padding", "memory.smem_swizzle"}},
    {"no_vectorization", {"memory.vectorized_access", "latency.ilp_multiple_elements"}},
    {"occupancy_registers", {"latency.register_pressure", "latency.occupancy"}},
    {"occupancy_shared", {"latency.shared_memory_occupancy", "latency.occupancy"}},
    {"small_blocks", {"latency.block_size", "latency.occupancy"}},
    {"warp_divergence", {"compute.divergence_regroup", "compute.branch_free_select"}},
    {"atomics_contention", {"memory.shared_atomics", "memory.warp_aggregated_atomics"}},
    {"tail_wave", {"latency.tail_wave_balance", "latency.persistent_kernel", "compute.stream_k"}},
    {"launch_bound", {"latency.cuda_graphs", "latency.launch_batching", "latency.programmatic_dependent_launch"}},
    {"fp64_math", {"compute.fp64_to_fp32"}},
    {"dependent_chain", {"latency.independent_accumulators", "latency.ilp_multiple_elements"}},
};

// Test names and failure messages print the kernel, not the struct's bytes.
void PrintTo(const PlantedBottleneck& planted, std::ostream* out) { *out << planted.kernel; }

class PlannerSet : public testing::TestWithParam<PlantedBottleneck> {};

TEST(PlannerSetData, EveryKernelHasItsFolderAndEveryAcceptedMethodExists) {
  const MethodCatalog catalog = load_method_catalog();
  EXPECT_GE(kPlanted.size(), 12u);
  for (const PlantedBottleneck& planted : kPlanted) {
    const std::filesystem::path dir = std::filesystem::path(KOPT_SOURCE_DIR) / "tests/planner/kernels" / planted.kernel;
    EXPECT_TRUE(std::filesystem::exists(dir / "kernel.cu")) << dir;
    EXPECT_TRUE(std::filesystem::exists(dir / "kopt.toml")) << dir;
    for (const std::string& id : planted.accepted) EXPECT_NE(catalog.find(id), nullptr) << id;
  }
}

// Every kernel's spec binds to its kernel's signature (buffers, shapes, dims, tolerance), so
// the capture on the GPU machine does not stop at a spec error.
TEST_P(PlannerSet, TheSpecBindsToTheKernel) {
  const std::filesystem::path dir = std::filesystem::path(KOPT_SOURCE_DIR) / "tests/planner/kernels" / GetParam().kernel;
  const spec::Problem problem = spec::load_problem(dir, std::nullopt, {});
  EXPECT_EQ(problem.spec.name, GetParam().kernel);
  EXPECT_FALSE(problem.cases.empty());
}

TEST_P(PlannerSet, ThePlantedBottlenecksMethodIsInTheTopThree) {
  const PlantedBottleneck& planted = GetParam();
  const std::string dir = std::string(KOPT_FIXTURES_DIR) + "/planner/" + planted.kernel;
  const std::string csv = dir + "/raw.csv";
  if (!std::filesystem::exists(csv)) {
    GTEST_SKIP() << csv << " not captured yet: run tools/capture_planner_fixtures.sh on the GPU machine";
  }
  const Plan plan = plan_methods(load_method_catalog(), h200_plan_inputs(csv, dir + "/roofline.json"));
  const std::vector<std::string> top(plan.ranked.begin(), plan.ranked.begin() + std::min<size_t>(3, plan.ranked.size()));
  bool found = false;
  for (const std::string& id : planted.accepted) found = found || std::ranges::find(top, id) != top.end();
  EXPECT_TRUE(found) << planted.kernel << ": top 3 " << testing::PrintToString(top) << ", expected one of "
                     << testing::PrintToString(planted.accepted) << "; bound " << plan.bound;
}

// Issue 58: a warp "not selected" had another ready warp beside it — issue saturation, not
// latency. Two kernels of the set are compute-saturated (warp_divergence, and tail_wave's long
// FMA loop): most of their stall share is not_selected, and their latency gap, read from the
// same captured profile as kopt roofline reads it, is their latency stalls' alone: small.
TEST(PlannerSetEvidence, AComputeSaturatedKernelsLatencyGapIsNotItsIssueSaturation) {
  for (const char* kernel : {"warp_divergence", "tail_wave"}) {
    const std::string csv = std::string(KOPT_FIXTURES_DIR) + "/planner/" + kernel + "/raw.csv";
    if (!std::filesystem::exists(csv)) GTEST_SKIP() << csv << " not captured yet";
    const PlanInputs inputs = h200_plan_inputs(csv);
    const double not_selected = inputs.profile.concepts.at("stall_not_selected").value_or(0);
    EXPECT_GT(not_selected, 0.6) << kernel;
    EXPECT_EQ(inputs.roofline.bound, "compute") << kernel;
    EXPECT_LT(inputs.roofline.gaps.latency, 0.25) << kernel << ": the latency gap took the issue saturation for latency";
    EXPECT_LT(inputs.roofline.gaps.latency, not_selected / 3) << kernel;
    // The plan names it for what it is.
    EXPECT_THAT(plan_methods(load_method_catalog(), inputs).ceiling,
                testing::HasSubstr("is stall_not_selected: another ready warp was issued instead, so issue slots are "
                                   "saturated; that is no latency"))
        << kernel;
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, PlannerSet, testing::ValuesIn(kPlanted),
                         [](const testing::TestParamInfo<PlantedBottleneck>& info) { return info.param.kernel; });

}  // namespace
}  // namespace kopt::catalog
