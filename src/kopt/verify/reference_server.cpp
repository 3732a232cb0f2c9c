#include "kopt/verify/reference_server.hpp"

#include <fmt/format.h>

#include <thread>

#include "kopt/core/clock.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/file_queries.hpp"
#include "kopt/core/secret.hpp"
#include "kopt/core/files.hpp"
#include "kopt/core/interrupt.hpp"

namespace kopt::verify {
namespace fs = std::filesystem;
using nlohmann::json;

PythonReferenceServer::PythonReferenceServer(ProcessRunner& runner, const fs::path& python, const fs::path& runner_script,
                                             const fs::path& cache_dir, std::chrono::duration<double> time_limit,
                                             RequestObserver observer, std::optional<int> warm_cuda_device)
    : runner_(runner), observer_(std::move(observer)), dir_("reference-server", cache_dir / "tmp") {
  std::vector<std::string> argv = {python.string(), runner_script.string(), "--serve", dir_.path().string()};
  if (warm_cuda_device) argv.insert(argv.end(), {"--warm-cuda", std::to_string(*warm_cuda_device)});
  ProcessSpec spec{.argv = std::move(argv),
                   .time_limit = time_limit,
                   .on_start = [group = group_](int pid) { group->started(pid); },
                   .waiting = waiting_};
  process_ = std::async(std::launch::async, [this, spec] { return runner_.run(spec); }).share();
}

PythonReferenceServer::~PythonReferenceServer() {
  // Never asked: nothing is lost by ending it now, while it may still be importing torch. Only
  // a group still running is signalled (core/interrupt.hpp); one not started yet ends as it starts.
  if (next_ == 0 && !ended()) group_->end();
  // From here the time limit runs: a runner that never sees the stop (stuck loading torch)
  // is ended by it rather than holding kopt's exit.
  waiting_->store(false);
  try {
    write_file_atomic(dir_.path() / "stop", "");
  } catch (...) {  // the folder is going anyway; the runner also ends with its parent
  }
  if (process_.valid()) process_.wait();
}

void PythonReferenceServer::Group::started(int pid) {
  std::lock_guard lock(mutex_);
  pid_ = pid;
  if (ending_) end_tracked_child_group(pid_);
}

void PythonReferenceServer::Group::end() {
  std::lock_guard lock(mutex_);
  ending_ = true;
  if (pid_ > 0) end_tracked_child_group(pid_);
}

namespace {

// Tells a request's observer that it is over, however run() leaves: an answer, the runner's
// end, or a throw.
struct RequestDone {
  const PythonReferenceServer::RequestObserver& observer;
  ~RequestDone() {
    if (observer) observer(false);
  }
};

}  // namespace

bool PythonReferenceServer::ended() const {
  return !process_.valid() || process_.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

std::optional<RunnerAnswer> PythonReferenceServer::run(const std::vector<fs::path>& manifests) {
  if (broken_ || ended()) return std::nullopt;
  const int number = next_++;
  const fs::path request = dir_.path() / fmt::format("request-{}.json", number);
  const fs::path response = dir_.path() / fmt::format("response-{}.json", number);
  const std::string nonce = fmt::format("{:016x}", secret_seed());
  remove_file(response);  // only the server, asked now, may answer
  json body{{"nonce", nonce}, {"manifests", json::array()}};
  for (const fs::path& manifest : manifests) body["manifests"].push_back(manifest.string());
  const Stopwatch started;
  waiting_->store(false);  // the time limit runs while the server works on this request
  if (observer_) observer_(true);
  const RequestDone done{observer_};
  write_file_atomic(request, body.dump());
  RunnerAnswer answer;
  for (auto pause = std::chrono::microseconds(200); !path_exists(response);
       pause = std::min(pause * 2, std::chrono::microseconds(5000))) {
    if (ended()) {
      broken_ = true;
      const ProcessResult& result = process_.get();
      answer.timed_out = result.timed_out;
      answer.seconds = started.seconds();
      if (!result.timed_out) return std::nullopt;  // it ended some other way: run them one-shot
      return answer;
    }
    std::this_thread::sleep_for(pause);
  }
  waiting_->store(true);
  answer.seconds = started.seconds();
  const json reply = json::parse(read_file(response));
  remove_file(request);
  remove_file(response);
  if (reply.value("nonce", std::string()) != nonce) {
    broken_ = true;
    throw environment_error("the reference runner's answer {} does not carry its request's nonce", response.string());
  }
  if (reply.contains("error")) {
    answer.error = reply.at("error").get<std::string>();
    answer.exit_code = reply.value("code", 1);
    return answer;
  }
  for (const json& line : reply.at("lines")) answer.lines.push_back(line);
  return answer;
}

}  // namespace kopt::verify
