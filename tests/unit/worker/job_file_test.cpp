#include "kopt/worker/job_file.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"

namespace kopt::worker {
namespace {
namespace fs = std::filesystem;
using json = nlohmann::json;
using ::testing::HasSubstr;

TEST(WorkerJob, AnUnknownKindIsBadInput) {
  try {
    execute_job({{"kind", "mine_bitcoin"}});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::bad_input);
    EXPECT_THAT(e.what(), HasSubstr("unknown worker job kind \"mine_bitcoin\""));
  }
}

TEST(WorkerJob, ACancelledPrestartedWorkerAnswersCancel) {
  EXPECT_EQ(execute_job({{"kind", "cancel"}}), json({{"kind", "cancel"}}));
}

// The whole child's side, in a forked child as kopt would start it: the result is written
// however the job went, carries the job's nonce, and the job file is gone.
json result_of_child(const fs::path& dir, const std::string& job_text) {
  const JobFiles files{.job = dir / "job.json", .result = dir / "result.json"};
  write_file_atomic(files.job, job_text);
  const pid_t child = ::fork();
  if (child == 0) run_job_file_and_exit(files);
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_FALSE(fs::exists(files.job)) << "a kernel could read the job's seeds and nonce";
  return json::parse(read_file(files.result));
}

TEST(WorkerJob, TheResultCarriesTheNonceAndTheJobFileIsGone) {
  TempDir dir("worker-job");
  const json result = result_of_child(dir.path(), R"({"kind": "cancel", "nonce": "n-1234", "confine_writes": false})");
  EXPECT_EQ(result.at("kind"), "cancel");
  EXPECT_EQ(result.at("nonce"), "n-1234");
}

TEST(WorkerJob, AMalformedOrUnknownJobIsAnErrorResultNotACrash) {
  TempDir dir("worker-job");
  const json malformed = result_of_child(dir.path(), "{ not json");
  EXPECT_EQ(malformed.at("kind"), "error");
  EXPECT_EQ(malformed.at("exit_code"), static_cast<int>(ExitCode::bad_input));
  EXPECT_THAT(malformed.at("message").get<std::string>(), HasSubstr("malformed job"));
  const json unknown = result_of_child(dir.path(), R"({"kind": "nope", "nonce": "n-9"})");
  EXPECT_EQ(unknown.at("kind"), "error");
  EXPECT_EQ(unknown.at("nonce"), "n-9");
  EXPECT_THAT(unknown.at("message").get<std::string>(), HasSubstr("unknown worker job kind"));
}

}  // namespace
}  // namespace kopt::worker
