#include "kopt/export/torch_manifest.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "kopt/core/error.hpp"

namespace kopt::exporting {
namespace {

using nlohmann::json;

json number_json(const spec::Number& value) {
  if (const auto* integer = std::get_if<std::int64_t>(&value)) return *integer;
  return std::get<double>(value);
}

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t");
  const auto last = text.find_last_not_of(" \t");
  return first == std::string::npos ? "" : text.substr(first, last - first + 1);
}

const spec::BufferSpec* buffer_spec(const spec::ProblemSpec& spec, const std::string& name) {
  const auto found = spec.buffers.find(name);
  return found == spec.buffers.end() ? nullptr : &found->second;
}

// The caller hands these over: inputs and in-out buffers (whose values solve reads).
bool caller_gives(const spec::KernelParam& param, const spec::ProblemSpec& spec) {
  const std::string role = parameter_role(param, spec);
  return role == "input" || role == "in-out";
}

// The dims in the order a reader meets them: each buffer's shape, then the scalars.
std::vector<std::string> dim_names(const spec::Problem& problem) {
  std::vector<std::string> names;
  auto add = [&](const std::string& name) {
    if (std::ranges::find(names, name) == names.end()) names.push_back(name);
  };
  for (const spec::KernelParam& param : problem.signature.params) {
    if (param.is_scalar()) {
      add(param.name);
      continue;
    }
    for (const std::string& text : shape_expressions(param, problem)) {
      for (const std::string& name : spec::Expression::parse(text).names()) add(name);
    }
  }
  return names;
}

// The first input (or in-out buffer) with an axis that is `name` alone.
json inferred_from(const std::string& name, const spec::Problem& problem) {
  for (const spec::KernelParam& param : problem.signature.params) {
    if (param.is_scalar() || !caller_gives(param, problem.spec)) continue;
    const std::vector<std::string> shape = shape_expressions(param, problem);
    for (std::size_t axis = 0; axis < shape.size(); ++axis) {
      if (trimmed(shape[axis]) == name) return {{"buffer", param.name}, {"axis", axis}};
    }
  }
  return nullptr;
}

// The value every case gives `name`; null when the cases differ (or give none).
json common_value(const std::string& name, const spec::Problem& problem) {
  json value = nullptr;
  for (const spec::BoundCase& bound : problem.cases) {
    const auto found = bound.dims.find(name);
    if (found == bound.dims.end()) return nullptr;
    const json here = number_json(found->second);
    if (!value.is_null() && value != here) return nullptr;
    value = here;
  }
  return value;
}

json dim_entry(const std::string& name, const spec::Problem& problem) {
  const spec::KernelParam* param = problem.signature.find(name);
  const bool parameter = param != nullptr && param->is_scalar();
  const json fixed = parameter ? json(nullptr) : common_value(name, problem);
  bool floating = parameter && param->dtype->is_floating();
  if (!parameter && !problem.cases.empty()) {
    const auto found = problem.cases.front().dims.find(name);
    floating = found != problem.cases.front().dims.end() && std::holds_alternative<double>(found->second);
  }
  return {{"name", name},
          {"type", floating ? "float" : "int"},
          {"parameter", parameter},
          {"from", floating ? json(nullptr) : inferred_from(name, problem)},
          {"fixed", fixed}};
}

json parameter_entry(const spec::KernelParam& param, const spec::Problem& problem) {
  const std::string role = parameter_role(param, problem.spec);
  json entry = {{"name", param.name},
                {"role", role},
                {"dtype", param.dtype->name},
                {"torch_dtype", param.dtype->torch_name},
                {"c_type", param.declaration}};
  if (role == "scalar") {
    entry["dim"] = param.name;
    return entry;
  }
  entry["shape"] = shape_expressions(param, problem);
  const spec::BufferSpec* given = buffer_spec(problem.spec, param.name);
  entry["zero_init"] = role == "output" && (problem.spec.seed_task || (given != nullptr && given->init));
  if (role != "input" && !problem.cases.empty()) {
    for (const spec::BoundArg& arg : problem.cases.front().args) {
      if (arg.buffer && arg.buffer->name == param.name) {
        entry["tolerance"] = {{"atol", arg.buffer->tolerance.atol}, {"rtol", arg.buffer->tolerance.rtol}};
      }
    }
  }
  return entry;
}

json cases_json(const spec::Problem& problem, const std::vector<std::string>& dims) {
  json cases = json::array();
  for (const spec::BoundCase& bound : problem.cases) {
    json values = json::object();
    for (const std::string& name : dims) {
      if (const auto found = bound.dims.find(name); found != bound.dims.end()) values[name] = number_json(found->second);
    }
    cases.push_back({{"name", bound.name}, {"dims", values}});
  }
  return cases;
}

json source_json(const spec::Problem& problem, const ExportedBuild& build) {
  return {{"kernel", problem.spec.kernel.string()},
          {"spec", problem.spec.spec_file ? json(problem.spec.spec_file->string()) : json(nullptr)},
          {"digest", build.source_digest},
          {"run", build.run ? json(build.run->string()) : json(nullptr)},
          {"variant", build.variant.empty() ? json(nullptr) : json(build.variant)}};
}

}  // namespace

std::string parameter_role(const spec::KernelParam& param, const spec::ProblemSpec& spec) {
  if (param.is_scalar()) return "scalar";
  if (param.is_input_buffer()) return "input";
  const spec::BufferSpec* given = buffer_spec(spec, param.name);
  const bool in_out = given != nullptr && given->init && given->init->kind() != spec::InitKind::zeros;
  return in_out ? "in-out" : "output";
}

std::vector<std::string> shape_expressions(const spec::KernelParam& param, const spec::Problem& problem) {
  const spec::BufferSpec* given = buffer_spec(problem.spec, param.name);
  if (given != nullptr && !given->shape.empty()) {
    std::vector<std::string> texts;
    for (const spec::Expression& extent : given->shape) texts.push_back(extent.text());
    return texts;
  }
  std::vector<const spec::KernelParam*> sizes;
  for (const spec::KernelParam& other : problem.signature.params) {
    if (other.is_scalar() && !other.dtype->is_floating()) sizes.push_back(&other);
  }
  if (sizes.size() == 1 && !problem.spec.seed_task) return {sizes.front()->name};
  throw input_error("cannot export buffer {}: its size is no shape a caller's tensor can follow; give [buffers.{}] "
                    "shape = \"...\" in kopt.toml", param.name, param.name);
}

json manifest_dims(const spec::Problem& problem) {
  json dims = json::array();
  for (const std::string& name : dim_names(problem)) dims.push_back(dim_entry(name, problem));
  return dims;
}

json torch_manifest(const spec::Problem& problem, const std::string& name, const ExportedBuild& build) {
  json parameters = json::array();
  for (const spec::KernelParam& param : problem.signature.params) parameters.push_back(parameter_entry(param, problem));
  const json dims = manifest_dims(problem);
  std::vector<std::string> dim_list;
  for (const json& dim : dims) dim_list.push_back(dim["name"]);
  json defines = json::array();
  for (const auto& [define, value] : build.defines) defines.push_back({define, value});
  const bool cuda = build.kind == "cuda";
  return {{"schema", kTorchManifestSchema},
          {"op", name},
          {"qualified_name", "kopt::" + name},
          {"kind", build.kind},
          {"entry", problem.signature.entry},
          {"library", cuda ? json(build.file) : json(nullptr)},
          {"kernel_py", cuda ? json(nullptr) : json(build.file)},
          {"arch", build.arch.empty() ? json(nullptr) : json(build.arch)},
          {"nvcc", cuda ? json{{"version", build.nvcc_version}, {"command", build.nvcc_command}} : json(nullptr)},
          {"flags", build.flags},
          {"defines", defines},
          {"kopt_version", KOPT_VERSION},
          {"source", source_json(problem, build)},
          {"parameters", parameters},
          {"dims", dims},
          {"cases", cases_json(problem, dim_list)}};
}

void check_op_name(const std::string& name) {
  static const std::set<std::string> keywords = {
      "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
      "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda",
      "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield"};
  const auto word_character = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  const bool identifier =
      !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0])) && std::ranges::all_of(name, word_character);
  if (!identifier || keywords.contains(name)) {
    throw input_error("--name {}: an op's name is a Python identifier (letters, digits, _; not a keyword), as it is "
                      "imported by it", name.empty() ? "\"\"" : name);
  }
}

std::string op_name_of(const std::string& spec_name) {
  std::string name = spec_name;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  }
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) name = "op_" + name;
  return name;
}

}  // namespace kopt::exporting
