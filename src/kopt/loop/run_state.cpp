#include "kopt/loop/run_state.hpp"

#include <algorithm>

#include "kopt/core/error.hpp"
#include "kopt/core/file_queries.hpp"
#include "kopt/core/files.hpp"
#include "kopt/spec/python_kernel.hpp"

namespace kopt::loop {
namespace fs = std::filesystem;
using nlohmann::json;

void to_json(json& out, const RunState& s) {
  json iterations = json::array();
  for (const IterationState& it : s.iterations) {
    iterations.push_back({{"index", it.index}, {"status", it.status}, {"verdict", it.verdict},
                          {"champion", it.champion}, {"best_median_s", it.best_median_s},
                          {"wall_s", it.wall_s}});
  }
  out = {{"schema", kStateSchema},
         {"kernel", s.kernel.string()},
         {"spec", s.spec ? json(s.spec->string()) : json(nullptr)},
         {"dims", s.dims},
         {"settings",
          {{"iterations", s.settings.iterations}, {"branches", s.settings.branches},
           {"finalists", s.settings.finalists}, {"min_effect", s.settings.min_effect},
           {"timed_case", s.settings.timed_case}, {"seeds", s.settings.seeds},
           {"retries", s.settings.retries}}},
         {"created", s.created},
         {"init_wall_s", s.init_wall_s},
         {"init_stages_s", s.init_stages_s},
         {"baseline", s.baseline},
         {"baseline_median_s", s.baseline_median_s},
         {"reference_median_s", s.reference_median_s ? json(*s.reference_median_s) : json(nullptr)},
         {"best", s.best},
         {"best_iteration", s.best_iteration},
         {"best_median_s", s.best_median_s},
         {"current", s.current},
         {"iterations", iterations},
         {"finished", s.finished},
         {"stop_reason", s.stop_reason},
         {"gpus", s.gpus}};
}

void from_json(const json& in, RunState& s) {
  s.kernel = in.at("kernel").get<std::string>();
  if (!in.at("spec").is_null()) s.spec = in["spec"].get<std::string>();
  s.dims = in.value("dims", std::vector<std::string>{});
  const json& settings = in.at("settings");
  s.settings = {.iterations = settings.at("iterations"), .branches = settings.at("branches"),
                .finalists = settings.at("finalists"), .min_effect = settings.at("min_effect"),
                .timed_case = settings.at("timed_case"), .seeds = settings.value("seeds", 3),
                .retries = settings.value("retries", catalog::kDefaultRetriesPerMethod)};
  s.created = in.at("created");
  s.init_wall_s = in.value("init_wall_s", 0.0);
  s.init_stages_s = in.value("init_stages_s", std::map<std::string, double>{});
  s.baseline = in.at("baseline").get<Variant>();
  s.baseline_median_s = in.at("baseline_median_s");
  if (!in.at("reference_median_s").is_null()) s.reference_median_s = in["reference_median_s"].get<double>();
  s.best = in.at("best").get<Variant>();
  s.best_iteration = in.at("best_iteration");
  s.best_median_s = in.at("best_median_s");
  s.current = in.at("current");
  s.iterations.clear();
  for (const json& it : in.at("iterations")) {
    s.iterations.push_back({.index = it.at("index"), .status = it.at("status"), .verdict = it.at("verdict"),
                            .champion = it.at("champion"), .best_median_s = it.at("best_median_s"),
                            .wall_s = it.value("wall_s", 0.0)});
  }
  s.finished = in.at("finished");
  s.stop_reason = in.at("stop_reason");
  s.gpus = in.value("gpus", json::array());
}

std::optional<double> time_to_first_improvement(const RunState& state) {
  double spent = state.init_wall_s;
  for (const IterationState& it : state.iterations) {
    spent += it.wall_s;
    if (it.verdict == "advanced") return spent;
  }
  return std::nullopt;
}

fs::path RunFolder::absolute(const fs::path& stored) const { return stored.is_absolute() ? stored : root_ / stored; }

fs::path RunFolder::relative(const fs::path& path) const {
  const fs::path rel = resolved_path(fs::absolute(path)).lexically_relative(resolved_path(fs::absolute(root_)));
  return rel.empty() || *rel.begin() == ".." ? path : rel;
}

Variant RunFolder::resolved(Variant variant) const {
  variant.kernel = absolute(variant.kernel);
  return variant;
}

json read_json(const fs::path& path) {
  if (!path_exists(path)) throw input_error("{}: missing", path.string());
  try {
    return json::parse(read_file(path));
  } catch (const json::parse_error& e) {
    throw input_error("{}: not valid JSON: {}", path.string(), e.what());
  }
}

void write_json(const fs::path& path, const json& document) { write_file_atomic(path, document.dump(2) + "\n"); }

namespace {

// A path as state.json keeps it: relative to the run folder, so that a run moved together
// with its kernel's folder (or a workspace holding both) still finds it.
fs::path relative_to(const fs::path& path, const fs::path& root) {
  if (!path.is_absolute()) return path;
  const fs::path rel = path.lexically_normal().lexically_relative(fs::absolute(root).lexically_normal());
  return rel.empty() ? path : rel;
}

// A path read from state.json: one relative to the run folder made absolute; an absolute
// one (a run written by a kopt before 2026-12) as it is.
fs::path resolved_from(const fs::path& stored, const fs::path& root) {
  return stored.is_absolute() ? stored : (fs::absolute(root) / stored).lexically_normal();
}

}  // namespace

std::string kernel_file_like(const fs::path& kernel) {
  return spec::is_python_kernel(kernel) ? "kernel.py" : "kernel.cu";
}

void require_inputs(const RunState& state) {
  if (state.spec && !path_exists(*state.spec)) {
    throw input_error("{}: the run's spec is missing (state.json leads here, relative to the run folder): move the "
                      "kernel's folder along with the run", state.spec->string());
  }
}

std::optional<spec::CaseWork> timed_case_work(const RunState& state) {
  if (!state.dims.empty()) return std::nullopt;
  try {
    const spec::Problem problem = spec::load_problem(state.kernel, state.spec, {});
    const spec::BoundCase* timed = state.settings.timed_case.empty() ? &problem.cases.front()
                                                                     : problem.find_case(state.settings.timed_case);
    if (timed == nullptr) return std::nullopt;
    return spec::case_work(problem.spec, *timed);
  } catch (const std::exception&) {
    return std::nullopt;  // a reader of the run goes on without the work
  }
}

RunState RunFolder::load() const {
  if (!exists()) throw input_error("{}: not a kopt run (no state.json); start one with kopt init", root_.string());
  const json document = read_json(state_file());
  if (!document.is_object() || document.value("schema", "") != kStateSchema) {
    throw input_error("{}: schema is not {}", state_file().string(), kStateSchema);
  }
  RunState state;
  try {
    state = document.get<RunState>();
  } catch (const json::exception& e) {
    throw input_error("{}: malformed: {}", state_file().string(), e.what());
  }
  state.kernel = resolved_from(state.kernel, root_);
  if (state.spec) state.spec = resolved_from(*state.spec, root_);
  return state;
}

void RunFolder::save(const RunState& state) const {
  RunState stored = state;
  stored.kernel = relative_to(state.kernel, root_);
  if (state.spec) stored.spec = relative_to(*state.spec, root_);
  write_json(state_file(), stored);
}

std::vector<std::string> branch_names(const RunFolder& run, int iteration) {
  std::vector<std::string> names;
  const fs::path dir = run.branches(iteration);
  for (const fs::path& entry : folder_entries(dir)) {
    if (is_folder(entry)) names.push_back(entry.filename().string());
  }
  // Natural order: by length, then text, so b2 comes before b10.
  std::ranges::sort(names, [](const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() < b.size() : a < b;
  });
  return names;
}

fs::path RunFolder::kept_path(const fs::path& path) const { return relative_to(fs::absolute(path), root_); }

fs::path RunFolder::found_path(const fs::path& kept) const { return resolved_from(kept, root_); }

}  // namespace kopt::loop
