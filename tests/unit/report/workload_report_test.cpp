#include "kopt/report/workload_report.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"

namespace kopt::report {
namespace {

namespace fs = std::filesystem;
const fs::path kSession = fs::path(KOPT_FIXTURES_DIR) / "workload" / "synthetic_session";

TEST(WorkloadReport, DrawsEachGainWithItsIntervalBesideTheAudit) {
  const nlohmann::json doc = nlohmann::json::parse(read_file(kSession / "workload.json"));
  const std::string html = render_workload_report(doc);
  // The comparison's and the audit's gain bars, each at its value.
  const double compared = 1 / doc.at("candidates").at(0).at("primary").at("median_ratio").get<double>();
  const double audited = 1 / doc.at("audit").at("primary").at("median_ratio").get<double>();
  EXPECT_NE(html.find(fmt::format("data-value=\"{}\"", compared)), std::string::npos);
  EXPECT_NE(html.find(fmt::format("data-value=\"{}\"", audited)), std::string::npos);
  EXPECT_NE(html.find("fast p99 ≤ 1.05× (kept)"), std::string::npos);
  EXPECT_NE(html.find("wrong: gate run 0: failed the accuracy gate"), std::string::npos);
  // The claim once, as the page's lead; the summary below it without its title line.
  const std::string claim = doc.at("claim");
  EXPECT_NE(html.find(claim), std::string::npos);
  EXPECT_EQ(html.find("Workload synthetic: fast"), std::string::npos);
}

TEST(WorkloadReport, IsWrittenFromASessionFolderAndRefusesOtherFiles) {
  TempDir out("kopt-workload-report");
  write_workload_report(kSession, out.path());
  EXPECT_NE(read_file(out.path() / "report.html").find("<svg"), std::string::npos);
  write_file_atomic(out.path() / "bad" / "workload.json", "{\"schema\": \"kopt.audit/1\"}");
  EXPECT_TRUE(is_workload_session(out.path() / "bad"));
  EXPECT_THROW(write_workload_report(out.path() / "bad", out.path()), Error);
}

}  // namespace
}  // namespace kopt::report
