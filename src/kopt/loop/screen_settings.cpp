#include "kopt/loop/screen_settings.hpp"

#include "kopt/core/error.hpp"
#include "kopt/spec/data_file.hpp"

namespace kopt::loop {

namespace {

constexpr const char* kFile = "data/screen.toml";

const toml::table& section(const toml::table& root, const char* name, const std::vector<std::string_view>& known) {
  const toml::table* table = root[name].as_table();
  if (table == nullptr) throw input_error("{}: missing [{}]", kFile, name);
  if (auto unknown = spec::first_unknown_key(*table, known)) {
    throw input_error("{}: [{}]: {}", kFile, name, spec::unknown_key_text(*unknown, known));
  }
  return *table;
}

template <typename T>
T number(const toml::table& table, const char* section_name, const char* key) {
  const std::optional<T> value = table[key].value<T>();
  if (!value || *value <= 0) throw input_error("{}: [{}] {} must be a positive number", kFile, section_name, key);
  return *value;
}

ScreenSettings load() {
  const toml::table root = spec::load_data_file(kFile);
  const std::vector<std::string_view> top = {"schema_version", "first_look", "promote", "budget"};
  if (auto unknown = spec::first_unknown_key(root, top)) throw input_error("{}: {}", kFile, spec::unknown_key_text(*unknown, top));
  const toml::table& look = section(root, "first_look", {"seed", "min_samples", "target_half_width", "max_seconds",
                                                         "max_calls_per_sample"});
  const toml::table& promote = section(root, "promote", {"within", "finalists_factor"});
  const toml::table& budget = section(root, "budget", {"branches_per_minute"});
  return {.first_look_seed = static_cast<std::uint64_t>(number<std::int64_t>(look, "first_look", "seed")),
          .first_look_min_samples = static_cast<int>(number<std::int64_t>(look, "first_look", "min_samples")),
          .first_look_half_width = number<double>(look, "first_look", "target_half_width"),
          .first_look_max_seconds = number<double>(look, "first_look", "max_seconds"),
          .first_look_max_calls_per_sample = static_cast<int>(number<std::int64_t>(look, "first_look", "max_calls_per_sample")),
          .promote_within = number<double>(promote, "promote", "within"),
          .promote_finalists_factor = static_cast<int>(number<std::int64_t>(promote, "promote", "finalists_factor")),
          .branches_per_minute = number<double>(budget, "budget", "branches_per_minute")};
}

}  // namespace

const ScreenSettings& screen_settings() {
  static const ScreenSettings settings = load();
  return settings;
}

}  // namespace kopt::loop
