#include "kopt/workload/workload_spec.hpp"

#include <algorithm>
#include <regex>
#include <set>

#include "kopt/core/error.hpp"
#include "kopt/core/file_queries.hpp"
#include "kopt/core/files.hpp"
#include "kopt/spec/toml_fields.hpp"
#include "kopt/workload/arm_environment.hpp"

namespace kopt::workload {
namespace {

using spec::TomlFields;

const std::vector<std::string_view> kTopKeys = {"name",   "command",     "timeout",     "inputs",   "metric",
                                                "metrics", "constraints", "tail",       "accuracy", "original",
                                                "candidates", "measure",  "prediction"};
const std::vector<std::string_view> kMetricKeys = {"name", "json_key", "pattern", "direction", "min_effect"};
const std::vector<std::string_view> kConstraintKeys = {"name", "json_key", "pattern", "direction", "max_worse"};
const std::vector<std::string_view> kTailKeys = {"json_key", "pattern", "percentiles", "direction"};
const std::vector<std::string_view> kAccuracyKeys = {"output", "dtype", "atol", "rtol", "command"};
const std::vector<std::string_view> kArmKeys = {"name", "env"};
const std::vector<std::string_view> kMeasureKeys = {"warmup_runs", "resolution_runs", "min_rounds", "max_rounds",
                                                    "audit_rounds", "level", "budget_minutes"};
const std::vector<std::string_view> kPredictionKeys = {"trace", "kernels", "kernel_speedup", "candidate"};
const std::vector<std::string_view> kRawDtypes = {"float32", "float16", "float64", "int32", "int64", "uint8"};

// The reader's helpers beyond TomlFields: numbers with bounds, and the tables workload.toml has.
class Reader {
 public:
  explicit Reader(const TomlFields& fields) : fields_(fields) {}

  double number(const toml::table& table, std::string_view key, double fallback, double low, double high) const {
    const toml::node* node = table.get(key);
    if (node == nullptr) return fallback;
    std::optional<spec::Number> value = TomlFields::number_at(*node);
    if (!value) throw fields_.failure(*node, fmt::format("{} must be a number, not {}", key, spec::toml_type_name(*node)));
    const double x = spec::to_double(*value);
    if (!(x >= low && x <= high)) throw fields_.failure(*node, fmt::format("{} must be in [{}, {}], not {}", key, low, high, x));
    return x;
  }

  int integer(const toml::table& table, std::string_view key, int fallback, int low, int high) const {
    const toml::node* node = table.get(key);
    if (node == nullptr) return fallback;
    std::optional<std::int64_t> value = node->value_exact<std::int64_t>();
    if (!value) throw fields_.failure(*node, fmt::format("{} must be an integer, not {}", key, spec::toml_type_name(*node)));
    if (*value < low || *value > high) {
      throw fields_.failure(*node, fmt::format("{} must be in [{}, {}], not {}", key, low, high, *value));
    }
    return static_cast<int>(*value);
  }

  std::string text(const toml::table& table, std::string_view key, std::string fallback = {}) const {
    return table.contains(key) ? fields_.string_at(table, key) : fallback;
  }

  std::vector<std::string> texts(const toml::table& table, std::string_view key, std::string_view where) const {
    const toml::node* node = table.get(key);
    return node == nullptr ? std::vector<std::string>{} : fields_.strings_at(*node, where);
  }

  const toml::table* table(const toml::table& parent, std::string_view key) const {
    return parent.contains(key) ? &fields_.table_at(parent, key) : nullptr;
  }

  // An array of tables ([[constraints]]), each checked for `known` keys.
  std::vector<const toml::table*> tables(const toml::table& parent, std::string_view key,
                                         const std::vector<std::string_view>& known) const {
    std::vector<const toml::table*> out;
    const toml::node* node = parent.get(key);
    if (node == nullptr) return out;
    const toml::array* array = node->as_array();
    if (array == nullptr || !array->is_homogeneous(toml::node_type::table)) {
      throw fields_.failure(*node, fmt::format("{} must be an array of tables ([[{}]])", key, key));
    }
    for (const toml::node& element : *array) {
      fields_.reject_unknown_keys(*element.as_table(), fmt::format("[[{}]]", key), known);
      out.push_back(element.as_table());
    }
    return out;
  }

  Direction direction(const toml::table& table) const {
    const std::string name = text(table, "direction", "lower");
    if (name == "lower") return Direction::lower;
    if (name == "higher") return Direction::higher;
    throw fields_.failure(*table.get("direction"), fmt::format("direction must be \"lower\" or \"higher\", not \"{}\"", name));
  }

  MetricSource source(const toml::table& table, std::string_view where) const {
    MetricSource source{text(table, "json_key"), text(table, "pattern")};
    if (source.json_key.empty() == source.pattern.empty()) {
      throw fields_.failure(table.source().begin.line,
                            fmt::format("{} needs exactly one of json_key (a JSON line on standard output) or pattern "
                                        "(a regular expression with one capture group)", where));
    }
    if (!source.pattern.empty()) check_pattern(table, source.pattern);
    return source;
  }

  std::vector<std::pair<std::string, std::string>> env(const toml::table& arm) const {
    std::vector<std::pair<std::string, std::string>> out;
    const toml::table* table = this->table(arm, "env");
    if (table == nullptr) return out;
    for (const spec::TomlEntry& entry : spec::in_spec_order(*table)) {
      if (!std::regex_match(entry.key, std::regex("[A-Za-z_][A-Za-z0-9_]*"))) {
        throw fields_.failure(entry.line, fmt::format("env: \"{}\" is not a variable name", entry.key));
      }
      std::optional<std::string> value = entry.node->value_exact<std::string>();
      if (!value) throw fields_.failure(entry.line, fmt::format("env.{} must be a string", entry.key));
      out.emplace_back(entry.key, *value);
    }
    return out;
  }

  const TomlFields& fields() const { return fields_; }

 private:
  void check_pattern(const toml::table& table, const std::string& pattern) const {
    try {
      if (std::regex(pattern).mark_count() < 1) {
        throw fields_.failure(*table.get("pattern"), "pattern needs a capture group around the number: (...)");
      }
    } catch (const std::regex_error& error) {
      throw fields_.failure(*table.get("pattern"), fmt::format("pattern is not a regular expression: {}", error.what()));
    }
  }

  const TomlFields& fields_;
};

MetricRule metric_rule(const Reader& reader, const toml::table& table, std::string_view where) {
  return {reader.fields().string_at(table, "name"), reader.source(table, where), reader.direction(table)};
}

void read_primary(const Reader& reader, const toml::table& root, WorkloadSpec& spec) {
  if (!root.contains("metric")) {
    throw reader.fields().failure(1, "missing [metric]: the primary metric (name, json_key or pattern, direction, min_effect)");
  }
  const toml::table& table = reader.fields().table_at(root, "metric");
  reader.fields().reject_unknown_keys(table, "[metric]", kMetricKeys);
  spec.primary = metric_rule(reader, table, "[metric]");
  spec.min_effect = reader.number(table, "min_effect", 0.02, 0.001, 0.5);
}

void read_secondaries(const Reader& reader, const toml::table& root, WorkloadSpec& spec) {
  for (const toml::table* table : reader.tables(root, "metrics", kMetricKeys)) {
    spec.secondaries.push_back(metric_rule(reader, *table, "[[metrics]]"));
  }
  for (const toml::table* table : reader.tables(root, "constraints", kConstraintKeys)) {
    Constraint constraint;
    constraint.max_worse = reader.number(*table, "max_worse", 0, 0, 10);
    if (!table->contains("json_key") && !table->contains("pattern")) {
      // A constraint on a metric read elsewhere (a tail percentile, a [[metrics]] entry).
      constraint.metric = {reader.fields().string_at(*table, "name"), {}, reader.direction(*table)};
    } else {
      constraint.metric = metric_rule(reader, *table, "[[constraints]]");
    }
    spec.constraints.push_back(std::move(constraint));
  }
}

void read_tail(const Reader& reader, const toml::table& root, WorkloadSpec& spec) {
  const toml::table* table = reader.table(root, "tail");
  if (table == nullptr) return;
  reader.fields().reject_unknown_keys(*table, "[tail]", kTailKeys);
  TailRule tail{reader.source(*table, "[tail]"), {50, 99}, reader.direction(*table)};
  if (tail.source.json_key.empty()) {
    throw reader.fields().failure(*table->get("pattern"), "[tail] is read as a JSON array of numbers: give json_key, not pattern");
  }
  if (const toml::node* node = table->get("percentiles")) {
    tail.percentiles.clear();
    const toml::array* array = node->as_array();
    if (array == nullptr || array->empty()) throw reader.fields().failure(*node, "percentiles must be a non-empty array");
    for (const toml::node& element : *array) {
      std::optional<spec::Number> value = TomlFields::number_at(element);
      if (!value || spec::to_double(*value) <= 0 || spec::to_double(*value) >= 100) {
        throw reader.fields().failure(element, "each percentile must be a number in (0, 100)");
      }
      tail.percentiles.push_back(spec::to_double(*value));
    }
  }
  spec.tail = std::move(tail);
}

void read_accuracy(const Reader& reader, const toml::table& root, WorkloadSpec& spec) {
  const toml::table* table = reader.table(root, "accuracy");
  if (table == nullptr) return;
  reader.fields().reject_unknown_keys(*table, "[accuracy]", kAccuracyKeys);
  AccuracyGate gate;
  gate.output = reader.text(*table, "output");
  gate.dtype = reader.text(*table, "dtype");
  gate.atol = reader.number(*table, "atol", 0, 0, 1e30);
  gate.rtol = reader.number(*table, "rtol", 0, 0, 1e30);
  gate.command = reader.texts(*table, "command", "[accuracy] command");
  const int line = static_cast<int>(table->source().begin.line);
  if (gate.output.empty() && gate.command.empty()) {
    throw reader.fields().failure(line, "[accuracy] needs output (a file the workload writes) or command (a gate to run), or both");
  }
  if (!gate.command.empty() && gate.output.empty()) {
    throw reader.fields().failure(line, "[accuracy] command compares two outputs: name the file the workload writes (output)");
  }
  const bool npy = gate.output.ends_with(".npy");
  if (!gate.output.empty() && !npy && gate.command.empty() && std::ranges::find(kRawDtypes, gate.dtype) == kRawDtypes.end()) {
    throw reader.fields().failure(line, fmt::format("[accuracy] output {} is not .npy: say its dtype (one of float32, float16, "
                                                    "float64, int32, int64, uint8)", gate.output));
  }
  spec.accuracy = std::move(gate);
}

Arm read_arm(const Reader& reader, const toml::table& table, std::string fallback_name) {
  return {reader.text(table, "name", std::move(fallback_name)), reader.env(table),
          static_cast<int>(table.source().begin.line)};
}

// An arm's environment selects its code, never another GPU, a debugging mode, an injected
// library or a Python start-up hook (data/workload_env.toml): such a difference would be
// measured as the candidate's gain.
void check_arm_environments(const Reader& reader, const WorkloadSpec& spec) {
  const auto problem = arm_environment_problem(spec.original, spec.candidates, load_arm_environment_rules(), spec.folder);
  if (problem) throw reader.fields().failure(problem->arm->line, problem->text);
}

void read_arms(const Reader& reader, const toml::table& root, WorkloadSpec& spec) {
  if (const toml::table* table = reader.table(root, "original")) {
    reader.fields().reject_unknown_keys(*table, "[original]", kArmKeys);
    spec.original = read_arm(reader, *table, "original");
  }
  std::set<std::string> names = {spec.original.name};
  for (const toml::table* table : reader.tables(root, "candidates", kArmKeys)) {
    Arm arm = read_arm(reader, *table, "");
    if (arm.name.empty()) throw reader.fields().failure(table->source().begin.line, "[[candidates]] needs a name");
    if (!names.insert(arm.name).second) {
      throw reader.fields().failure(table->source().begin.line, fmt::format("two arms are called \"{}\"", arm.name));
    }
    spec.candidates.push_back(std::move(arm));
  }
  if (spec.candidates.empty()) {
    throw reader.fields().failure(1, "no [[candidates]]: name at least one, with the environment variables that select it");
  }
  check_arm_environments(reader, spec);
}

void read_measure(const Reader& reader, const toml::table& root, WorkloadSpec& spec) {
  const toml::table* table = reader.table(root, "measure");
  if (table == nullptr) return;
  reader.fields().reject_unknown_keys(*table, "[measure]", kMeasureKeys);
  MeasureSettings& m = spec.measure;
  m.warmup_runs = reader.integer(*table, "warmup_runs", m.warmup_runs, 0, 100);
  m.resolution_runs = reader.integer(*table, "resolution_runs", m.resolution_runs, 3, 1000);
  m.min_rounds = reader.integer(*table, "min_rounds", m.min_rounds, 5, 10000);
  m.max_rounds = reader.integer(*table, "max_rounds", m.max_rounds, m.min_rounds, 10000);
  m.audit_rounds = reader.integer(*table, "audit_rounds", std::max(m.audit_rounds, m.min_rounds), m.min_rounds, 10000);
  m.level = reader.number(*table, "level", m.level, 0.5, 0.999);
  m.budget_minutes = reader.number(*table, "budget_minutes", 0, 0, 1e6);
}

void read_prediction(const Reader& reader, const toml::table& root, WorkloadSpec& spec) {
  const toml::table* table = reader.table(root, "prediction");
  if (table == nullptr) return;
  reader.fields().reject_unknown_keys(*table, "[prediction]", kPredictionKeys);
  Prediction prediction;
  prediction.trace = reader.fields().string_at(*table, "trace");
  prediction.kernels = reader.texts(*table, "kernels", "[prediction] kernels");
  if (prediction.kernels.empty()) {
    throw reader.fields().failure(*table, "[prediction] kernels must name (by substring) the kernels the candidate replaces");
  }
  prediction.kernel_speedup = reader.number(*table, "kernel_speedup", 0, 1e-6, 1e9);
  if (prediction.kernel_speedup == 0) throw reader.fields().failure(*table, "[prediction] needs kernel_speedup (kopt's verdict)");
  prediction.candidate = reader.text(*table, "candidate", spec.candidates.front().name);
  if (std::ranges::none_of(spec.candidates, [&](const Arm& arm) { return arm.name == prediction.candidate; })) {
    throw reader.fields().failure(*table, fmt::format("[prediction] candidate \"{}\" is no [[candidates]] name", prediction.candidate));
  }
  spec.prediction = std::move(prediction);
}

// A constraint must name a metric some run will report.
void check_constraint_names(const Reader& reader, const WorkloadSpec& spec) {
  std::set<std::string> known = {spec.primary.name};
  for (const MetricRule& rule : spec.secondaries) known.insert(rule.name);
  if (spec.tail) {
    for (double p : spec.tail->percentiles) known.insert(fmt::format("p{:g}", p));
  }
  for (const Constraint& c : spec.constraints) {
    if (c.metric.source.json_key.empty() && c.metric.source.pattern.empty() && !known.contains(c.metric.name)) {
      std::string names;
      for (const std::string& name : known) names += (names.empty() ? "" : ", ") + name;
      throw reader.fields().failure(1, fmt::format("constraint \"{}\" names no metric (known: {}); give it a json_key or "
                                                   "pattern", c.metric.name, names));
    }
  }
}

}  // namespace

std::string_view direction_name(Direction direction) { return direction == Direction::lower ? "lower" : "higher"; }

WorkloadSpec parse_workload_spec(std::string_view text, const std::filesystem::path& file) {
  const TomlFields fields(file.string());
  toml::table root;
  try {
    root = toml::parse(text, file.string());
  } catch (const toml::parse_error& error) {
    throw input_error("{}:{}: {}", file.string(), error.source().begin.line, error.description());
  }
  fields.reject_unknown_keys(root, "", kTopKeys);
  const Reader reader(fields);
  WorkloadSpec spec;
  spec.file = file;
  spec.folder = file.parent_path().empty() ? std::filesystem::path(".") : file.parent_path();
  spec.name = reader.text(root, "name", spec.folder.filename().string());
  if (!root.contains("command")) throw fields.failure(1, "missing command: the workload's argv, e.g. [\"python3\", \"run.py\"]");
  spec.command = fields.strings_at(*root.get("command"), "command");
  if (spec.command.empty()) throw fields.failure(*root.get("command"), "command must not be empty");
  spec.timeout_seconds = reader.number(root, "timeout", 600, 1, 86400);
  spec.inputs = reader.texts(root, "inputs", "inputs");
  read_primary(reader, root, spec);
  read_secondaries(reader, root, spec);
  read_tail(reader, root, spec);
  read_accuracy(reader, root, spec);
  read_arms(reader, root, spec);
  read_measure(reader, root, spec);
  read_prediction(reader, root, spec);
  check_constraint_names(reader, spec);
  return spec;
}

WorkloadSpec read_workload_spec(const std::filesystem::path& path) {
  const std::filesystem::path file = is_folder(path) ? path / "workload.toml" : path;
  if (is_folder(path) && !is_file(file)) throw input_error("{}: no workload.toml in this folder", path.string());
  return parse_workload_spec(read_file(file), file);
}

}  // namespace kopt::workload
