// kopt workload's session on a synthetic workload (tests/fixtures/workload/synthetic_workload.py,
// run for real through python3): the run order, the gates, the constraints, the drift record,
// failures, resuming, and the freeze.
#include "kopt/workload/workload_session.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <sstream>

#include "kopt/core/error.hpp"
#include "kopt/core/file_queries.hpp"
#include "kopt/core/files.hpp"
#include "kopt/core/process.hpp"

namespace kopt::workload {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kSynthetic = fs::path(KOPT_FIXTURES_DIR) / "workload" / "synthetic_workload.py";

class WorkloadSession : public ::testing::Test {
 protected:
  // A workload.toml over the synthetic workload: `candidates` and `extra` are TOML appended.
  WorkloadSpec write_spec(const std::string& candidates, const std::string& extra = "", int timeout = 20,
                          const std::string& original_env = "") {
    create_folders(dir_.path() / "state");
    const std::string text = fmt::format(R"(name = "synthetic"
command = ["python3", "{}"]
timeout = {}
[metric]
name = "step_ms"
json_key = "step_ms"
min_effect = 0.02
[tail]
json_key = "latencies_ms"
percentiles = [50, 99]
[original]
env = {{ SYN_STATE = "{}"{} }}
[measure]
resolution_runs = 5
min_rounds = 6
max_rounds = 12
audit_rounds = 6
{}
{})",
                                         kSynthetic.string(), timeout, (dir_.path() / "state").string(),
                                         original_env.empty() ? "" : ", " + original_env, extra, candidates);
    write_file_atomic(dir_.path() / "workload.toml", text);
    return read_workload_spec(dir_.path() / "workload.toml");
  }

  static std::string candidate(const std::string& name, const std::string& env) {
    return fmt::format("[[candidates]]\nname = \"{}\"\nenv = {{ {} }}\n", name, env);
  }

  std::string state_env() const { return fmt::format("SYN_STATE = \"{}\"", (dir_.path() / "state").string()); }

  json run(const WorkloadSpec& spec, SessionOptions options = {}) {
    if (options.folder.empty()) options.folder = dir_.path() / "session";
    SessionHooks hooks{.environment = {runner_, [] { return Interference{.load_average = 0.5, .cpus = 2, .gpu_known = true}; }},
                       .probe = [](const WorkloadSpec&) { return json{{"gpus", json::array()}, {"python", nullptr}}; }};
    return run_workload_session(spec, options, hooks);
  }

  std::vector<json> journal() const {
    std::vector<json> records;
    std::istringstream lines(read_file(dir_.path() / "session" / "journal.jsonl"));
    for (std::string line; std::getline(lines, line);) {
      json record = json::parse(line, nullptr, false);
      if (!record.is_discarded()) records.push_back(record);
    }
    return records;
  }

  static const json& candidate_of(const json& doc, const std::string& name) {
    for (const json& c : doc.at("candidates")) {
      if (c.at("name") == name) return c;
    }
    throw std::logic_error("no candidate " + name);
  }

  TempDir dir_{"kopt-workload-test"};
  SystemProcessRunner runner_;
};

TEST_F(WorkloadSession, AFasterCandidateIsChampionAndTheAuditConfirmsIt) {
  const json doc = run(write_spec(candidate("fast", state_env() + ", SYN_SPEEDUP = \"1.2\"")));
  EXPECT_EQ(doc.at("status"), "complete");
  const json& fast = candidate_of(doc, "fast");
  EXPECT_EQ(fast.at("primary").at("verdict"), "better");
  EXPECT_NEAR(fast.at("primary").at("gain").get<double>(), 1.2, 0.02);
  EXPECT_EQ(fast.at("rounds"), 6);  // settled at the first look
  EXPECT_EQ(doc.at("champion"), "fast");
  EXPECT_EQ(doc.at("audit").at("status"), "confirmed");
  EXPECT_EQ(doc.at("audit").at("rounds"), 6);
  EXPECT_NE(doc.at("claim").get<std::string>().find("fast makes step_ms 1."), std::string::npos);
  EXPECT_TRUE(is_file(dir_.path() / "session" / "summary.md"));
  EXPECT_TRUE(is_file(dir_.path() / "session" / "handoff.md"));
}

TEST_F(WorkloadSession, RoundsAlternateWhichArmRunsFirstAndEveryRunIsAFreshProcess) {
  run(write_spec(candidate("fast", state_env() + ", SYN_SPEEDUP = \"1.2\"")));
  std::vector<std::string> compare_order;
  for (const json& r : journal()) {
    if (r.at("phase") == "compare" && r.at("round").get<int>() < 4) compare_order.push_back(r.at("arm"));
  }
  EXPECT_EQ(compare_order, (std::vector<std::string>{"original", "fast", "fast", "original", "original", "fast", "fast",
                                                     "original"}));
  // Each run was its own process: the synthetic workload counted every one of them.
  EXPECT_EQ(read_file(dir_.path() / "state" / "all_runs"), std::to_string(journal().size()));
}

TEST_F(WorkloadSession, AnAaExperimentGivesNoVerdictOfBetterOrWorse) {
  const json doc = run(write_spec(candidate("same", state_env())));
  const std::string verdict = candidate_of(doc, "same").at("primary").at("verdict");
  EXPECT_TRUE(verdict == "same" || verdict == "ambiguous") << verdict;
  EXPECT_TRUE(doc.at("champion").is_null());
  EXPECT_FALSE(doc.contains("audit"));
  EXPECT_NE(doc.at("claim").get<std::string>().find("the original stays"), std::string::npos);
}

TEST_F(WorkloadSession, AWrongOutputIsRejectedByTheGateBeforeAnyOfItsTimesCount) {
  const json doc = run(write_spec(candidate("wrong", state_env() + ", SYN_SPEEDUP = \"1.5\", SYN_WRONG = \"0.1\""),
                                  "[accuracy]\noutput = \"out.bin\"\ndtype = \"float32\"\natol = 1e-3\n"));
  const json& wrong = candidate_of(doc, "wrong");
  EXPECT_EQ(wrong.at("status"), "rejected");
  EXPECT_EQ(wrong.at("gate"), "failed");
  EXPECT_NE(wrong.at("reason").get<std::string>().find("1 of 64 output elements beyond atol 0.001"), std::string::npos)
      << wrong.at("reason");
  EXPECT_FALSE(wrong.contains("primary"));
  EXPECT_TRUE(doc.at("champion").is_null());
  for (const json& r : journal()) EXPECT_NE(r.at("phase"), "compare") << "a rejected candidate was timed";
  // The original passed its own gate on every later run.
  EXPECT_EQ(doc.at("original_gate").at("failed"), 0);
  EXPECT_GT(doc.at("original_gate").at("passed").get<int>(), 3);
}

TEST_F(WorkloadSession, AGateCommandJudgesTheTwoOutputs) {
  const std::string gate = "[accuracy]\noutput = \"out.bin\"\ncommand = [\"sh\", \"-c\", "
                           "\"cmp -s \\\"$KOPT_WORKLOAD_ORIGINAL_OUTPUT\\\" \\\"$KOPT_WORKLOAD_CANDIDATE_OUTPUT\\\" || "
                           "{ echo outputs differ; exit 1; }\"]\n";
  const json doc = run(write_spec(candidate("wrong", state_env() + ", SYN_WRONG = \"1\""), gate));
  EXPECT_EQ(candidate_of(doc, "wrong").at("status"), "rejected");
  EXPECT_NE(candidate_of(doc, "wrong").at("reason").get<std::string>().find("outputs differ"), std::string::npos);
}

TEST_F(WorkloadSession, ABetterMedianWithAWorseTailIsNotChampion) {
  const json doc = run(write_spec(candidate("tail", state_env() + ", SYN_SPEEDUP = \"1.1\", SYN_TAIL = \"1.5\""),
                                  "[[constraints]]\nname = \"p99\"\nmax_worse = 0.05\n"));
  const json& tail = candidate_of(doc, "tail");
  EXPECT_EQ(tail.at("primary").at("verdict"), "better");
  EXPECT_EQ(tail.at("constraints").at(0).at("status"), "broken");
  EXPECT_NE(tail.at("not_champion_because").get<std::string>().find("constraint p99 broken"), std::string::npos);
  EXPECT_TRUE(doc.at("champion").is_null());
}

TEST_F(WorkloadSession, ACandidateThatHangsCrashesOrPrintsNothingIsARecordedFailure) {
  const json doc = run(write_spec(candidate("hangs", state_env() + ", SYN_FAIL = \"hang\"") +
                                      candidate("crashes", state_env() + ", SYN_FAIL = \"crash\"") +
                                      candidate("silent", state_env() + ", SYN_FAIL = \"silent\"") +
                                      candidate("exits", state_env() + ", SYN_FAIL = \"exit\", SYN_FAIL_AFTER = \"3\""),
                                  "", 2));
  EXPECT_EQ(doc.at("status"), "complete");
  EXPECT_NE(candidate_of(doc, "hangs").at("reason").get<std::string>().find("hung: still running after 2 s"), std::string::npos);
  EXPECT_NE(candidate_of(doc, "crashes").at("reason").get<std::string>().find("crashed: was killed by signal 11"),
            std::string::npos);
  EXPECT_NE(candidate_of(doc, "silent").at("reason").get<std::string>().find("printed no step_ms"), std::string::npos);
  // Failing in its third comparison round: rejected there, its earlier rounds do not count.
  const json& exits = candidate_of(doc, "exits");
  EXPECT_EQ(exits.at("status"), "rejected");
  EXPECT_NE(exits.at("reason").get<std::string>().find("compare run 2: exited with status 3: CUDA error"), std::string::npos)
      << exits.at("reason");
  EXPECT_TRUE(doc.at("champion").is_null());
}

TEST_F(WorkloadSession, AnOriginalThatFailsEndsTheSessionWithItsReasonAndIsRunAgainOnResume) {
  WorkloadSpec spec = write_spec(candidate("fast", state_env() + ", SYN_SPEEDUP = \"1.2\""));
  spec.original.env.emplace_back("SYN_FAIL", "exit");
  spec.original.env.emplace_back("SYN_FAIL_AFTER", "2");
  const json failed = run(spec);
  EXPECT_EQ(failed.at("status"), "original_failed");
  EXPECT_NE(failed.at("failure").get<std::string>().find("resolution/original/1/0 exited with status 3"), std::string::npos)
      << failed.at("failure");
  EXPECT_NE(failed.at("claim").get<std::string>().find("no claim"), std::string::npos);
  spec.original.env.resize(1);
  const json resumed = run(spec);
  EXPECT_EQ(resumed.at("status"), "complete");
  EXPECT_EQ(resumed.at("champion"), "fast");
}

TEST_F(WorkloadSession, AKilledSessionResumesWithTheRunsItHadNotFinished) {
  const WorkloadSpec spec = write_spec(candidate("fast", state_env() + ", SYN_SPEEDUP = \"1.2\""));
  const json whole = run(spec);
  const std::vector<json> records = journal();
  // As if killed in the middle of the comparison, mid-way through writing a record.
  std::string cut;
  for (std::size_t i = 0; i < records.size() / 2; ++i) cut += records[i].dump() + "\n";
  cut += records[records.size() / 2].dump().substr(0, 40);  // no newline: the kill came mid-line
  write_file_atomic(dir_.path() / "session" / "journal.jsonl", cut);
  remove_file(dir_.path() / "session" / "workload.json");
  const json resumed = run(spec);
  EXPECT_EQ(resumed.at("runs"), whole.at("runs"));
  EXPECT_EQ(resumed.at("champion"), "fast");
  EXPECT_EQ(resumed.at("audit").at("status"), "confirmed");
  // Every run is recorded once more in the journal it resumed, no more.
  EXPECT_EQ(journal().size(), records.size());
}

TEST_F(WorkloadSession, ASpentBudgetStopsAndTheNextCallFinishes) {
  const WorkloadSpec spec = write_spec(candidate("fast", state_env() + ", SYN_SPEEDUP = \"1.2\""));
  const json stopped = run(spec, {.budget_minutes = 1e-4});
  EXPECT_EQ(stopped.at("status"), "budget_spent");
  EXPECT_NE(stopped.at("claim").get<std::string>().find("budget"), std::string::npos);
  const json finished = run(spec);
  EXPECT_EQ(finished.at("status"), "complete");
}

TEST_F(WorkloadSession, AChangedWorkloadIsRefusedUntilAFreshSession) {
  run(write_spec(candidate("fast", state_env() + ", SYN_SPEEDUP = \"1.2\"")));
  const WorkloadSpec changed = write_spec(candidate("fast", state_env() + ", SYN_SPEEDUP = \"1.3\""));
  try {
    run(changed);
    FAIL() << "a changed workload was measured in the old session";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("workload.toml changed"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("--fresh"), std::string::npos);
  }
  const json fresh = run(changed, {.fresh = true});
  EXPECT_EQ(fresh.at("status"), "complete");
}

TEST_F(WorkloadSession, APlantedDriftIsRecordedAndPairingKeepsTheVerdictHonest) {
  const json doc = run(write_spec(candidate("same", state_env() + ", SYN_DRIFT = \"0.003\""), "", 20, "SYN_DRIFT = \"0.003\""));
  EXPECT_TRUE(doc.at("drift").at("significant").get<bool>());
  EXPECT_GT(doc.at("drift").at("session_change").get<double>(), 0.02);
  const std::string verdict = candidate_of(doc, "same").at("primary").at("verdict");
  EXPECT_TRUE(verdict == "same" || verdict == "ambiguous") << verdict;
  EXPECT_NE(read_file(dir_.path() / "session" / "summary.md").find("a significant drift"), std::string::npos);
}

TEST_F(WorkloadSession, ThePredictionIsReconciledWithTheMeasuredGain) {
  const std::string prediction = fmt::format(
      "[prediction]\ntrace = \"{}\"\nkernels = [\"softmax\"]\nkernel_speedup = 2.0\n",
      (fs::path(KOPT_FIXTURES_DIR) / "evidence" / "handmade_torch_trace.json").string());
  const json doc = run(write_spec(candidate("fast", state_env() + ", SYN_SPEEDUP = \"1.2\""), prediction));
  const json& predicted = doc.at("prediction").at("predicted");
  // Three softmaxes of 10 µs in a 445 µs trace, made twice as fast.
  EXPECT_NEAR(predicted.at("replaced_share").get<double>(), 30.0 / 445, 1e-9);
  EXPECT_NEAR(predicted.at("predicted_ratio").get<double>(), 1 - 15.0 / 445, 1e-9);
  const json& reconciliation = doc.at("prediction").at("reconciliation");
  EXPECT_EQ(reconciliation.at("agreement"), "measured_larger");
  EXPECT_NE(reconciliation.at("explanation").get<std::string>().find("boundary is wider"), std::string::npos);
}

}  // namespace
}  // namespace kopt::workload
