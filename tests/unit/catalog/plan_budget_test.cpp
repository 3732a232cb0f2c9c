#include "kopt/catalog/plan_budget.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/catalog/methods_validator.hpp"
#include "kopt/catalog/planner.hpp"

namespace kopt::catalog {
namespace {

using roofline::Axis;

// A memory-bound kernel whose memory gap earned one method; compute none; latency two.
RooflineEvidence memory_bound(std::array<int, 3> budget = {0, 1, 2}) {
  RooflineEvidence r;
  r.bound = "memory";
  r.gaps = {.compute = 0.05, .memory = 0.3, .latency = 0.6};
  r.budget.methods = budget;
  return r;
}

// The uncoalesced matvec of issue 23: L1 hit rate 0.878 (each thread re-reads its sector),
// 4 of 32 bytes used per sector, 16.5 sectors per request, DRAM-latency-bound.
PlanInputs matvec_inputs() {
  PlanInputs inputs;
  inputs.profile.arch = "sm_90";
  inputs.profile.concepts = {{"l1_hit_rate", 0.878},
                             {"global_load_efficiency", 0.125},
                             {"global_load_sectors_per_request", 16.5},
                             {"stall_long_scoreboard", 0.85},
                             {"dram_throughput", 0.2},
                             {"memory_throughput", 0.7},
                             {"achieved_occupancy", 0.9},
                             {"theoretical_occupancy", 1.0},
                             {"waves_per_sm", 0.5},
                             {"shared_memory_per_block", 3072 + 1024.0},  // a 3 KiB reduction scratch
                             {"fp32_pipe", 0.05}};
  inputs.roofline = memory_bound({0, 1, 1});
  inputs.fp32_exact = true;
  inputs.dtype = "fp32";
  return inputs;
}

const MethodCatalog& catalog() {
  static const MethodCatalog loaded = load_method_catalog();
  return loaded;
}

const PassedOver* passed(const Plan& plan, std::string_view id) {
  for (const AxisPlan& axis : plan.axes) {
    for (const PassedOver& p : axis.passed_over) {
      if (p.id == id) return &p;
    }
  }
  return nullptr;
}

TEST(PlanBudget, TheMatvecGetsCoalescingFirstAndNoTilingOrDoubleBuffering) {
  const Plan plan = plan_methods(catalog(), matvec_inputs());
  ASSERT_FALSE(plan.ranked.empty());
  EXPECT_EQ(plan.ranked.front(), "memory.coalescing");
  // The L1 hit rate of 0.878 calls for both tilings; the sector efficiency rules them out.
  EXPECT_EQ(passed(plan, "memory.tiling_smem")->reason, "skip");
  EXPECT_EQ(passed(plan, "memory.tiling_smem")->detail, "global_load_efficiency < 0.5");
  EXPECT_EQ(passed(plan, "compute.register_tiling")->reason, "skip");
  EXPECT_EQ(passed(plan, "latency.register_double_buffer")->reason, "trigger_not_met");
}

TEST(PlanBudget, ATriggeredMethodPastTheBudgetIsPassedOverAsOverBudgetAndRanked) {
  const Plan plan = plan_methods(catalog(), matvec_inputs());
  const PassedOver* warp_per_row = passed(plan, "memory.warp_per_row");
  ASSERT_NE(warp_per_row, nullptr);
  EXPECT_EQ(warp_per_row->reason, "over_budget");
  EXPECT_THAT(warp_per_row->detail, testing::HasSubstr("went to memory.coalescing"));
  EXPECT_THAT(plan.ranked, testing::Contains("memory.warp_per_row"));
  // Every method of the catalog is accounted for: chosen or passed over with a reason.
  size_t accounted = 0;
  for (const AxisPlan& axis : plan.axes) accounted += axis.chosen.size() + axis.passed_over.size();
  EXPECT_EQ(accounted, catalog().methods.size());
}

TEST(PlanBudget, EachAxisSaysWhereItsBudgetCameFrom) {
  const RooflineEvidence r = memory_bound();
  EXPECT_EQ(axis_budget_note(Axis::compute, r, 0), "0: its gap of 5 % is under 10 %");
  EXPECT_EQ(axis_budget_note(Axis::memory, r, 1), "1 of the 3, for its gap of 30 % against the other axes'; 1 borrowed from budget other axes left unspent");
  EXPECT_THAT(axis_budget_note(Axis::memory, r, 0), testing::HasSubstr("may borrow unspent budget (bound: memory)"));
  EXPECT_THAT(over_budget_detail(Axis::compute, 0, 0, {}, "memory"),
              testing::HasSubstr("the compute axis has no budget and only the memory axis borrows"));
}

TEST(PlanBudget, TheValidatorNamesTheClaimThatBrokeTheBudgetAndWhoBorrowed) {
  // Issue 23: compute and memory both bind; a compute claim used the borrowed budget, and the
  // message named the memory axis with "the budget allows 0". Now it names the claim.
  RooflineEvidence r = memory_bound({0, 1, 1});
  r.bound = "compute_and_memory";
  const std::vector<BudgetBreach> breaches =
      budget_breaches({std::vector<std::string>{}, {"memory.coalescing", "memory.vectorized_access", "memory.warp_per_row"},
                       {}},
                      r);
  ASSERT_EQ(breaches.size(), 1u);
  EXPECT_EQ(breaches[0].id, "memory.warp_per_row");
  EXPECT_THAT(breaches[0].message, testing::HasSubstr("taken by memory.coalescing, memory.vectorized_access"));
  EXPECT_THAT(breaches[0].message, testing::HasSubstr("(memory.vectorized_access borrowed it)"));
  // A non-binding axis cannot borrow: the message says which axis may.
  const std::vector<BudgetBreach> latency =
      budget_breaches({std::vector<std::string>{}, {}, {"latency.occupancy", "latency.block_size"}}, r);
  ASSERT_EQ(latency.size(), 1u);
  EXPECT_EQ(latency[0].id, "latency.block_size");
  EXPECT_THAT(latency[0].message, testing::HasSubstr("only the memory and compute axis may borrow"));
}

TEST(PlanBudget, TheValidatorAcceptsBorrowingByTheBindingAxis) {
  PlanInputs inputs = matvec_inputs();
  inputs.roofline.budget.methods = {0, 1, 1};
  EXPECT_TRUE(validate_methods(catalog(), {"memory.coalescing", "memory.warp_per_row"}, inputs).empty());
  const std::vector<Violation> violations =
      validate_methods(catalog(), {"memory.coalescing", "memory.warp_per_row", "memory.readonly_cache"}, inputs);
  ASSERT_EQ(violations.size(), 1u);
  EXPECT_EQ(violations[0].rule, "budget");
  EXPECT_EQ(violations[0].id, "memory.readonly_cache");
}

}  // namespace
}  // namespace kopt::catalog
