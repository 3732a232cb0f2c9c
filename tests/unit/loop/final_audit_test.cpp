#include "kopt/loop/final_audit.hpp"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/core/files.hpp"
#include "kopt/loop/simulated_lab.hpp"
#include "kopt/report/run_summary.hpp"
#include "loop_fixtures.hpp"

namespace kopt::loop {
namespace {
namespace fs = std::filesystem;
using json = nlohmann::json;
using ::testing::HasSubstr;


TEST(PairedRatio, PairsSamplesOfTheSameRound) {
  // Round-to-round drift that both variants share cancels in the paired ratio: each round the
  // champion takes 0.8 of the baseline, however slow the round.
  const std::vector<double> baseline = {1.0, 2.0, 1.5, 3.0, 1.2, 2.5, 1.1, 2.2, 1.9, 1.4};
  std::vector<double> champion;
  for (double b : baseline) champion.push_back(0.8 * b);
  const PairedRatio p = paired_ratio({.baseline = baseline, .champion = champion}, 0.01);
  EXPECT_EQ(p.rounds, 10u);
  EXPECT_EQ(p.rounds_faster, 10u);
  EXPECT_DOUBLE_EQ(p.median_ratio, 0.8);
  EXPECT_DOUBLE_EQ(p.low, 0.8);
  EXPECT_DOUBLE_EQ(p.high, 0.8);
  EXPECT_EQ(p.verdict, "faster");
}

TEST(PairedRatio, CallsNoiseAroundOneSameOrAmbiguousAndAFewRoundsAmbiguous) {
  const std::vector<double> baseline(20, 1.0);
  std::vector<double> champion;
  for (int i = 0; i < 20; ++i) champion.push_back(i % 2 ? 1.002 : 0.998);
  EXPECT_EQ(paired_ratio({.baseline = baseline, .champion = champion}, 0.01).verdict, "same");
  const std::vector<double> few_b = {1, 1, 1}, few_c = {0.5, 0.5, 0.5};
  EXPECT_EQ(paired_ratio({.baseline = few_b, .champion = few_c}, 0.01).verdict, "ambiguous");  // under 5 rounds
  const std::vector<double> slower(20, 1.3);
  EXPECT_EQ(paired_ratio({.baseline = baseline, .champion = slower}, 0.01).verdict, "slower");
}

TEST(PairedRatio, TheTimersTickWidensTheInterval) {
  const std::vector<double> baseline(10, 10.0), champion(10, 8.0);
  const PairedRatio p = paired_ratio({.baseline = baseline, .champion = champion, .baseline_resolution = 1,
                                      .champion_resolution = 1}, 0.01);
  EXPECT_LT(p.low, 0.8);
  EXPECT_GT(p.high, 0.8);
}

class FinalAudit : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::make_unique<TempDir>("audit-test");
    run_ = std::make_unique<RunFolder>(dir_->path() / "run");
  }
  LabForCase counting_labs() {
    return [this](const std::string& case_name) {
      cases_.push_back(case_name);
      return std::make_unique<SimulatedLab>(kModel);
    };
  }
  std::unique_ptr<TempDir> dir_;
  std::unique_ptr<RunFolder> run_;
  std::vector<std::string> cases_;
};

void advance_one_iteration(Lab& lab, const RunFolder& run) {
  write_file_atomic(run.branches(1) / "b1" / "variant.json",
                    json{{"defines", {{"BM", "128"}, {"BN", "128"}, {"TM", "8"}, {"TN", "8"}}}}.dump());
  write_file_atomic(run.iteration(1) / "methods.json", R"({"methods": []})");
  close_iteration(lab, run);
}

TEST_F(FinalAudit, TimesTheChampionAgainstTheBaselineOnEveryCaseAndTheSummaryQuotesIt) {
  SimulatedLab lab(kModel);
  init_run(lab, {.kernel = kKernel, .settings = {.iterations = 1}, .run_dir = run_->root()});
  advance_one_iteration(lab, *run_);
  const json audit = final_audit(*run_, counting_labs());
  // sgemm_tiled's spec: [dims] and five [[cases]].
  EXPECT_EQ(cases_.size(), 6u);
  EXPECT_EQ(audit["schema"], "kopt.audit/1");
  EXPECT_EQ(audit["verdict"], "faster");
  ASSERT_EQ(audit["cases"].size(), 6u);
  const json& first = audit["cases"][0];
  EXPECT_EQ(first["case"], audit["timed_case"]);
  EXPECT_EQ(first["rounds"], 40);  // the model's sample count, paired
  EXPECT_GT(first["speedup"].get<double>(), 5.0);
  EXPECT_LE(first["speedup_ci"][0].get<double>(), first["speedup"].get<double>());
  EXPECT_EQ(first["measurement"]["variants"].size(), 2u);
  EXPECT_TRUE(fs::exists(run_->root() / "audit.json"));

  const json summary = report::run_summary(*run_);
  ASSERT_FALSE(summary["audit"].is_null());
  EXPECT_FALSE(summary["audit"]["timed"].contains("measurement"));
  const std::string md = report::format_run_summary(summary);
  EXPECT_THAT(md, HasSubstr(fmt::format("**Final audit: {:.3f}× the baseline's speed", first["speedup"].get<double>())));
  EXPECT_THAT(md, HasSubstr("faster on 6 of 6 cases"));
  EXPECT_THAT(md, HasSubstr("Medians of separate measurements"));

  // Run again on the same best: nothing is measured again.
  cases_.clear();
  EXPECT_EQ(final_audit(*run_, counting_labs()), audit);
  EXPECT_TRUE(cases_.empty());
}

// A champion faster where the work is large and the same on tiny cases (the launch's time) is
// faster_or_same over all, not ambiguous: no case's interval straddles the threshold.
TEST_F(FinalAudit, FasterOnSomeCasesAndTheSameOnTheRestIsFasterOrSame) {
  SimulatedLab lab(kModel);
  init_run(lab, {.kernel = kKernel, .settings = {.iterations = 1}, .run_dir = run_->root()});
  advance_one_iteration(lab, *run_);
  json flat = read_json(kModel);
  flat["factors"] = json::object();  // every variant takes the base time: champion and baseline alike
  flat["evidence"] = (fs::path(kModel).parent_path() / flat.at("evidence").get<std::string>()).string();
  const fs::path flat_model = dir_->path() / "flat_model.json";
  write_json(flat_model, flat);
  const std::vector<std::string> names = run_case_names(run_->load());
  const json audit = final_audit(*run_, [&](const std::string& name) {
    return std::make_unique<SimulatedLab>(name == names.front() ? fs::path(kModel) : flat_model);
  });
  EXPECT_EQ(audit["cases"][0]["verdict"], "faster");
  EXPECT_EQ(audit["cases"][1]["verdict"], "same");
  EXPECT_EQ(audit["verdict"], "faster_or_same");
  EXPECT_THAT(report::format_run_summary(report::run_summary(*run_)),
              HasSubstr("faster on 1 of 6 cases, the same on 5, verdict over all: faster_or_same."));
}

// A lab that times every case in one measurement (as GpuLab does): the simulated lab's answer
// for each case, joined into one detail whose variants name their cases.
class EveryCaseLab final : public Lab {
 public:
  EveryCaseLab(std::vector<std::string> cases, int& measurements) : cases_(std::move(cases)), measurements_(measurements) {}
  json environment() override { return inner_.environment(); }
  Measurement measure(const MeasureRequest& request) override {
    ++measurements_;
    if (!request.every_case) return inner_.measure(request);
    Measurement joined;
    for (const std::string& name : cases_) {
      Measurement one = inner_.measure(request);
      for (json& v : one.detail["variants"]) v["case"] = name;
      if (joined.detail.is_null()) {
        joined = one;
      } else {
        for (const json& v : one.detail["variants"]) joined.detail["variants"].push_back(v);
      }
    }
    return joined;
  }
  Measurement first_look(const MeasureRequest& request) override { return inner_.first_look(request); }
  Evidence profile(const Variant& variant, const fs::path& dir) override { return inner_.profile(variant, dir); }
  std::vector<MethodSass> sass(const Variant& variant, const std::vector<std::string>& methods) override {
    return inner_.sass(variant, methods);
  }
  bool measures_every_case() const override { return true; }

 private:
  SimulatedLab inner_{kModel};
  std::vector<std::string> cases_;
  int& measurements_;
};

// Each variant's check runs every case, so a measurement per case checked each variant once per
// case (a Triton variant: ~10 s a check, ~55 s a case on an H100): a lab that times every case
// at once is asked once, and each case's row holds only that case's samples.
TEST_F(FinalAudit, ALabThatTimesEveryCaseAtOnceIsAskedOnce) {
  SimulatedLab lab(kModel);
  init_run(lab, {.kernel = kKernel, .settings = {.iterations = 1}, .run_dir = run_->root()});
  advance_one_iteration(lab, *run_);
  const std::vector<std::string> names = run_case_names(run_->load());
  int measurements = 0;
  std::vector<std::string> labs_made;
  const json audit = final_audit(*run_, [&](const std::string& name) {
    labs_made.push_back(name);
    return std::make_unique<EveryCaseLab>(names, measurements);
  });
  EXPECT_EQ(measurements, 1);
  EXPECT_EQ(labs_made, std::vector<std::string>{audit["timed_case"].get<std::string>()});
  ASSERT_EQ(audit["cases"].size(), names.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    const json& row = audit["cases"][i];
    EXPECT_EQ(row["case"], names[i]);
    EXPECT_EQ(row["verdict"], "faster");
    ASSERT_EQ(row["measurement"]["variants"].size(), 2u) << "only this case's baseline and champion";
    for (const json& v : row["measurement"]["variants"]) EXPECT_EQ(v["case"], names[i]);
    EXPECT_DOUBLE_EQ(row["baseline_median_s"].get<double>(),
                     row["measurement"]["variants"][0]["summary"]["median"].get<double>());
  }
  EXPECT_EQ(audit["verdict"], "faster");
}

TEST_F(FinalAudit, ARunWithoutAChampionHasNothingToAuditAndAnUnauditedSummarySaysSo) {
  SimulatedLab lab(kModel);
  init_run(lab, {.kernel = kKernel, .settings = {.iterations = 1}, .run_dir = run_->root()});
  EXPECT_THAT(report::format_run_summary(report::run_summary(*run_)), HasSubstr("not audited"));
  const json audit = final_audit(*run_, counting_labs());
  EXPECT_EQ(audit["verdict"], "no_champion");
  EXPECT_TRUE(cases_.empty());
  EXPECT_THAT(report::format_run_summary(report::run_summary(*run_)), HasSubstr("**Final audit: no_champion**"));
}

}  // namespace
}  // namespace kopt::loop
