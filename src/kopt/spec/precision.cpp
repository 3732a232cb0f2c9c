#include "kopt/spec/precision.hpp"

#include <algorithm>
#include <set>

#include "kopt/core/embedded_files.hpp"
#include "kopt/core/error.hpp"
#include "kopt/spec/data_entry.hpp"
#include "kopt/spec/data_file.hpp"
#include "kopt/spec/kernel_signature.hpp"
#include "kopt/spec/toml.hpp"

namespace kopt::spec {
namespace {

constexpr std::string_view kPrecisionTableFile = "data/precisions.toml";

const DType* dtype_of(const DataEntry& entry, const std::string& name) {
  const DType* found = dtype_named(name);
  if (found == nullptr) throw entry.failure(fmt::format("\"{}\" is not a dtype of data/dtypes.toml", name));
  return found;
}

PrecisionPolicy read_policy(const DataEntry& entry) {
  entry.reject_unknown_keys({"name", "what", "compute", "rounds_like", "default_for"});
  PrecisionPolicy policy{.name = entry.string("name"), .what = entry.string("what"), .compute = entry.strings("compute")};
  if (policy.compute.empty()) throw entry.failure("\"compute\" must be a non-empty array of strings");
  if (auto rounds_like = entry.optional_string("rounds_like")) policy.rounds_like = dtype_of(entry, *rounds_like);
  // default_for may list nothing: a policy only a spec names.
  for (const std::string& name : entry.strings("default_for")) policy.default_for.push_back(dtype_of(entry, name));
  return policy;
}

// Every dtype must have exactly one default policy, or a problem's would depend on table order
// or be missing.
void check_one_default_each(const std::vector<PrecisionPolicy>& policies, std::string_view file_name) {
  std::set<std::string, std::less<>> names;
  for (const PrecisionPolicy& policy : policies) {
    if (!names.insert(policy.name).second) throw input_error("{}: precision \"{}\" is defined twice", file_name, policy.name);
  }
  for (const DType& dtype : all_dtypes()) {
    const auto lists = [&](const PrecisionPolicy& p) { return std::ranges::find(p.default_for, &dtype) != p.default_for.end(); };
    const auto count = std::ranges::count_if(policies, lists);
    if (count != 1) {
      throw input_error("{}: dtype \"{}\" is in the default_for of {} precisions; it must be in exactly one", file_name,
                        dtype.name, count);
    }
  }
}

std::string known_precision_names() {
  std::string names;
  for (const PrecisionPolicy& policy : all_precisions()) names += (names.empty() ? "" : ", ") + policy.name;
  return names;
}

}  // namespace

std::vector<PrecisionPolicy> parse_precision_table(std::string_view toml_text, std::string_view file_name) {
  const toml::table table = parse_data_file(toml_text, file_name);
  if (auto key = first_unknown_key(table, {"schema_version", "precision"})) {
    throw input_error("{}: {}", file_name, unknown_key_text(*key, {"schema_version", "precision"}));
  }
  const toml::array* entries = table["precision"].as_array();
  if (entries == nullptr || entries->empty()) throw input_error("{}: no [[precision]] entries", file_name);
  std::vector<PrecisionPolicy> policies;
  for (std::size_t index = 0; index < entries->size(); ++index) {
    const toml::node& node = *entries->get(index);
    std::string label = fmt::format("precision entry {}", index + 1);
    if (auto name = toml::node_view<const toml::node>(node)["name"].value<std::string>()) label += fmt::format(" (\"{}\")", *name);
    policies.push_back(read_policy(DataEntry(file_name, std::move(label), node)));
  }
  check_one_default_each(policies, file_name);
  return policies;
}

std::span<const PrecisionPolicy> all_precisions() {
  static const std::vector<PrecisionPolicy> policies = parse_precision_table(data_file(kPrecisionTableFile), kPrecisionTableFile);
  return policies;
}

const PrecisionPolicy& precision_named(std::string_view name) {
  for (const PrecisionPolicy& policy : all_precisions()) {
    if (policy.name == name) return policy;
  }
  throw input_error("unknown precision \"{}\" (known: {}; data/precisions.toml)", name, known_precision_names());
}

const PrecisionPolicy& default_precision(const KernelSignature& signature) {
  const DType* decides = nullptr;
  for (const KernelParam& param : signature.params) {
    if (!param.is_pointer || !param.dtype->is_floating()) continue;
    if (decides == nullptr || param.dtype->bytes < decides->bytes) decides = param.dtype;
  }
  for (const KernelParam& param : signature.params) {
    if (decides == nullptr && param.is_output_buffer()) decides = param.dtype;
  }
  if (decides == nullptr) return precision_named("fp32");  // no buffer at all: nothing is computed into memory
  for (const PrecisionPolicy& policy : all_precisions()) {
    if (std::ranges::find(policy.default_for, decides) != policy.default_for.end()) return policy;
  }
  throw input_error("data/precisions.toml: no precision is the default for {}", decides->name);  // check_one_default_each forbids it
}

std::pair<double, double> default_atol_rtol(const DType& dtype, const PrecisionPolicy& policy) {
  if (policy.rounds_like == nullptr || !dtype.is_floating()) return {dtype.default_atol, dtype.default_rtol};
  return {std::max(dtype.default_atol, policy.rounds_like->default_atol),
          std::max(dtype.default_rtol, policy.rounds_like->default_rtol)};
}

}  // namespace kopt::spec
