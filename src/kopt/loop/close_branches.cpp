#include "kopt/core/file_queries.hpp"
#include "kopt/loop/close_steps.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "kopt/catalog/method_catalog.hpp"
#include "kopt/catalog/plan_step.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/hash.hpp"
#include "kopt/spec/tool_arguments.hpp"

namespace kopt::loop {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr const char* kMethodsFile = "methods.json";

// A methods.json checked against the catalog's rules for this iteration's evidence: exit 2
// naming every violation. Each branch's own file is held to the same rules as the
// iteration's: each branch is a candidate champion on its own.
catalog::MethodsCheck checked_methods(const fs::path& file, const catalog::MethodCatalog& catalog,
                                      const std::optional<catalog::PlanInputs>& inputs) {
  catalog::MethodsCheck check = catalog::check_methods_file(file, catalog, inputs);
  if (!check.ok()) {
    std::string all;
    for (const catalog::Violation& v : check.violations) all += (all.empty() ? "" : "; ") + v.message;
    throw input_error("{}: {} violation(s) of the catalog's rules: {}", file.string(), check.violations.size(), all);
  }
  return check;
}

Defines read_defines(const fs::path& file) {
  const json document = read_json(file);
  const json defines = document.is_object() ? document.value("defines", json::object()) : json();
  if (!defines.is_object()) throw input_error("{}: \"defines\" must be an object of NAME: value", file.string());
  Defines out;
  for (const auto& [name, value] : defines.items()) {
    out[name] = value.is_string() ? value.get<std::string>() : value.dump();
    spec::check_define(name, out[name], file.string());
  }
  return out;
}

}  // namespace

std::string branch_label(const Branch& branch, const fs::path& kernel) {
  std::vector<std::string> parts;
  if (branch.own_kernel) parts.push_back(kernel_file_like(kernel) + " " + content_hash(read_file(kernel)).substr(0, 8));
  if (!branch.variant.defines.empty() || !branch.own_kernel) parts.push_back(describe_defines(branch.variant.defines));
  if (branch.own_methods && !branch.methods.empty()) parts.push_back(fmt::format("[{}]", fmt::join(branch.methods, ", ")));
  return fmt::format("{}", fmt::join(parts, " "));
}

std::vector<Branch> read_branches(const RunFolder& run, int i, const RunState& state,
                                  const std::optional<catalog::PlanInputs>& inputs) {
  const fs::path shared_file = run.iteration(i) / kMethodsFile;
  const catalog::MethodCatalog catalog = catalog::load_method_catalog();  // read once, not per branch
  std::optional<catalog::MethodsCheck> shared;
  if (path_exists(shared_file)) shared = checked_methods(shared_file, catalog, inputs);
  std::vector<Branch> branches;
  const std::string kernel_file = kernel_file_like(state.kernel);  // kernel.cu, or a Triton run's kernel.py
  const std::vector<std::string> names = branch_names(run, i);
  // K (--branches) is a maximum: next.json names K folders, a driver may write fewer.
  if (names.size() > static_cast<std::size_t>(state.settings.branches)) {
    throw input_error("{}: {} branches; the run allows at most {} an iteration (kopt init --branches K): remove {}",
                      run.branches(i).string(), names.size(), state.settings.branches, names.back());
  }
  for (const std::string& name : names) {
    const fs::path dir = run.branches(i) / name;
    Branch b{.name = name, .own_kernel = path_exists(dir / kernel_file)};
    b.variant.label = iter_name(i) + "/" + name;
    b.variant.kernel = b.own_kernel ? run.relative(dir / kernel_file) : state.best.kernel;
    // A branch without its own kernel is the best kernel with its defines changed.
    if (!b.own_kernel) b.variant.defines = state.best.defines;
    if (path_exists(dir / "variant.json")) {
      for (const auto& [define, value] : read_defines(dir / "variant.json")) b.variant.defines[define] = value;
    } else if (!b.own_kernel) {
      throw input_error("{}: a branch needs {} or variant.json", dir.string(), kernel_file);
    }
    b.own_methods = path_exists(dir / kMethodsFile);
    const std::optional<catalog::MethodsCheck> claims =
        b.own_methods ? std::optional(checked_methods(dir / kMethodsFile, catalog, inputs)) : shared;
    if (!claims) {
      throw input_error("{}: missing: write the methods this iteration tries first (or {}/{} for this branch)",
                        shared_file.string(), dir.string(), kMethodsFile);
    }
    b.methods = claims->ids;
    b.retries = claims->retries;
    b.label = branch_label(b, run.absolute(b.variant.kernel));
    branches.push_back(std::move(b));
  }
  if (branches.empty()) {
    throw input_error("{}: no branches: write {}/b1/{} (or variant.json) first", run.branches(i).string(),
                      run.branches(i).string(), kernel_file);
  }
  return branches;
}

std::vector<std::string> claimed_methods(const std::vector<Branch>& branches) {
  std::vector<std::string> all;
  for (const Branch& b : branches) {
    for (const std::string& id : b.methods) {
      if (std::ranges::find(all, id) == all.end()) all.push_back(id);
    }
  }
  return all;
}

json retries_of(const std::vector<Branch>& branches) {
  json retries = json::object();
  for (const Branch& b : branches) {
    for (const auto& [id, why] : b.retries) retries[id] = why;
  }
  return retries;
}

}  // namespace kopt::loop
