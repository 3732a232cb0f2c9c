// The loop as an agent drives it (issue 23): harmful methods switched off, methods claimed
// again with what changed, per-branch methods and labels, a run that moves to another GPU or
// another folder, and rewritten kernel.cu branches rehearsed on the simulated lab.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "kopt/catalog/method_catalog.hpp"
#include "kopt/catalog/plan_step.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/loop/final_audit.hpp"
#include "kopt/loop/run_loop.hpp"
#include "kopt/loop/simulated_lab.hpp"
#include "kopt/report/run_summary.hpp"
#include "loop_fixtures.hpp"

namespace kopt::loop {
namespace {
namespace fs = std::filesystem;
using json = nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

const fs::path kFixtureModel = fs::path(KOPT_FIXTURES_DIR) / "loop" / "sgemm_tiled_model.json";

class AgentRun : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = std::make_unique<TempDir>("agent-run"); }
  fs::path path(const std::string& name) const { return dir_->path() / name; }

  // The fixture's model with `change` applied, written beside the run (its evidence folder
  // made absolute, so the copy still finds it).
  fs::path model(const std::string& name, const std::function<void(json&)>& change) const {
    json m = json::parse(read_file(kFixtureModel));
    m["evidence"] = (kFixtureModel.parent_path() / m["evidence"].get<std::string>()).lexically_normal().string();
    change(m);
    write_file_atomic(path(name), m.dump());
    return path(name);
  }

  RunFolder start(Lab& lab, const fs::path& kernel = kKernel, const std::string& run = "run", int iterations = 3) {
    init_run(lab, {.kernel = kernel, .settings = {.iterations = iterations, .branches = 2}, .run_dir = path(run)});
    return RunFolder(path(run));
  }

  std::unique_ptr<TempDir> dir_;
};

void write_variant(const RunFolder& run, int i, const std::string& name, const json& defines) {
  write_file_atomic(run.branches(i) / name / "variant.json", json{{"defines", defines}}.dump());
}

void write_methods(const fs::path& file, const json& methods) { write_file_atomic(file, json{{"methods", methods}}.dump()); }

// A rewritten kernel: the best kernel's source with `marker` appended (a comment).
void write_kernel(const RunFolder& run, int i, const std::string& name, const std::string& marker) {
  const fs::path best = run.absolute(run.load().best.kernel);
  write_file_atomic(run.branches(i) / name / "kernel.cu", read_file(best) + "\n// " + marker + "\n");
}

std::map<std::string, json> methods_by_id(const json& iteration) {
  std::map<std::string, json> rows;
  for (const json& m : iteration.at("methods")) rows[m.at("id")] = m;
  return rows;
}

TEST_F(AgentRun, AHarmfulMethodIsSwitchedOffInTheNextBestAndSaidInTheLedger) {
  // Without SMEM padding the champion is 10 % faster: padding costs time here.
  SimulatedLab lab(model("m.json", [](json& m) { m["factors"]["KOPT_USE_SMEM_PADDING=0"] = 0.9; }));
  const RunFolder run = start(lab);
  write_variant(run, 1, "b1", {{"BM", "128"}, {"BN", "128"}, {"TM", "8"}, {"TN", "8"}});
  write_methods(run.iteration(1) / "methods.json", {"compute.register_tiling", "memory.smem_padding"});
  const json verdict = close_iteration(lab, run);
  const std::map<std::string, json> rows = methods_by_id(verdict);
  EXPECT_EQ(rows.at("memory.smem_padding").at("class"), "harmful");
  EXPECT_LT(rows.at("memory.smem_padding").at("time_ratio_without").get<double>(), 0.95);
  EXPECT_EQ(rows.at("compute.register_tiling").at("class"), "effective");
  ASSERT_TRUE(verdict.contains("best_after"));
  EXPECT_EQ(verdict["best_after"]["switched_off"], json::array({"memory.smem_padding"}));
  EXPECT_EQ(verdict["best_after"]["median_from"], "ablation");

  const RunState state = run.load();
  EXPECT_EQ(state.best.defines.at("KOPT_USE_SMEM_PADDING"), "0");
  EXPECT_NEAR(state.best_median_s, 0.9 * verdict.at("champion_median_s").get<double>(),
              0.01 * state.best_median_s);
  // The next iteration starts from it, and its history says harmful.
  EXPECT_EQ(next_step(run, state)["best_defines"]["KOPT_USE_SMEM_PADDING"], "0");
  const json history = read_json(run.iteration(2) / "history.json");
  bool harmful = false;
  for (const json& m : history["methods"]) harmful |= m["id"] == "memory.smem_padding" && m["status"] == "harmful";
  EXPECT_TRUE(harmful);
  const json summary = report::run_summary(run);
  bool off = false;
  for (const json& row : summary["ledger"]) off |= row["id"] == "memory.smem_padding" && row.value("switched_off", false);
  EXPECT_TRUE(off);
  EXPECT_THAT(report::format_run_summary(summary), HasSubstr("harmful (off)"));
  // The best's interval is the ablation's, which measured the best without padding.
  ASSERT_TRUE(summary["best_median_ci_s"].is_array());
  EXPECT_LE(summary["best_median_ci_s"][0].get<double>(), state.best_median_s);
  EXPECT_GE(summary["best_median_ci_s"][1].get<double>(), state.best_median_s);
}

// The retry rule, the same in `plan --validate` and `close`: a method tried before is claimed
// again only with what changed, at most the run's retries per method, never one kept as effective.
TEST_F(AgentRun, AMethodIsTriedAgainOnlyWithWhatChangedAndAtMostTheRunsRetries) {
  SimulatedLab lab(kFixtureModel);
  const RunFolder run = start(lab);
  write_variant(run, 1, "b1", {{"BM", "128"}, {"BN", "128"}, {"TM", "8"}, {"TN", "8"}});
  write_methods(run.iteration(1) / "methods.json", {"compute.register_tiling", "memory.smem_padding"});
  close_iteration(lab, run);  // smem padding: ineffective; register tiling: effective
  const fs::path file = run.iteration(2) / "methods.json";
  const auto check = [&] {
    const catalog::PlanInputs inputs = catalog::read_plan_inputs(
        {.profile = run.iteration(2) / "profile.json", .roofline = run.iteration(2) / "roofline.json",
         .history = run.iteration(2) / "history.json"}, {});
    return catalog::check_methods_file(file, catalog::load_method_catalog(), inputs);
  };
  write_methods(file, {"memory.smem_padding"});
  catalog::MethodsCheck plain = check();
  ASSERT_EQ(plain.violations.size(), 1u);
  EXPECT_EQ(plain.violations[0].rule, "tried");
  EXPECT_THAT(plain.violations[0].message, HasSubstr("say what changed"));
  write_variant(run, 2, "b1", {{"STAGES", "2"}});
  EXPECT_THROW(close_iteration(lab, run), Error);  // close refuses what --validate refuses

  write_methods(file, {{{"id", "compute.register_tiling"}, {"retry", "a new implementation"}}});
  EXPECT_THAT(check().violations.at(0).message, HasSubstr("kept in the best"));

  write_methods(file, {{{"id", "memory.smem_padding"}, {"retry", "padding now on the B tile too"}}});
  EXPECT_TRUE(check().ok());
  const json verdict = close_iteration(lab, run);
  EXPECT_EQ(verdict["retries"]["memory.smem_padding"], "padding now on the B tile too");

  // Tried twice now: the run's one retry is spent.
  write_methods(run.iteration(3) / "methods.json",
                {{{"id", "memory.smem_padding"}, {"retry", "a third way"}}});
  const catalog::PlanInputs third = catalog::read_plan_inputs(
      {.profile = run.iteration(3) / "profile.json", .roofline = run.iteration(3) / "roofline.json",
       .history = run.iteration(3) / "history.json"}, {});
  const catalog::MethodsCheck spent =
      catalog::check_methods_file(run.iteration(3) / "methods.json", catalog::load_method_catalog(), third);
  ASSERT_FALSE(spent.ok());
  EXPECT_EQ(spent.violations[0].rule, "retry_limit");
  EXPECT_THAT(spent.violations[0].message, HasSubstr("allows 1 retry(ies) per method"));
}

TEST_F(AgentRun, EachBranchMayClaimItsOwnMethodsAndIsLabelledByThemAndItsContent) {
  SimulatedLab lab(model("m.json", [](json& m) { m["content_factors"] = {{"FAST_PATH", 0.4}}; }));
  const RunFolder run = start(lab);
  write_kernel(run, 1, "b1", "FAST_PATH");
  write_methods(run.branches(1) / "b1" / "methods.json", {"compute.register_tiling"});
  write_kernel(run, 1, "b2", "slow path");
  write_methods(run.branches(1) / "b2" / "methods.json", {"compute.loop_unrolling"});
  // No iteration-wide methods.json: every branch has its own.
  const json verdict = close_iteration(lab, run);
  EXPECT_EQ(verdict["champion"], "b1");  // keyed on its content, not its file name
  EXPECT_THAT(verdict["branches"][0]["label"].get<std::string>(),
              ::testing::MatchesRegex("kernel.cu [0-9a-f]{8} \\[compute.register_tiling\\]"));
  EXPECT_NE(verdict["branches"][0]["label"], verdict["branches"][1]["label"]);
  EXPECT_EQ(verdict["methods_claimed"], json::array({"compute.register_tiling", "compute.loop_unrolling"}));
  const std::map<std::string, json> rows = methods_by_id(verdict);
  EXPECT_EQ(rows.at("compute.register_tiling").at("class"), "effective");
  // b2's method was not in the champion: tried, not an implementation failure.
  EXPECT_EQ(rows.at("compute.loop_unrolling").at("class"), "tried");
  const std::string log = report::format_run_summary(report::run_summary(run));
  EXPECT_THAT(log, HasSubstr("kernel.cu "));
  EXPECT_THAT(log, ::testing::Not(HasSubstr("| (defaults) |")));
  // The cost split, in the report too; on a simulated lab, where no compile and no GPU worker
  // ran, one line says so instead of a row of zeros per iteration.
  EXPECT_THAT(log, HasSubstr("What each iteration's stages cost: no compile and no GPU worker ran"));
  EXPECT_THAT(log, ::testing::Not(::testing::ContainsRegex("- iteration 1: full check 2 in [0-9.]+ s \\(compile")));
  // A branch without methods of its own and no iteration-wide file: one line naming both.
  write_kernel(run, 2, "b1", "x");
  try {
    close_iteration(lab, run);
    FAIL() << "a branch without methods was closed";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("iter2/methods.json: missing"));
  }
}

TEST_F(AgentRun, ASimulatedRunSaysSoBeforeItsFirstFigureAndARealOneDoesNot) {
  SimulatedLab lab(kFixtureModel);
  const RunFolder run = start(lab);
  const json summary = report::run_summary(run);
  EXPECT_TRUE(summary.at("simulated").get<bool>());
  const std::string text = report::format_run_summary(summary);
  ASSERT_THAT(text, HasSubstr("**Simulated:**"));
  EXPECT_LT(text.find("**Simulated:**"), text.find("Medians of separate measurements"));

  // A model that leaves the mark out is marked all the same.
  SimulatedLab unmarked(model("unmarked.json", [](json& m) { m["environment"].erase("simulated"); }));
  const RunFolder dry = start(unmarked, kKernel, "dry");
  EXPECT_TRUE(report::run_summary(dry).at("simulated").get<bool>());

  // A GPU lab's env.json carries no mark: no banner.
  json env = json::parse(read_file(dry.root() / "env.json"));
  env.erase("simulated");
  write_file_atomic(dry.root() / "env.json", env.dump());
  const json real_summary = report::run_summary(dry);
  EXPECT_FALSE(real_summary.at("simulated").get<bool>());
  EXPECT_THAT(report::format_run_summary(real_summary), Not(HasSubstr("Simulated")));
}

TEST_F(AgentRun, NextJsonCarriesTheBaselineAndTheBestTimes) {
  SimulatedLab lab(kFixtureModel);
  const RunFolder run = start(lab);
  const json next = next_step(run, run.load());
  EXPECT_NEAR(next.at("baseline_median_s").get<double>(), 0.020, 0.0005);
  EXPECT_EQ(next.at("best_median_s"), next.at("baseline_median_s"));
}

// Issue 58: an agent had to run kopt catalog show for every macro it wrote, and took K for
// the number of branches to write. next.json gives every method's switch, K as a maximum,
// and plan.json the macro of each method passed over; close refuses more than K branches.
TEST_F(AgentRun, NextJsonAndThePlanGiveEverySwitchAndKIsAMaximum) {
  SimulatedLab lab(kFixtureModel);
  const RunFolder run = start(lab);  // K = 2
  const json next = next_step(run, run.load());
  EXPECT_EQ(next.at("branches_max"), 2);
  EXPECT_EQ(next.at("switches").at("memory.tiling_smem"), "KOPT_USE_SMEM_TILING");
  EXPECT_EQ(next.at("switches").size(), catalog::load_method_catalog().methods.size());
  const json plan = read_json(run.iteration(1) / "plan.json");
  for (const auto& [axis, entry] : plan.at("axes").items()) {
    for (const json& p : entry.at("passed_over")) EXPECT_TRUE(p.at("macro").get<std::string>().starts_with("KOPT_USE_")) << p;
  }
  for (const char* b : {"b1", "b2", "b3"}) write_variant(run, 1, b, {{"BM", "64"}});
  write_methods(run.iteration(1) / "methods.json", json::array());
  try {
    close_iteration(lab, run);
    FAIL() << "three branches were taken where K is 2";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("3 branches; the run allows at most 2 an iteration"));
  }
  fs::remove_all(run.branches(1) / "b3");
  EXPECT_NO_THROW(close_iteration(lab, run));  // fewer than K is fine: one or two
}

TEST_F(AgentRun, EveryMeasurementNamesItsGpuAndAMoveToAnotherGpuMeasuresTheBaselineAgain) {
  const auto on_gpu = [&](const std::string& uuid, double base) {
    return model("model_" + uuid + ".json", [&](json& m) {
      m["environment"]["device"] = {{"name", "NVIDIA H200 (simulated)"}, {"uuid", uuid}, {"sm_clock_khz", 1980000}};
      m["base_seconds"] = base;
    });
  };
  SimulatedLab gpu_a(on_gpu("GPU-aaaa", 0.020));
  const RunFolder run = start(gpu_a);
  EXPECT_EQ(read_json(run.baseline() / "bench.json")["gpu"]["uuid"], "GPU-aaaa");
  EXPECT_EQ(read_json(run.baseline() / "bench.json")["gpu"]["clocks"], "as_found");
  ASSERT_EQ(run.load().gpus.size(), 1u);

  // Resumed on a slower GPU: the baseline is measured again there before the speedup.
  SimulatedLab gpu_b(on_gpu("GPU-bbbb", 0.030));
  write_variant(run, 1, "b1", {{"BM", "128"}, {"BN", "128"}, {"TM", "8"}, {"TN", "8"}});
  write_methods(run.iteration(1) / "methods.json", {"compute.register_tiling"});
  const json verdict = close_iteration(gpu_b, run);
  EXPECT_TRUE(fs::exists(run.iteration(1) / "rebaseline_GPU-bbbb.json"));
  EXPECT_EQ(read_json(run.iteration(1) / "screen.json")["gpu"]["uuid"], "GPU-bbbb");
  EXPECT_EQ(read_json(run.iteration(1) / "ablation.json")["gpu"]["uuid"], "GPU-bbbb");
  const RunState state = run.load();
  ASSERT_EQ(state.gpus.size(), 2u);
  EXPECT_EQ(state.gpus[1]["uuid"], "GPU-bbbb");
  EXPECT_EQ(state.gpus[1]["since_iteration"], 1);
  EXPECT_NEAR(state.baseline_median_s, 0.030, 0.0005);  // GPU B's, not GPU A's 0.020
  // Both ends of the headline are GPU B's: the speedup is the champion's over B's baseline.
  const json summary = report::run_summary(run);
  EXPECT_NEAR(summary["speedup_vs_baseline"].get<double>(), state.baseline_median_s / state.best_median_s, 1e-9);
  EXPECT_NEAR(summary["speedup_vs_baseline"].get<double>(), 1 / (0.52 * 0.55 * 0.5 * 0.52), 0.1);
  EXPECT_THAT(report::format_run_summary(summary), HasSubstr("GPU-bbbb from iteration 1"));
  // The baseline's interval is GPU B's re-measurement's, around B's median.
  ASSERT_TRUE(summary["baseline_median_ci_s"].is_array());
  EXPECT_LE(summary["baseline_median_ci_s"][0].get<double>(), state.baseline_median_s);
  EXPECT_GE(summary["baseline_median_ci_s"][1].get<double>(), state.baseline_median_s);
  EXPECT_EQ(verdict["verdict"], "advanced");
}

// Issue 58: a run resumed on another GPU kept the audit made on the first, and summary.md set
// it beside the second GPU's medians without a word. Now every figure names its GPU, finalize
// measures an audit of another GPU again, and one left as it is is labelled.
TEST_F(AgentRun, TheSummaryNamesTheGpuOfEveryFigureAndNeverMixesAnAuditsGpuSilently) {
  const auto on_gpu = [&](const std::string& uuid) {
    return model("model_" + uuid + ".json", [&](json& m) {
      m["environment"]["device"] = {{"name", "NVIDIA H100 (simulated)"}, {"uuid", uuid}};
    });
  };
  const fs::path model_a = on_gpu("GPU-aaaa"), model_b = on_gpu("GPU-bbbb");
  SimulatedLab gpu_a(model_a);
  const RunFolder run = start(gpu_a);
  write_variant(run, 1, "b1", {{"BM", "128"}, {"BN", "128"}, {"TM", "8"}, {"TN", "8"}});
  write_methods(run.iteration(1) / "methods.json", {"compute.register_tiling"});
  close_iteration(gpu_a, run);
  const auto lab_on = [](const fs::path& m) { return [m](const std::string&) { return std::make_unique<SimulatedLab>(m); }; };
  EXPECT_EQ(final_audit(run, lab_on(model_a))["gpu"]["uuid"], "GPU-aaaa");
  std::string md = report::format_run_summary(report::run_summary(run));
  EXPECT_THAT(md, HasSubstr("Audited on NVIDIA H100 (simulated) GPU-aaaa."));
  EXPECT_THAT(md, HasSubstr("Every measurement below was made on NVIDIA H100 (simulated) GPU-aaaa."));
  EXPECT_THAT(md, HasSubstr("(the baseline's at init, the best's where it won) on NVIDIA H100 (simulated) GPU-aaaa:"));

  // Iteration 2 on GPU B finds nothing faster: the best and its audit stay, the medians are B's.
  SimulatedLab gpu_b(model_b);
  write_variant(run, 2, "b1", {{"NOT_IN_THE_MODEL", "1"}});
  write_methods(run.iteration(2) / "methods.json", json::array());
  EXPECT_NE(close_iteration(gpu_b, run)["verdict"], "advanced");
  const json summary = report::run_summary(run);
  EXPECT_EQ(summary["medians_gpu"]["uuid"], "GPU-bbbb");
  EXPECT_EQ(summary["audit"]["gpu"]["uuid"], "GPU-aaaa");
  EXPECT_EQ(summary["iterations"][0]["gpu"]["uuid"], "GPU-aaaa");
  EXPECT_EQ(summary["iterations"][1]["gpu"]["uuid"], "GPU-bbbb");
  md = report::format_run_summary(summary);
  EXPECT_THAT(md, HasSubstr("**Not the GPU of the medians below (NVIDIA H100 (simulated) GPU-bbbb)**"));
  EXPECT_THAT(md, HasSubstr("| verdict | time | GPU |"));  // each table names each row's GPU
  EXPECT_THAT(md, HasSubstr("s | NVIDIA H100 (simulated) GPU-aaaa |"));
  EXPECT_THAT(md, HasSubstr("s | NVIDIA H100 (simulated) GPU-bbbb |"));
  EXPECT_THAT(md, Not(HasSubstr("Every measurement below was made on")));

  // finalize on GPU B measures the audit again there: nothing is mixed any more.
  EXPECT_EQ(final_audit(run, lab_on(model_b))["gpu"]["uuid"], "GPU-bbbb");
  md = report::format_run_summary(report::run_summary(run));
  EXPECT_THAT(md, HasSubstr("Audited on NVIDIA H100 (simulated) GPU-bbbb."));
  EXPECT_THAT(md, Not(HasSubstr("Not the GPU of the medians")));
}

TEST_F(AgentRun, ARunFolderKeepsRelativePathsAndWorksWhereverItIsMoved) {
  // A workspace holding the kernel's folder (and the one its spec's reference is in) and the
  // run, as an agent keeps them.
  for (const char* example : {"sgemm_tiled", "sgemm_naive"}) {
    fs::create_directories(path("ws") / example);
    fs::copy(kKernel.parent_path() / example, path("ws") / example, fs::copy_options::recursive);
  }
  SimulatedLab lab(kFixtureModel);
  const RunFolder first = start(lab, path("ws/sgemm_tiled"), "ws/run");
  const json stored = read_json(first.state_file());
  EXPECT_EQ(stored["kernel"], "../sgemm_tiled/sgemm_tiled.cu");
  EXPECT_EQ(stored["spec"], "../sgemm_tiled/kopt.toml");
  write_variant(first, 1, "b1", {{"BM", "128"}, {"BN", "128"}, {"TM", "8"}, {"TN", "8"}});
  write_methods(first.iteration(1) / "methods.json", {"compute.register_tiling"});

  fs::create_directories(path("elsewhere/ws"));
  fs::copy(path("ws"), path("elsewhere/ws"), fs::copy_options::recursive);
  fs::remove_all(path("ws"));
  const RunFolder moved(path("elsewhere/ws/run"));
  const RunState state = moved.load();
  EXPECT_EQ(state.kernel, path("elsewhere/ws/sgemm_tiled/sgemm_tiled.cu"));
  EXPECT_NO_THROW(require_inputs(state));
  EXPECT_EQ(close_iteration(lab, moved)["verdict"], "advanced");
  EXPECT_NO_THROW(report::write_run_summary(moved));
  EXPECT_EQ(report::run_summary(moved)["kernel"], path("elsewhere/ws/sgemm_tiled/sgemm_tiled.cu").string());

  // Moved without its kernel's folder: reading still works; measuring says what is missing.
  fs::create_directories(path("alone/run"));
  fs::copy(path("elsewhere/ws/run"), path("alone/run"), fs::copy_options::recursive);
  const RunFolder alone(path("alone/run"));
  EXPECT_NO_THROW(report::run_summary(alone));
  try {
    require_inputs(alone.load());
    FAIL() << "a run without its spec was accepted";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("the run's spec is missing"));
  }
}

TEST_F(AgentRun, AStateJsonWithAbsolutePathsFromAnOlderKoptIsStillRead) {
  SimulatedLab lab(kFixtureModel);
  const RunFolder run = start(lab);
  json stored = read_json(run.state_file());
  stored["kernel"] = (kKernel / "sgemm_tiled.cu").string();
  stored["spec"] = (kKernel / "kopt.toml").string();
  stored["settings"].erase("retries");
  stored.erase("gpus");
  write_json(run.state_file(), stored);
  const RunState state = run.load();
  EXPECT_EQ(state.kernel, kKernel / "sgemm_tiled.cu");
  EXPECT_EQ(state.settings.retries, 1);
  EXPECT_TRUE(state.gpus.empty());
  run.save(state);  // written back relative
  EXPECT_FALSE(fs::path(read_json(run.state_file())["kernel"].get<std::string>()).is_absolute());
}

}  // namespace
}  // namespace kopt::loop
