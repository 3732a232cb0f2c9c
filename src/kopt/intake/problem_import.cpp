#include "kopt/intake/problem_import.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include "kopt/core/file_queries.hpp"
#include "kopt/spec/toml.hpp"

#include <sstream>

#include "kopt/core/error.hpp"
#include "kopt/core/embedded_files.hpp"
#include "kopt/core/files.hpp"
#include "kopt/intake/block_scaled_reference.hpp"
#include "kopt/spec/problem_spec.hpp"
#include "kopt/spec/python_facts.hpp"

namespace kopt::intake {
namespace {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

// A TOML string or number as toml++ writes it (quoting and escapes are its business).
template <typename T>
std::string toml_value(const T& value) {
  std::ostringstream out;
  out << toml::value<T>(value);
  return out.str();
}

// Integers as integers; a real in its shortest exact form, always with a point or an
// exponent so that TOML reads it back as a float (1.0, not 1).
std::string toml_number(const ordered_json& number) {
  if (number.is_number_integer()) return toml_value<std::int64_t>(number.get<std::int64_t>());
  std::string text = fmt::format("{}", number.get<double>());
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

std::string dims_lines(const ordered_json& dims) {
  std::string lines;
  for (const auto& [dim, value] : dims.items()) lines += fmt::format("{} = {}\n", dim, toml_number(value));
  return lines;
}

std::string shape_toml(const ordered_json& shape) {
  std::vector<std::string> items;
  for (const ordered_json& extent : shape) items.push_back(toml_value<std::string>(extent.get<std::string>()));
  return shape.size() == 1 ? items[0] : fmt::format("[{}]", fmt::join(items, ", "));
}

std::string buffer_tables(const ordered_json& buffers) {
  std::string text;
  for (const auto& [name, buffer] : buffers.items()) {
    text += fmt::format("\n[buffers.{}]  # {}\nshape = {}\n", name, buffer["role"].get<std::string>(),
                        shape_toml(buffer["shape"]));
    if (buffer.contains("init")) text += fmt::format("init = {}\n", toml_value<std::string>(buffer["init"].get<std::string>()));
    if (buffer.contains("dtype")) text += fmt::format("dtype = {}\n", toml_value<std::string>(buffer["dtype"].get<std::string>()));
    // An output the suite compares exactly (integer counts, indices): no tolerance at all.
    if (buffer.value("exact", false)) text += "atol = 0.0\nrtol = 0.0\n";
  }
  return text;
}

// The least DRAM traffic of one call: every input read once, every output written once, an
// in-out buffer both.
std::string bytes_formula(const ordered_json& buffers) {
  std::string formula;
  for (const auto& [name, buffer] : buffers.items()) {
    std::vector<std::string> extents;
    for (const ordered_json& extent : buffer["shape"]) extents.push_back(fmt::format("({})", extent.get<std::string>()));
    const std::string elements = fmt::format("{}", fmt::join(extents, "*"));
    const int passes = buffer["role"] == "inout" ? 2 : 1;
    formula += fmt::format("{}{}*{}", formula.empty() ? "" : " + ", passes * buffer["element_bytes"].get<int>(), elements);
  }
  return formula;
}

// A case's own fills, where the suite's test fills an input otherwise than the performance test.
std::string case_init_line(const ordered_json& inits) {
  std::vector<std::string> items;
  for (const auto& [buffer, init] : inits.items()) {
    items.push_back(fmt::format("{} = {}", buffer, toml_value<std::string>(init.get<std::string>())));
  }
  return fmt::format("init = {{ {} }}\n", fmt::join(items, ", "));
}

std::string case_tables(const ordered_json& cases) {
  std::string text;
  for (const ordered_json& one : cases) {
    text += fmt::format("\n[[cases]]\nname = {}\n{}", toml_value<std::string>(one["name"].get<std::string>()),
                        dims_lines(one["dims"]));
    if (one.contains("init")) text += case_init_line(one["init"]);
  }
  return text;
}

// The stand-in for Tensara's `problem` module gives the two things a def.py takes from its base
// class: __init__(name=...) and the static get_seed (the seed only picks Tensara's inputs;
// kopt fills them itself).
constexpr const char* kTensaraReference = R"(# Written by `kopt import` from Tensara's def.py (beside this file): kopt's reference is the
# problem's reference_solution, called with the inputs in the solution's argument order; what
# it returns is the output.
import importlib.util
import os
import sys
import types

CLASS = {class_name}
INPUTS = [{inputs}]
_PROBLEM = []


def _install_problem_stand_in():
    try:
        import problem  # noqa: F401  Tensara's own base class, where it is installed
    except ImportError:
        class Problem:
            def __init__(self, name=None, **kwargs):
                self.name = name

            @staticmethod
            def get_seed(text):
                return 0

        stand_in = types.ModuleType("problem")
        stand_in.Problem = Problem
        sys.modules["problem"] = stand_in


def _problem():
    if not _PROBLEM:
        _install_problem_stand_in()
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "def.py")
        spec = importlib.util.spec_from_file_location("kopt_tensara_def", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _PROBLEM.append(getattr(module, CLASS)())
    return _PROBLEM[0]


def reference(**kwargs):
    return _problem().reference_solution(*[kwargs[name] for name in INPUTS])
)";

// What is written must load: a kopt.toml that kopt itself refuses would be a bug here.
void check_spec_loads(const std::string& spec_toml) {
  TempDir scratch("kopt-import");
  write_file_atomic(scratch.path() / "ref.py", "");
  write_file_atomic(scratch.path() / "kopt.toml", spec_toml);
  spec::load_problem_spec(scratch.path() / "kopt.toml", scratch.path() / "solution.cu");
}

}  // namespace

ProblemFormat problem_format_of(const fs::path& file, const std::string& named) {
  if (named == "leetgpu") return ProblemFormat::leetgpu;
  if (named == "tensara") return ProblemFormat::tensara;
  if (!named.empty()) throw input_error("--format {}: expected leetgpu or tensara", named);
  if (file.filename() == "challenge.py") return ProblemFormat::leetgpu;
  if (file.filename() == "def.py") return ProblemFormat::tensara;
  throw input_error("{}: not challenge.py (LeetGPU) or def.py (Tensara); say which with --format", file.string());
}

std::string spec_toml_of(const ordered_json& facts, const std::string& name, const std::string& source_name) {
  std::string text = fmt::format(
      "# Imported by `kopt import` from {} ({}: {}). The kernel is the one .cu file put beside\n"
      "# this file; it must take each buffer in the dtype given below.\nname = {}\nreference = \"ref.py\"\n\n[dims]  # the "
      "performance test\n{}",
      source_name, facts.value("format", ""), facts.value("name", ""), toml_value<std::string>(name),
      dims_lines(facts["dims"]));
  text += case_tables(facts.value("cases", ordered_json::array()));
  text += buffer_tables(facts["buffers"]);
  if (facts.contains("tolerance")) {
    text += "\n[tolerance]\n";
    for (const auto& [key, value] : facts["tolerance"].items()) text += fmt::format("{} = {}\n", key, toml_number(value));
  }
  text += fmt::format("\n[work]\nbytes = {}\n", toml_value<std::string>(bytes_formula(facts["buffers"])));
  if (facts.contains("flops")) text += fmt::format("flops = {}\n", toml_value<std::string>(facts["flops"].get<std::string>()));
  return text;
}

std::string tensara_reference_source(const std::string& class_name, const std::vector<std::string>& inputs) {
  std::vector<std::string> quoted;
  for (const std::string& input : inputs) quoted.push_back(fmt::format("\"{}\"", input));
  return fmt::format(fmt::runtime(kTensaraReference), fmt::arg("class_name", fmt::format("\"{}\"", class_name)),
                     fmt::arg("inputs", fmt::join(quoted, ", ")));
}

ImportedProblem import_problem(const fs::path& file, ProblemFormat format) {
  require_regular_file(file);
  const bool tensara = format == ProblemFormat::tensara;
  ordered_json facts = spec::read_python_facts(tensara ? "tensara" : "leetgpu", file);
  fs::path folder = fs::absolute(file).lexically_normal().parent_path();
  ImportedProblem problem{.name = folder.filename().string(),
                          .spec_toml = spec_toml_of(facts, folder.filename().string(), file.filename().string()),
                          .reference_source = read_file(file),
                          .notes = facts.value("notes", std::vector<std::string>{})};
  if (tensara) {
    problem.reference_source = tensara_reference_source(facts.at("class"), facts.at("inputs"));
    problem.extra_files.emplace_back("def.py", read_file(file));
    if (facts.contains("block_scaled")) {
      problem.reference_source += block_scaled_reference_tail(facts["block_scaled"]);
      problem.extra_files.emplace_back("kopt_mx_formats.py", data_file("python/kopt_mx_formats.py"));
      problem.notes.push_back(
          "block-scaled inputs are written by kopt's host as torchao's to_mx makes them (mx_data, mx_scale: "
          "docs/check.md); ref.py runs the suite's reference where torchao runs, else kopt_mx_formats.py, and says which");
    }
  } else {
    problem.notes.push_back("no FLOP count: LeetGPU gives none ([work] has bytes only)");
  }
  check_spec_loads(problem.spec_toml);
  return problem;
}

void write_imported_problem(const ImportedProblem& problem, const fs::path& folder) {
  const fs::path spec = folder / "kopt.toml";
  if (path_exists(spec)) throw input_error("{} exists; import into another --out folder", spec.string());
  create_folders(folder);
  write_file_atomic(folder / "ref.py", problem.reference_source);
  for (const auto& [name, text] : problem.extra_files) write_file_atomic(folder / name, text);
  write_file_atomic(spec, problem.spec_toml);
}

}  // namespace kopt::intake
