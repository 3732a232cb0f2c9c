// Issue 58's champion: a tiled convolution that is issue-bound (the scheduler always had a
// ready warp to issue: stall_not_selected 0.485, issue slots 82.5 % busy, 16 % of its
// instructions not FFMA), whose only tail "reading" was the lock-step wave formula. The plan
// must name a method that acts on the issue slots, and no tail method without a measured tail.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/catalog/method_catalog.hpp"
#include "kopt/catalog/methods_validator.hpp"
#include "kopt/catalog/planner.hpp"

namespace kopt::catalog {
namespace {

const MethodCatalog& issue_catalog() {
  static const MethodCatalog loaded = load_method_catalog();
  return loaded;
}

// The champion's readings (issue 58), on an H100, FP32 with exact FP32 required.
PlanInputs issue_bound_champion(double tail_idle_share) {
  PlanInputs inputs;
  inputs.profile.arch = "sm_90";
  inputs.profile.concepts = {{"stall_not_selected", 0.485},
                             {"stall_long_scoreboard", 0.02},
                             {"stall_short_scoreboard", 0.05},
                             {"stall_barrier", 0.04},
                             {"stall_math_pipe_throttle", 0.05},
                             {"issue_active", 0.825},
                             {"ffma_instruction_share", 0.84},
                             {"fp32_pipe", 0.7},
                             {"sm_throughput", 0.77},
                             {"ipc", 3.3},
                             {"tensor_pipe", 0.0},
                             {"thread_efficiency", 0.99},
                             {"l1_hit_rate", 0.9},
                             {"achieved_occupancy", 0.45},
                             {"theoretical_occupancy", 0.5},
                             {"waves_per_sm", 1.6},
                             {"tail_idle_share", tail_idle_share}};
  RooflineEvidence& r = inputs.roofline;
  r.bound = "compute";
  r.arithmetic_intensity = 60;
  r.ridge_point = 14;
  r.compute_utilization = 0.67;
  r.gaps = {.compute = 0.33, .memory = 0.95, .latency = 0.11};
  r.budget.methods = {2, 0, 1};
  inputs.arch = 90;
  inputs.fp32_exact = true;
  inputs.dtype = "fp32";
  return inputs;
}

const Chosen* chosen_method(const Plan& plan, std::string_view id) {
  for (const AxisPlan& axis : plan.axes) {
    for (const Chosen& c : axis.chosen) {
      if (c.id == id) return &c;
    }
  }
  return nullptr;
}

const PassedOver* passed_method(const Plan& plan, std::string_view id) {
  for (const AxisPlan& axis : plan.axes) {
    for (const PassedOver& p : axis.passed_over) {
      if (p.id == id) return &p;
    }
  }
  return nullptr;
}

TEST(IssueBound, TheChampionsPlanNamesAMethodThatActsOnTheIssueSlots) {
  const Plan plan = plan_methods(issue_catalog(), issue_bound_champion(0.03));
  const Chosen* overhead = chosen_method(plan, "compute.instruction_overhead");
  ASSERT_NE(overhead, nullptr) << testing::PrintToString(plan.ranked);
  EXPECT_EQ(overhead->signature, "fma_dense");
  EXPECT_DOUBLE_EQ(std::get<double>(overhead->values.at("ffma_instruction_share")), 0.84);
  EXPECT_EQ(plan.ranked.front(), "compute.instruction_overhead");
}

TEST(IssueBound, AKernelThatIssuesOnlyFfmaIsNotSentToCutInstructions) {
  // The FMA pipe itself is the limit: nothing left to cut (the planner set's tail_wave kernel
  // reads 0.947).
  PlanInputs inputs = issue_bound_champion(0.03);
  inputs.profile.concepts["ffma_instruction_share"] = 0.97;
  const Plan plan = plan_methods(issue_catalog(), inputs);
  EXPECT_EQ(chosen_method(plan, "compute.instruction_overhead"), nullptr);
  EXPECT_EQ(passed_method(plan, "compute.instruction_overhead")->reason, "trigger_not_met");
}

TEST(IssueBound, NoStreamKWithoutAMeasuredTail) {
  // 1.6 waves: the lock-step formula said (2 - 1.6) / 2 = 20 % idle and proposed stream-K. The
  // measured spread of per-SM active cycles says 3 %.
  const Plan plan = plan_methods(issue_catalog(), issue_bound_champion(0.03));
  EXPECT_EQ(chosen_method(plan, "compute.stream_k"), nullptr);
  EXPECT_EQ(passed_method(plan, "compute.stream_k")->reason, "trigger_not_met");
  EXPECT_DOUBLE_EQ(std::get<double>(passed_method(plan, "compute.stream_k")->values.at("tail_idle_share")), 0.03);
  // The same kernel with a measured 30 % tail: stream-K is called for.
  const Plan tailed = plan_methods(issue_catalog(), issue_bound_champion(0.3));
  EXPECT_TRUE(chosen_method(tailed, "compute.stream_k") != nullptr ||
              passed_method(tailed, "compute.stream_k")->reason == "over_budget");
}

TEST(IssueBound, WithoutTheSpreadTheTailIsUnknownNotAssumed) {
  PlanInputs inputs = issue_bound_champion(0.0);
  inputs.profile.concepts["tail_idle_share"] = std::nullopt;
  const Plan plan = plan_methods(issue_catalog(), inputs);
  const PassedOver* stream_k = passed_method(plan, "compute.stream_k");
  ASSERT_NE(stream_k, nullptr);
  EXPECT_EQ(stream_k->reason, "missing_metrics");
  EXPECT_THAT(stream_k->missing, testing::Contains("tail_idle_share"));
}

TEST(IssueBound, BudgetSlotsGoByTheEvidenceNotByTheOrderOfTheClaims) {
  // One compute slot and two claims: the one whose trigger the profile meets gets it, wherever
  // it is listed. compute.loop_unrolling's trigger (branch-resolution or instruction-fetch
  // stalls) is false for this kernel.
  PlanInputs inputs = issue_bound_champion(0.03);
  inputs.profile.concepts["stall_branch_resolving"] = 0.01;
  inputs.profile.concepts["stall_no_instruction"] = 0.02;
  inputs.roofline.budget.methods = {1, 0, 0};
  inputs.roofline.gaps.latency = 0.05;
  for (const std::vector<std::string>& claims :
       {std::vector<std::string>{"compute.loop_unrolling", "compute.instruction_overhead"},
        std::vector<std::string>{"compute.instruction_overhead", "compute.loop_unrolling"}}) {
    const std::vector<Violation> violations = validate_methods(issue_catalog(), claims, inputs);
    ASSERT_EQ(violations.size(), 1u) << claims.front();
    EXPECT_EQ(violations[0].rule, "budget");
    EXPECT_EQ(violations[0].id, "compute.loop_unrolling") << "listed first: " << claims.front();
    EXPECT_THAT(violations[0].message, testing::HasSubstr("taken by compute.instruction_overhead"));
  }
}

}  // namespace
}  // namespace kopt::catalog
