// The Python reference runner a loop process keeps across its measurements
// (kept_reference_server.hpp): one start for all of them, a new one only when the reference's
// content changed or the old one ended, and each request heard by the lab's ledger.
#include "kopt/verify/kept_reference_server.hpp"

#include <gtest/gtest.h>

#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/verify/reference.hpp"
#include "verify_test_support.hpp"

namespace kopt::verify {
namespace {

namespace fs = std::filesystem;
using testing_support::has_numpy;

class KeptReferenceServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!has_numpy(runner)) GTEST_SKIP() << "needs python3 with numpy";
    fs::copy(fs::path(KOPT_SOURCE_DIR) / "examples" / "reduction", folder(), fs::copy_options::recursive);
  }
  fs::path folder() const { return dir.path() / "reduction"; }
  spec::Problem problem() const { return spec::load_problem(folder(), std::nullopt, {{"N", 1000}}); }
  // How many (case, seed) outputs of the reference `server` computed for `seeds`, as a share of
  // those asked: 1 when it made them all.
  double computed(PythonReferenceServer* server, const std::vector<std::uint64_t>& seeds) {
    ReferenceContext context{runner, cache.path(), {}, true};
    context.python_server = server;
    const spec::Problem asked = problem();
    const ReferenceOutputs made = python_reference_outputs(asked, seeds, context);
    return static_cast<double>(made.computed) / static_cast<double>(asked.cases.size() * seeds.size());
  }

  SystemProcessRunner runner;
  TempDir dir{"kept-server-test"};
  TempDir cache{"kept-server-test-cache"};
};

TEST_F(KeptReferenceServerTest, OneRunnerServesEveryMeasurementOfTheSameReference) {
  int requests = 0, working = 0;
  KeptReferenceServer kept(runner, cache.path(), std::chrono::seconds(60), [&](bool now_working) {
    working += now_working ? 1 : -1;
    if (now_working) ++requests;
  });
  PythonReferenceServer* first = kept.serve(problem());
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(computed(first, {11}), 1.0);
  PythonReferenceServer* second = kept.serve(problem());  // the next measurement
  EXPECT_EQ(second, first);
  EXPECT_EQ(computed(second, {12, 13}), 1.0);
  EXPECT_EQ(kept.starts(), 1);
  EXPECT_EQ(requests, 2);
  EXPECT_EQ(working, 0);  // every request's start was followed by its end
}

TEST_F(KeptReferenceServerTest, AReferenceWhoseContentChangedGetsANewRunner) {
  KeptReferenceServer kept(runner, cache.path(), std::chrono::seconds(60));
  EXPECT_EQ(computed(kept.serve(problem()), {11}), 1.0);
  // The runner imports each reference file once: the one kept would still run the old code.
  write_file_atomic(folder() / "ref.py", read_file(folder() / "ref.py") + "\n# edited during the run\n");
  PythonReferenceServer* after_edit = kept.serve(problem());
  ASSERT_NE(after_edit, nullptr);
  EXPECT_EQ(kept.starts(), 2);
  EXPECT_EQ(computed(after_edit, {12}), 1.0);
  kept.serve(problem());
  EXPECT_EQ(kept.starts(), 2);
}

TEST_F(KeptReferenceServerTest, ARunnerThatEndedIsReplaced) {
  write_file_atomic(folder() / "ref.py", "import os\n\ndef reference(input, output, N):\n    os._exit(3)\n");
  KeptReferenceServer kept(runner, cache.path(), std::chrono::seconds(60));
  PythonReferenceServer* server = kept.serve(problem());
  ASSERT_NE(server, nullptr);
  EXPECT_THROW(computed(server, {11}), Error);  // the server ended; the one-shot run fails as well
  EXPECT_FALSE(server->serving());
  ASSERT_NE(kept.serve(problem()), nullptr);
  EXPECT_EQ(kept.starts(), 2);
}

TEST_F(KeptReferenceServerTest, ACudaReferenceNeedsNone) {
  KeptReferenceServer kept(runner, cache.path(), std::chrono::seconds(60));
  const spec::Problem cuda = spec::load_problem(fs::path(KOPT_SOURCE_DIR) / "examples" / "vector_add", std::nullopt, {});
  EXPECT_EQ(kept.serve(cuda), nullptr);
  EXPECT_EQ(kept.starts(), 0);
}

}  // namespace
}  // namespace kopt::verify
