#include "kopt/loop/frozen_inputs.hpp"

#include <fmt/format.h>

#include "kopt/core/error.hpp"
#include "kopt/core/file_queries.hpp"
#include "kopt/core/files.hpp"
#include "kopt/core/hash.hpp"
#include "kopt/loop/run_documents.hpp"

namespace kopt::loop {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

fs::path frozen_file(const RunFolder& run) { return run.root() / "frozen.json"; }

json tolerance_json(const std::optional<spec::Tolerance>& t) {
  return t ? json{{"atol", t->atol}, {"rtol", t->rtol}} : json(nullptr);
}

// The precision rule as the spec states it: [tolerance], and each output's own.
json tolerances(const spec::ProblemSpec& problem) {
  json per_buffer = json::object();
  for (const auto& [name, buffer] : problem.buffers) {
    if (buffer.tolerance) per_buffer[name] = tolerance_json(buffer.tolerance);
  }
  return {{"default", tolerance_json(problem.tolerance)}, {"buffers", per_buffer}};
}

json frozen_entry(const RunFolder& run, std::string_view role, const fs::path& source) {
  const std::string content = read_file(source);
  const fs::path copy = fs::path("frozen") / (std::string(role) + "-" + source.filename().string());
  write_file_atomic(run.root() / copy, content);
  // Relative to the run, as state.json's paths: a run moved with its kernel's folder still finds it.
  return {{"role", std::string(role)}, {"path", run.kept_path(source).string()}, {"copy", copy.string()},
          {"content_hash", content_hash(content)}};
}

}  // namespace

void freeze_inputs(const RunFolder& run, const spec::ProblemSpec& problem) {
  if (path_exists(frozen_file(run))) {
    require_frozen_inputs(run);
    return;
  }
  json files = json::array();
  if (problem.spec_file) files.push_back(frozen_entry(run, "spec", *problem.spec_file));
  if (problem.reference) files.push_back(frozen_entry(run, "reference", *problem.reference));
  write_json(frozen_file(run), with_schema(kFrozenSchema, {{"files", files}, {"tolerance", tolerances(problem)}}));
}

std::optional<std::string> changed_input(const RunFolder& run) {
  if (!path_exists(frozen_file(run))) return std::nullopt;
  const json frozen = read_json(frozen_file(run));
  require_schema(frozen, kFrozenSchema, frozen_file(run));
  for (const json& f : frozen.at("files")) {
    const fs::path path = run.found_path(f.at("path").get<std::string>());  // an absolute one stays as it is
    const std::string role = f.at("role");
    const std::string rest = fmt::format("since init froze it ({}): restore it, or start a new run "
                                         "(kopt init, or kopt optimize --new-run-on-change)",
                                         (run.root() / f.at("copy").get<std::string>()).string());
    if (!path_exists(path)) return fmt::format("the run's {} {} is gone {}", role, path.string(), rest);
    if (content_hash(read_file(path)) != f.at("content_hash").get<std::string>()) {
      return fmt::format("the run's {} {} changed {}", role, path.string(), rest);
    }
  }
  return std::nullopt;
}

void require_frozen_inputs(const RunFolder& run) {
  if (auto line = changed_input(run)) throw input_error("{}: {}", run.root().string(), *line);
}

fs::path run_folder_to_use(const fs::path& requested, bool new_run_on_change) {
  const RunFolder run(requested);
  if (!new_run_on_change || !run.exists() || !changed_input(run)) return requested;
  fs::path base = requested.lexically_normal();
  if (base.filename().empty()) base = base.parent_path();  // "run/" names the folder "run"
  for (int k = 2;; ++k) {
    fs::path candidate = base;
    candidate += fmt::format("-{}", k);
    if (!RunFolder(candidate).exists()) return candidate;
  }
}

}  // namespace kopt::loop
