#include "kopt/profile/passed_check.hpp"

#include <algorithm>

#include "kopt/build/compiler.hpp"
#include "kopt/core/file_queries.hpp"
#include "kopt/core/files.hpp"
#include "kopt/core/hash.hpp"
#include "kopt/run/problem_codec.hpp"
#include "kopt/spec/python_kernel.hpp"

namespace kopt::profile {
namespace fs = std::filesystem;

std::optional<PassedCheck> passed_check_of(const verify::CheckReport& report, const verify::CheckOptions& options,
                                           std::string source_hash, int device) {
  if (!report.passed() || !report.build || !path_exists(report.build->library)) return std::nullopt;
  return PassedCheck{.report = report,
                     .options = options,
                     .source_hash = std::move(source_hash),
                     .library_hash = content_hash(read_file(report.build->library)),
                     .device = device};
}

namespace {

// Where the cubins of a Triton kernel go is no part of what is checked.
bool asked_alike(const verify::CheckOptions& a, const verify::CheckOptions& b) {
  return a.seed_count == b.seed_count && a.first_seed == b.first_seed && a.arch == b.arch && a.defines == b.defines &&
         a.strict == b.strict && a.sanitize == b.sanitize;
}

// Each case as a worker would be handed it (its dims, buffers, inits and tolerances) among those
// the check ran: the profile's own check would run them all, and the analytic roofline times
// the first on this check.
bool covers_cases(const verify::CheckReport& report, const std::vector<spec::BoundCase>& cases) {
  std::vector<nlohmann::json> ran;
  for (const spec::BoundCase& c : report.cases) ran.push_back(run::case_to_json(c));
  return std::ranges::all_of(cases,
                             [&](const spec::BoundCase& c) { return std::ranges::find(ran, run::case_to_json(c)) != ran.end(); });
}

bool same_file(const fs::path& a, const fs::path& b) {
  return fs::absolute(a).lexically_normal() == fs::absolute(b).lexically_normal();
}

// What the profile's own check would build now (its kernel_compile_request, for the arch the
// check resolved: the spec's, the option's, or this device's): a cache hit costs a hash of the
// source and its headers. "" when it is the checked library.
std::string library_refusal(const PassedCheck& checked, const spec::Problem& problem,
                            const verify::CheckOptions& options, verify::CheckContext& context) {
  const verify::CheckReport& report = checked.report;
  if (verify::resolve_arch(problem.spec.build.arch, options.arch, report.arch) != report.arch) {
    return "it was built for another arch";
  }
  build::Compiler compiler(context.runner, build::find_nvcc(), context.cache_dir);
  const build::BuildOutcome now =
      compiler.compile(verify::kernel_compile_request(problem, options, context.cache_dir, report.arch));
  if (!now.ok() || now.artifact->key != report.build->key || !same_file(now.artifact->library, report.build->library)) {
    return "the kernel's source, headers or flags build another library now";
  }
  if (content_hash(read_file(report.build->library)) != checked.library_hash) return "its library was rewritten since";
  return "";
}

}  // namespace

std::string reuse_refusal(const PassedCheck& checked, const spec::Problem& problem, const verify::CheckOptions& options,
                          verify::CheckContext& context) {
  const verify::CheckReport& report = checked.report;
  if (!report.passed()) return "it did not pass";
  if (!report.build || !path_exists(report.build->library)) return "it left no library";
  if (report.problem_name != problem.spec.name || report.entry != problem.signature.entry) return "another problem";
  if (!asked_alike(checked.options, options)) return "it was asked other seeds, defines, arch or strictness";
  if (checked.device != context.worker.device) return "it ran on another device";
  if (!covers_cases(report, problem.cases)) return "it did not run every case to profile as bound now";
  if (spec::is_python_kernel(problem.spec.kernel) && !same_file(report.kernel, problem.spec.kernel)) {
    return "a Triton kernel's check stands only for its own file";
  }
  if (!path_exists(problem.spec.kernel) || content_hash(read_file(problem.spec.kernel)) != checked.source_hash) {
    return "the kernel's source is not the one checked";
  }
  return library_refusal(checked, problem, options, context);
}

}  // namespace kopt::profile
