#include "kopt/catalog/planner.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "kopt/catalog/methods_validator.hpp"
#include "kopt/catalog/trigger.hpp"
#include "kopt/core/files.hpp"
#include "planner_test_support.hpp"

namespace kopt::catalog {
namespace {

using roofline::Axis;

// The evidence of a captured H200 report (planner_test_support.hpp).
PlanInputs h200_inputs(const std::string& kernel) {
  return h200_plan_inputs(std::string(KOPT_FIXTURES_DIR) + "/ncu/ncu2025.3.1_h200_sm90_raw_" + kernel + ".csv");
}

std::vector<std::string> chosen_ids(const AxisPlan& axis) {
  std::vector<std::string> ids;
  for (const Chosen& c : axis.chosen) ids.push_back(c.id);
  return ids;
}

const PassedOver* passed(const AxisPlan& axis, std::string_view id) {
  for (const PassedOver& p : axis.passed_over) {
    if (p.id == id) return &p;
  }
  return nullptr;
}

const MethodCatalog& catalog() {
  static const MethodCatalog loaded = load_method_catalog();
  return loaded;
}

TEST(Planner, NaiveSgemmGetsSharedMemoryAndRegisterTilingNotTensorCores) {
  const PlanInputs inputs = h200_inputs("sgemm_naive");
  // L1 at 96 %: memory-bound with a 4 % memory gap, so the roofline gives memory no budget;
  // the latency methods are ruled out (a saturated memory pipe) and their budget moves there.
  EXPECT_EQ(inputs.roofline.bound, "memory");
  EXPECT_EQ(inputs.roofline.budget.methods, (std::array<int, 3>{1, 0, 2}));
  const Plan plan = plan_methods(catalog(), inputs);
  const AxisPlan& compute = plan.axes[static_cast<size_t>(Axis::compute)];
  const AxisPlan& memory = plan.axes[static_cast<size_t>(Axis::memory)];
  const AxisPlan& latency = plan.axes[static_cast<size_t>(Axis::latency)];
  EXPECT_THAT(chosen_ids(compute), testing::ElementsAre("compute.register_tiling"));
  EXPECT_THAT(chosen_ids(memory), testing::Contains("memory.tiling_smem"));
  EXPECT_TRUE(chosen_ids(latency).empty());
  for (const char* tensor : {"compute.tensor_core_wgmma", "compute.tensor_core_mma_sync", "compute.tensor_core_tf32"}) {
    const PassedOver* p = passed(compute, tensor);
    ASSERT_NE(p, nullptr) << tensor;
    EXPECT_EQ(p->reason, "skip") << tensor;
  }
  EXPECT_EQ(passed(compute, "compute.tensor_core_tf32")->detail, "spec.fp32_exact");
  EXPECT_EQ(passed(latency, "latency.ilp_multiple_elements")->reason, "skip");
  EXPECT_NEAR(std::get<double>(compute.chosen[0].values.at("fp32_pipe")), 0.10, 0.01);
}

TEST(Planner, WithoutExactFp32TheSgemmIsOfferedTf32TensorCores) {
  PlanInputs inputs = h200_inputs("sgemm_naive");
  inputs.fp32_exact = false;
  const Plan plan = plan_methods(catalog(), inputs);
  EXPECT_THAT(chosen_ids(plan.axes[0]), testing::ElementsAre("compute.tensor_core_wgmma"));
  inputs.arch = 80;  // no wgmma on sm_80: the TF32 mma.sync path
  EXPECT_THAT(chosen_ids(plan_methods(catalog(), inputs).axes[0]), testing::ElementsAre("compute.tensor_core_tf32"));
}

TEST(Planner, VectorAddGetsNoComputeMethodAndItsDistanceToTheMemoryCeiling) {
  const PlanInputs inputs = h200_inputs("vector_add");
  const Plan plan = plan_methods(catalog(), inputs);
  EXPECT_EQ(plan.bound, "memory");
  EXPECT_TRUE(plan.axes[static_cast<size_t>(Axis::compute)].chosen.empty());
  EXPECT_THAT(chosen_ids(plan.axes[static_cast<size_t>(Axis::memory)]), testing::Contains("memory.vectorized_access"));
  // h200_inputs holds the kernel against the datasheet's 4.8 TB/s, and the sentence says so.
  EXPECT_THAT(plan.ceiling, testing::HasSubstr("memory-bound at 70 % of the nearest memory ceiling (30 % headroom): "));
  EXPECT_THAT(plan.ceiling, testing::HasSubstr("of the ceiling (from the datasheet)"));
  EXPECT_THAT(plan.ceiling, testing::Not(testing::HasSubstr("measured")));
}

TEST(Planner, TheCeilingSentenceFollowsEachCeilingsSource) {
  PlanInputs inputs = h200_inputs("vector_add");
  inputs.roofline.sources.bytes_peak = roofline::PeaksSource::measured;
  EXPECT_THAT(plan_methods(catalog(), inputs).ceiling,
              testing::HasSubstr("DRAM byte rate 70 % of the ceiling (measured by kopt doctor --peaks)"));
  // Issue 58's convolution: 42.8 of 63.8 TFLOP/s is 67 %, Nsight's SM throughput 77 %; the
  // utilization is the larger, and the sentence names both, the one that gave it first.
  inputs.roofline.bound = "compute";
  inputs.roofline.compute_utilization = 0.77;
  inputs.roofline.readings = {.flop_ratio = 0.67, .sm_throughput = 0.77, .throughputs_known = true};
  EXPECT_EQ(plan_methods(catalog(), inputs).ceiling,
            "compute-bound at 77 % of the nearest compute ceiling: Nsight Compute's SM throughput (its busiest pipe) "
            "77 %; FLOP rate 67 % of the ceiling (from the datasheet).");
  inputs.roofline.sources.flop_peak = roofline::PeaksSource::measured;
  inputs.roofline.readings.sm_throughput = 0.5;
  inputs.roofline.compute_utilization = 0.67;
  EXPECT_EQ(plan_methods(catalog(), inputs).ceiling,
            "compute-bound at 67 % of the nearest compute ceiling: FLOP rate 67 % of the ceiling (measured by kopt "
            "doctor --peaks); Nsight Compute's SM throughput (its busiest pipe) 50 %.");
}

TEST(Planner, SkipsWhatWasTriedAndWhatConflictsWithAKeptMethod) {
  PlanInputs inputs = h200_inputs("sgemm_naive");
  inputs.history = {{"memory.tiling_smem", "effective", 1}, {"compute.register_tiling", "implementation_failed", 1}};
  const Plan plan = plan_methods(catalog(), inputs);
  EXPECT_EQ(passed(plan.axes[1], "memory.tiling_smem")->reason, "tried");
  EXPECT_EQ(passed(plan.axes[0], "compute.register_tiling")->detail, "implementation_failed in iteration 1");
  EXPECT_THAT(chosen_ids(plan.axes[1]), testing::Not(testing::Contains("memory.tiling_smem")));
}

TEST(Planner, DegradedEvidenceUsesNoCounters) {
  PlanInputs inputs = h200_inputs("sgemm_naive");
  inputs.profile.degraded = true;
  const Plan plan = plan_methods(catalog(), inputs);
  EXPECT_TRUE(plan.degraded_evidence);
  // Every value a trigger or skip condition read is a roofline or spec fact, never one of the
  // profile's counters, though the profile still holds them all.
  ASSERT_TRUE(inputs.profile.concepts.contains("fp32_pipe"));
  int values_read = 0;
  auto expect_no_counter = [&](const std::map<std::string, FactValue>& values, const std::string& id) {
    for (const auto& [name, value] : values) {
      ++values_read;
      EXPECT_FALSE(inputs.profile.concepts.contains(name)) << id << " read the counter " << name;
    }
  };
  for (const AxisPlan& axis : plan.axes) {
    for (const Chosen& c : axis.chosen) expect_no_counter(c.values, c.id);
    for (const PassedOver& p : axis.passed_over) expect_no_counter(p.values, p.id);
  }
  EXPECT_GT(values_read, 0);  // the roofline facts were read
  EXPECT_THAT(plan.note, testing::HasSubstr("no counters: only roofline facts were used"));
  const PassedOver* tiling = passed(plan.axes[1], "memory.tiling_smem");
  ASSERT_NE(tiling, nullptr);  // not chosen on counters nobody read
  EXPECT_EQ(tiling->reason, "missing_metrics");
  nlohmann::json document = plan;
  EXPECT_EQ(document["degraded_evidence"], true);
  EXPECT_EQ(document["schema"], "kopt.plan/1");
}

TEST(Planner, PassesOverAMethodThatConflictsWithOneChosenInTheSamePlan) {
  // With TF32 allowed and room for two compute methods, wgmma comes first; the TF32 mma.sync
  // path conflicts with it and is passed over, naming it, though its trigger holds.
  PlanInputs inputs = h200_inputs("sgemm_naive");
  inputs.fp32_exact = false;
  inputs.roofline.budget.methods[static_cast<size_t>(Axis::compute)] = 2;
  const Plan plan = plan_methods(catalog(), inputs);
  const AxisPlan& compute = plan.axes[static_cast<size_t>(Axis::compute)];
  EXPECT_THAT(chosen_ids(compute), testing::Contains("compute.tensor_core_wgmma"));
  EXPECT_THAT(chosen_ids(compute), testing::Not(testing::Contains("compute.tensor_core_tf32")));
  const PassedOver* tf32 = passed(compute, "compute.tensor_core_tf32");
  ASSERT_NE(tf32, nullptr);
  EXPECT_EQ(tf32->reason, "conflict");
  EXPECT_EQ(tf32->detail, "compute.tensor_core_wgmma");
}

TEST(Planner, SkipsOnlyOnASkipConditionThatHolds) {
  // Without counters the latency methods' skip conditions (memory_throughput > 0.9) cannot be
  // evaluated: unknown is no reason to skip, so every "skip" must be a condition that holds.
  PlanInputs inputs = h200_inputs("sgemm_naive");
  inputs.profile.degraded = true;
  const Facts facts = plan_facts(inputs);
  int skips = 0;
  for (const AxisPlan& axis : plan_methods(catalog(), inputs).axes) {
    for (const PassedOver& p : axis.passed_over) {
      if (p.reason != "skip") continue;
      ++skips;
      EXPECT_EQ(Condition::parse(p.detail).evaluate(facts).truth, Truth::yes) << p.id << " skipped on " << p.detail;
    }
  }
  EXPECT_GT(skips, 0);  // the tensor-core methods, on spec.fp32_exact
}

TEST(MethodsValidator, NamesEachViolation) {
  const PlanInputs inputs = h200_inputs("sgemm_naive");
  const std::vector<Violation> violations = validate_methods(
      catalog(),
      {"memory.tiling_smem", "compute.tensor_core_tf32", "memory.no_such", "memory.smem_padding", "memory.smem_swizzle",
       "memory.tiling_smem"},
      inputs);
  std::vector<std::string> rules;
  for (const Violation& v : violations) rules.push_back(v.rule + " " + v.id);
  EXPECT_THAT(rules, testing::UnorderedElementsAre("skip compute.tensor_core_tf32", "unknown_id memory.no_such",
                                                   "conflict memory.smem_swizzle", "duplicate memory.tiling_smem",
                                                   "budget memory.smem_swizzle"));
}

TEST(MethodsValidator, ThePlannersOwnChoiceIsValid) {
  PlanInputs inputs = h200_inputs("sgemm_naive");
  const Plan plan = plan_methods(catalog(), inputs);
  std::vector<std::string> ids;
  for (const AxisPlan& axis : plan.axes) {
    for (const Chosen& c : axis.chosen) ids.push_back(c.id);
  }
  EXPECT_TRUE(validate_methods(catalog(), ids, inputs).empty());
  inputs.arch = 80;
  EXPECT_EQ(validate_methods(catalog(), {"memory.tma_load"}, inputs).at(0).rule, "arch");
}

}  // namespace
}  // namespace kopt::catalog
