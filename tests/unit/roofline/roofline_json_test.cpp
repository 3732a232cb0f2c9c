#include "kopt/roofline/roofline_json.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "kopt/core/error.hpp"

namespace kopt::roofline {
namespace {

// The vector add on the H200: 3.36 TB/s of 4.8, hardly any FLOPs.
RooflineInputs vector_add_inputs() {
  return RooflineInputs{.achieved_flop_per_second = 0.84e12,
                        .achieved_bytes_per_second = 3.36e12,
                        .peak_flop_per_second = 67e12,
                        .peak_bytes_per_second = 4.8e12,
                        .sm_throughput = 0.41,
                        .memory_throughput = 0.92,
                        .largest_stall_share = 0.3,
                        .waves_per_sm = 248};
}

nlohmann::json vector_add_json() {
  const RooflineInputs inputs = vector_add_inputs();
  const RooflinePoint point = place_on_roofline(inputs);
  return roofline_json(inputs, point, split_axis_budget(point.gaps), false, std::nullopt,
                       RooflineSources{.flop_peak = PeaksSource::datasheet, .bytes_peak = PeaksSource::measured,
                                       .achieved = AchievedSource::ncu});
}

TEST(RooflineJson, WritesExactlyTheSchemasKeys) {
  const nlohmann::json json = vector_add_json();
  std::vector<std::string> keys;
  for (const auto& [key, value] : json.items()) keys.push_back(key);
  EXPECT_THAT(keys, testing::UnorderedElementsAre("schema", "degraded", "reason", "arithmetic_intensity", "ridge_point",
                                                  "compute_utilization", "memory_utilization", "gaps", "bound",
                                                  "high_throughput", "near_peak", "budget", "peaks", "achieved",
                                                  "readings"));
  // Each utilization's two readings, named, and which gave it (the FLOP ratio is not the SM throughput).
  EXPECT_EQ(json.at("readings").at("memory").at("from"), "memory_throughput");
  EXPECT_DOUBLE_EQ(json.at("readings").at("memory").at("memory_throughput").get<double>(), 0.92);
  EXPECT_DOUBLE_EQ(json.at("readings").at("memory").at("dram_bytes_ratio").get<double>(), 3.36e12 / 4.8e12);
  EXPECT_EQ(read_roofline_json(json).point.sm_throughput, place_on_roofline(vector_add_inputs()).sm_throughput);
  EXPECT_EQ(json.at("schema"), "kopt.roofline/1");
  EXPECT_EQ(json.at("degraded"), false);
  EXPECT_TRUE(json.at("reason").is_null());
  EXPECT_DOUBLE_EQ(json.at("arithmetic_intensity").get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(json.at("ridge_point").get<double>(), 67e12 / 4.8e12);
  EXPECT_DOUBLE_EQ(json.at("memory_utilization").get<double>(), 0.92);
  EXPECT_DOUBLE_EQ(json.at("gaps").at("memory").get<double>(), 1 - 0.92);
  EXPECT_EQ(json.at("bound"), "memory");
  EXPECT_EQ(json.at("high_throughput"), true);
  EXPECT_EQ(json.at("near_peak"), false);
  EXPECT_EQ(json.at("budget"), (nlohmann::json{{"compute", 2}, {"memory", 0}, {"latency", 1}}));
  EXPECT_EQ(json.at("peaks"), (nlohmann::json{{"flop_per_second", 67e12}, {"flop_source", "datasheet"},
                                              {"bytes_per_second", 4.8e12}, {"bytes_source", "measured"}}));
  EXPECT_EQ(json.at("achieved").at("source"), "ncu");
}

TEST(RooflineJson, ReadsBackWhatItWrote) {
  const RooflineInputs inputs = vector_add_inputs();
  const RooflinePoint point = place_on_roofline(inputs);
  const AxisBudget budget = split_axis_budget(point.gaps);
  const nlohmann::json written =
      roofline_json(inputs, point, budget, true, "no counters: ncu is not allowed to read them",
                    RooflineSources{.flop_peak = PeaksSource::measured, .bytes_peak = PeaksSource::datasheet,
                                    .achieved = AchievedSource::work_formulas});
  const RooflineDocument read = read_roofline_json(nlohmann::json::parse(written.dump()));
  EXPECT_TRUE(read.degraded);
  EXPECT_EQ(read.reason, "no counters: ncu is not allowed to read them");
  EXPECT_EQ(read.point.arithmetic_intensity, point.arithmetic_intensity);
  EXPECT_EQ(read.point.ridge_point, point.ridge_point);
  EXPECT_EQ(read.point.compute_utilization, point.compute_utilization);
  EXPECT_EQ(read.point.memory_utilization, point.memory_utilization);
  EXPECT_EQ(read.point.gaps.compute, point.gaps.compute);
  EXPECT_EQ(read.point.gaps.memory, point.gaps.memory);
  EXPECT_EQ(read.point.gaps.latency, point.gaps.latency);
  EXPECT_EQ(read.point.bound, point.bound);
  EXPECT_EQ(read.point.high_throughput, point.high_throughput);
  EXPECT_EQ(read.point.near_peak, point.near_peak);
  EXPECT_EQ(read.budget.methods, budget.methods);
  EXPECT_EQ(read.inputs.peak_flop_per_second, inputs.peak_flop_per_second);
  EXPECT_EQ(read.inputs.peak_bytes_per_second, inputs.peak_bytes_per_second);
  EXPECT_EQ(read.inputs.achieved_flop_per_second, inputs.achieved_flop_per_second);
  EXPECT_EQ(read.inputs.achieved_bytes_per_second, inputs.achieved_bytes_per_second);
  EXPECT_EQ(read.sources.flop_peak, PeaksSource::measured);
  EXPECT_EQ(read.sources.bytes_peak, PeaksSource::datasheet);
  EXPECT_EQ(read.sources.achieved, AchievedSource::work_formulas);
  // And once more through nlohmann's adapters: the same document.
  EXPECT_EQ(nlohmann::json(written.get<RooflineDocument>()), written);
}

TEST(RooflineJson, AnUnknownIntensityIsNullBothWays) {
  RooflineInputs inputs = vector_add_inputs();
  inputs.achieved_bytes_per_second = 0;
  const RooflinePoint point = place_on_roofline(inputs);
  const nlohmann::json json = roofline_json(inputs, point, split_axis_budget(point.gaps), false, std::nullopt, {});
  EXPECT_TRUE(json.at("arithmetic_intensity").is_null());
  EXPECT_FALSE(read_roofline_json(json).point.arithmetic_intensity.has_value());
}

TEST(RooflineJson, RejectsAnotherSchemaAMissingFieldOrAnUnknownName) {
  nlohmann::json json = vector_add_json();
  json["schema"] = "kopt.roofline/2";
  EXPECT_THAT([&] { read_roofline_json(json); }, testing::ThrowsMessage<Error>(testing::HasSubstr("kopt.roofline/2")));
  json = vector_add_json();
  json.erase("gaps");
  EXPECT_THAT([&] { read_roofline_json(json); }, testing::ThrowsMessage<Error>(testing::HasSubstr("roofline.json")));
  json = vector_add_json();
  json["bound"] = "io";
  EXPECT_THAT([&] { read_roofline_json(json); }, testing::ThrowsMessage<Error>(testing::HasSubstr("'bound' = 'io'")));
  json = vector_add_json();
  json["peaks"]["bytes_source"] = "guessed";
  EXPECT_THAT([&] { read_roofline_json(json); },
              testing::ThrowsMessage<Error>(testing::HasSubstr("'peaks.bytes_source' = 'guessed'")));
}

TEST(RooflineJson, AFileWithOneSourceForBothCeilingsReadsItForEach) {
  // roofline.json written before each ceiling had its own source (tests/fixtures/evidence/).
  nlohmann::json json = vector_add_json();
  json["peaks"] = {{"flop_per_second", 67e12}, {"bytes_per_second", 4.8e12}, {"source", "measured"}};
  const RooflineDocument read = read_roofline_json(json);
  EXPECT_EQ(read.sources.flop_peak, PeaksSource::measured);
  EXPECT_EQ(read.sources.bytes_peak, PeaksSource::measured);
}

}  // namespace
}  // namespace kopt::roofline
