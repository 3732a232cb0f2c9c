#include "kopt/loop/experiment_record.hpp"

#include "kopt/core/error.hpp"
#include "kopt/core/file_queries.hpp"
#include "kopt/core/files.hpp"

namespace kopt::loop {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

std::string text_field(const json& doc, const char* key, const fs::path& file) {
  if (!doc.contains(key) || !doc[key].is_string()) {
    throw input_error("{}: \"{}\" must be a text (kopt.experiment/1: hypothesis, expected_gain_percent, cost)",
                      file.string(), key);
  }
  std::string value = doc[key].get<std::string>();
  if (value.find_first_not_of(" \t\n") == std::string::npos) {
    throw input_error("{}: \"{}\" is empty: say it in a sentence", file.string(), key);
  }
  return value;
}

}  // namespace

ExperimentRecord read_experiment_record(const fs::path& branch_dir) {
  const fs::path file = branch_dir / kExperimentFile;
  if (!path_exists(file)) {
    throw input_error("{}: missing: each branch needs its experiment record (hypothesis, expected_gain_percent, cost)",
                      file.string());
  }
  const json doc = read_json(file);
  if (!doc.is_object()) throw input_error("{}: must be a JSON object (kopt.experiment/1)", file.string());
  if (doc.contains("schema") && doc["schema"] != kExperimentSchema) {
    throw input_error("{}: schema {} is not {}", file.string(), doc["schema"].dump(), kExperimentSchema);
  }
  ExperimentRecord record{.hypothesis = text_field(doc, "hypothesis", file), .cost = text_field(doc, "cost", file)};
  const json gain = doc.value("expected_gain_percent", json());
  if (!gain.is_array() || gain.size() != 2 || !gain[0].is_number() || !gain[1].is_number()) {
    throw input_error("{}: \"expected_gain_percent\" must be [low, high], in percent faster than the best", file.string());
  }
  record.expected_gain_low = gain[0].get<double>();
  record.expected_gain_high = gain[1].get<double>();
  if (record.expected_gain_low > record.expected_gain_high) {
    throw input_error("{}: \"expected_gain_percent\" [{}, {}]: the low end is above the high end", file.string(),
                      record.expected_gain_low, record.expected_gain_high);
  }
  return record;
}

std::optional<ExperimentRecord> experiment_record_if_any(const fs::path& branch_dir) {
  try {
    return read_experiment_record(branch_dir);
  } catch (const Error&) {
    return std::nullopt;
  }
}

void require_experiment_records(const RunFolder& run) {
  const RunState state = run.load();
  if (state.finished) return;
  const int i = state.current;
  if (state.iterations.at(static_cast<std::size_t>(i - 1)).status == "closed") return;
  if (path_exists(run.iteration(i) / "screen.json")) return;  // measured already: a resumed close
  for (const std::string& name : branch_names(run, i)) read_experiment_record(run.branches(i) / name);
}

}  // namespace kopt::loop
