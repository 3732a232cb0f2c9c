#include "kopt/verify/reference_server.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/core/process.hpp"
#include "kopt/spec/problem_spec.hpp"
#include "kopt/verify/npy.hpp"
#include "kopt/verify/reference.hpp"
#include "verify_test_support.hpp"

namespace kopt::verify {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

using testing_support::has_numpy;

spec::Problem small(const std::string& folder, std::int64_t n) {
  return spec::load_problem(fs::path(KOPT_SOURCE_DIR) / folder, std::nullopt, {{"N", n}});
}

// The bytes of every output of every (case, seed) of `outputs`.
std::vector<std::string> output_bytes(const spec::Problem& problem, const ReferenceOutputs& outputs) {
  std::vector<std::string> bytes;
  for (std::size_t c = 0; c < outputs.dirs.size(); ++c) {
    for (const fs::path& dir : outputs.dirs[c]) {
      for (const spec::BoundArg& arg : problem.cases[c].args) {
        if (arg.buffer && arg.buffer->is_output) bytes.push_back(read_file(dir / (arg.buffer->name + ".npy")));
      }
    }
  }
  return bytes;
}

// The real runner on examples/reduction's ref.py: one process answers two requests, and its
// outputs are the bytes a runner of its own per request writes.
TEST(PythonReferenceServer, AnswersAsARunnerOfItsOwnWould) {
  SystemProcessRunner runner;
  if (!has_numpy(runner)) GTEST_SKIP() << "needs python3 with numpy";
  const spec::Problem problem = small("examples/reduction", 1000);
  TempDir one_shot_cache("server-test-one-shot"), served_cache("server-test-served");
  ReferenceContext one_shot{runner, one_shot_cache.path(), {}, true};
  const ReferenceOutputs expected = python_reference_outputs(problem, {11, 12}, one_shot);

  const auto server = serve_python_reference(problem, runner, served_cache.path(), std::chrono::seconds(60));
  ASSERT_NE(server, nullptr);
  ReferenceContext served{runner, served_cache.path(), {}, true};
  served.python_server = server.get();
  const ReferenceOutputs first = python_reference_outputs(problem, {11, 12}, served);
  EXPECT_EQ(output_bytes(problem, first), output_bytes(problem, expected));
  const ReferenceOutputs second = python_reference_outputs(problem, {13}, served);  // a second request
  EXPECT_EQ(second.computed, static_cast<int>(problem.cases.size()));
  EXPECT_EQ(second.backend, expected.backend);
}

// A reference that raises fails the same way through the server: one line naming the
// reference and the cause, exit 2.
TEST(PythonReferenceServer, AReferenceThatRaisesFailsAsBefore) {
  SystemProcessRunner runner;
  if (!has_numpy(runner)) GTEST_SKIP() << "needs python3 with numpy";
  const spec::Problem problem = small("tests/gpu/kernels/reference_raises", 64);
  auto message = [&](PythonReferenceServer* server) {
    TempDir cache("server-test-raises");
    ReferenceContext context{runner, cache.path(), {}, true};
    context.python_server = server;
    try {
      python_reference_outputs(problem, {5}, context);
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::bad_input);
      return std::string(e.what());
    }
    ADD_FAILURE() << "the reference did not fail";
    return std::string();
  };
  TempDir server_cache("server-test-raises-served");
  const auto server = serve_python_reference(problem, runner, server_cache.path(), std::chrono::seconds(60));
  const std::string served = message(server.get());
  EXPECT_THAT(served, HasSubstr("ValueError"));
  EXPECT_EQ(served, message(nullptr));
  // The server outlives a reference that raised: it answers the next request too.
  EXPECT_EQ(message(server.get()), served);
}

// A server that cannot start (no such script) hands its work back: the caller runs one-shot.
TEST(PythonReferenceServer, OneThatEndedAnswersNothing) {
  SystemProcessRunner runner;
  if (!find_program("python3")) GTEST_SKIP() << "needs python3";
  TempDir cache("server-test-ended");
  PythonReferenceServer server(runner, find_python(), cache.path() / "no-such-runner.py", cache.path(),
                               std::chrono::seconds(10));
  EXPECT_FALSE(server.run({cache.path() / "manifest.json"}).has_value());
}

}  // namespace
}  // namespace kopt::verify
