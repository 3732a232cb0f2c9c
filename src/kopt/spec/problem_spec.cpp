// Reading kopt.toml (docs/design.md §2) into a ProblemSpec. Binding it to a signature is in
// problem_binding.cpp; finding it from the command line's KERNEL in problem_locate.cpp.

#include "kopt/spec/problem_spec.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include <fmt/ranges.h>

#include "kopt/core/error.hpp"
#include "kopt/core/file_queries.hpp"
#include "kopt/core/files.hpp"
#include "kopt/spec/build_section.hpp"
#include "kopt/spec/dtype.hpp"
#include "kopt/spec/source_text.hpp"
#include "kopt/spec/tool_arguments.hpp"
#include "kopt/spec/toml_fields.hpp"

namespace kopt::spec {
namespace {

namespace fs = std::filesystem;

std::string label_of_case(const std::vector<TomlEntry>& own_dims, const Dims& dims) {
  std::string label;
  for (const TomlEntry& entry : own_dims) {
    label += fmt::format("{}{}={}", label.empty() ? "" : " ", entry.key, to_string(dims.at(entry.key)));
  }
  return label;
}

class SpecReader : private TomlFields {
 public:
  SpecReader(std::string_view file_name, fs::path directory)
      : TomlFields(file_name), directory_(std::move(directory)) {}

  ProblemSpec read(const toml::table& root, const std::optional<fs::path>& kernel) {
    reject_unknown_keys(root, "",
                        {"name", "kernel", "reference", "entry", "dims", "cases", "buffers", "tolerance",
                         "work", "build", "tune", "precision", "allow_tf32"});
    ProblemSpec spec;
    spec.directory = directory_;
    spec.name = root.contains("name") ? string_at(root, "name") : directory_.filename().string();
    if (root.contains("entry")) {
      spec.entry = string_at(root, "entry");
      if (!is_identifier(*spec.entry)) throw failure(*root.get("entry"), "entry must be a C identifier");
    }
    if (root.contains("reference")) spec.reference = reference_at(*root.get("reference"));
    spec.precision = read_precision(root);
    spec.cases = read_cases(root);
    if (root.contains("buffers")) spec.buffers = read_buffers(table_at(root, "buffers"));
    if (root.contains("tolerance")) {
      spec.tolerance = read_tolerance_table(table_at(root, "tolerance"), "[tolerance]");
    }
    if (root.contains("work")) spec.work = read_work(table_at(root, "work"));
    BuildSectionReader sections(file_name(), directory_);
    if (root.contains("build")) spec.build = sections.read_build(table_at(root, "build"));
    if (root.contains("tune")) spec.tune = sections.read_tune(table_at(root, "tune"), spec.cases);
    if (kernel) {
      spec.kernel = fs::absolute(*kernel).lexically_normal();
      if (root.contains("kernel")) string_at(root, "kernel");  // unused here, but still checked
    } else if (root.contains("kernel")) {
      spec.kernel = (directory_ / string_at(root, "kernel")).lexically_normal();
    } else {
      spec.kernel = infer_kernel(spec);
    }
    return spec;
  }

 private:
  // `precision = "NAME"`, checked against data/precisions.toml now so that a typo is one line
  // naming the file and the line; `allow_tf32 = true` is the older spelling of "tf32".
  std::optional<std::string> read_precision(const toml::table& root) const {
    std::optional<std::string> precision;
    if (root.contains("precision")) {
      precision = string_at(root, "precision");
      try {
        precision_named(*precision);
      } catch (const Error& e) {
        throw failure(*root.get("precision"), e.what());
      }
    }
    if (!root.contains("allow_tf32")) return precision;
    const toml::node& node = *root.get("allow_tf32");
    const std::optional<bool> allowed = node.value<bool>();
    if (!allowed) throw failure(node, "allow_tf32 must be true or false");
    if (*allowed && precision && *precision != "tf32") {
      throw failure(node, fmt::format("allow_tf32 = true is precision = \"tf32\", and precision says \"{}\": give one", *precision));
    }
    return *allowed ? std::optional<std::string>("tf32") : precision;
  }

  std::vector<ProblemCase> read_cases(const toml::table& root) {
    Dims defaults;
    std::vector<ProblemCase> cases;
    if (root.contains("dims")) {
      defaults = read_dims(in_spec_order(table_at(root, "dims")), "[dims]");
      cases.push_back({"default", defaults});
    }
    if (root.contains("cases")) {
      const toml::array* array = root.get("cases")->as_array();
      if (array == nullptr || !array->is_array_of_tables()) {
        throw failure(*root.get("cases"), "write cases as [[cases]] tables");
      }
      for (const toml::node& node : *array) cases.push_back(read_case(*node.as_table(), defaults));
    }
    if (cases.empty()) cases.push_back({"default", {}});
    std::set<std::string, std::less<>> names;
    for (const ProblemCase& problem_case : cases) {
      if (!names.insert(problem_case.name).second) {
        throw input_error("{}: two cases are named \"{}\"; give each [[cases]] its own name", file_name(),
                          problem_case.name);
      }
    }
    return cases;
  }

  ProblemCase read_case(const toml::table& table, const Dims& defaults) {
    std::vector<TomlEntry> entries = in_spec_order(table);
    std::optional<std::string> name;
    if (auto named = std::ranges::find(entries, "name", &TomlEntry::key); named != entries.end()) {
      name = string_at(table, "name");
      entries.erase(named);
    }
    ProblemCase problem_case{.name = {}, .dims = defaults, .inits = {}};
    if (auto init = std::ranges::find(entries, "init", &TomlEntry::key); init != entries.end()) {
      problem_case.inits = read_case_inits(table_at(table, "init"));
      entries.erase(init);
    }
    for (const TomlEntry& entry : entries) {
      // With [dims] declared, a case only changes them: a name not among them is a typo.
      if (!defaults.empty() && !defaults.contains(entry.key)) {
        std::string known;
        for (const auto& [dim, value] : defaults) known += (known.empty() ? "" : ", ") + dim;
        throw failure(entry.line, fmt::format("[[cases]] {} is not a dim declared in [dims] ({})", entry.key, known));
      }
    }
    for (auto& [dim, value] : read_dims(entries, "[[cases]]")) problem_case.dims[dim] = value;
    problem_case.name = name ? *name : label_of_case(entries, problem_case.dims);
    if (problem_case.name.empty()) throw failure(table, "a [[cases]] entry sets no dims");
    return problem_case;
  }

  // init = { x = "zeros", w = "uniform(-1,1)" }: which buffers they name is checked at binding.
  std::map<std::string, InitFormula, std::less<>> read_case_inits(const toml::table& table) {
    std::map<std::string, InitFormula, std::less<>> inits;
    for (const TomlEntry& entry : in_spec_order(table)) {
      inits.emplace(entry.key, init_at(*table.get(entry.key), fmt::format("[[cases]] init.{}", entry.key)));
    }
    return inits;
  }

  Dims read_dims(const std::vector<TomlEntry>& entries, std::string_view where) {
    Dims dims;
    for (const TomlEntry& entry : entries) {
      if (!is_identifier(entry.key)) {
        throw failure(entry.line, fmt::format("{} dim \"{}\" is not a C identifier", where, entry.key));
      }
      std::optional<Number> value = number_at(*entry.node);
      if (!value) {
        throw failure(entry.line, fmt::format("{} {} must be a number, not {}", where, entry.key,
                                              toml_type_name(*entry.node)));
      }
      if (const double* real = std::get_if<double>(&*value); real && !std::isfinite(*real)) {
        throw failure(entry.line, fmt::format("{} {} must be a finite number", where, entry.key));
      }
      dims[entry.key] = *value;
    }
    return dims;
  }

  std::map<std::string, BufferSpec, std::less<>> read_buffers(const toml::table& buffers) {
    std::map<std::string, BufferSpec, std::less<>> specs;
    for (const TomlEntry& entry : in_spec_order(buffers)) {
      std::string where = fmt::format("[buffers.{}]", entry.key);
      const toml::table* table = entry.node->as_table();
      if (table == nullptr) throw failure(entry.line, fmt::format("{} must be a table", where));
      reject_unknown_keys(*table, where, {"shape", "init", "dtype", "tolerance", "atol", "rtol"});
      BufferSpec buffer;
      if (table->contains("shape")) buffer.shape = read_shape(*table->get("shape"), where);
      if (table->contains("init")) buffer.init = init_at(*table->get("init"), where);
      if (table->contains("dtype")) buffer.dtype = dtype_at(*table->get("dtype"), where);
      if (table->contains("tolerance")) {
        if (table->contains("atol") || table->contains("rtol")) {
          throw failure(*table, fmt::format("{}: give tolerance = {{...}} or atol/rtol, not both", where));
        }
        buffer.tolerance = read_tolerance_table(table_at(*table, "tolerance"), where + " tolerance");
      } else if (table->contains("atol") || table->contains("rtol")) {
        buffer.tolerance = read_tolerance(*table, where);
      }
      specs[entry.key] = std::move(buffer);
    }
    return specs;
  }

  // A canonical dtype name of data/dtypes.toml ("float16", "int32").
  std::string dtype_at(const toml::node& node, const std::string& where) {
    std::optional<std::string> name = node.value<std::string>();
    if (!name || dtype_named(*name) == nullptr) {
      std::vector<std::string> known;
      for (const DType& dtype : all_dtypes()) known.push_back(dtype.name);
      throw failure(node, fmt::format("{} dtype must be one of {}", where, fmt::join(known, ", ")));
    }
    return *name;
  }

  std::vector<Expression> read_shape(const toml::node& node, std::string_view where) {
    std::vector<Expression> shape;
    if (const toml::array* array = node.as_array()) {
      for (const toml::node& element : *array) {
        shape.push_back(expression_at(element, fmt::format("{} shape", where)));
      }
    } else {
      shape.push_back(expression_at(node, fmt::format("{} shape", where)));
    }
    if (shape.empty()) throw failure(node, fmt::format("{} shape is empty", where));
    return shape;
  }

  Tolerance read_tolerance_table(const toml::table& table, const std::string& where) {
    reject_unknown_keys(table, where, {"atol", "rtol"});
    return read_tolerance(table, where);
  }

  // atol alone is an absolute tolerance (rtol 0), and the other way round.
  Tolerance read_tolerance(const toml::table& table, const std::string& where) {
    if (!table.contains("atol") && !table.contains("rtol")) {
      throw failure(table, fmt::format("{} needs atol or rtol", where));
    }
    Tolerance tolerance;
    for (auto [key, field] : {std::pair{"atol", &Tolerance::atol}, std::pair{"rtol", &Tolerance::rtol}}) {
      if (!table.contains(key)) continue;
      std::optional<double> value = table.get(key)->value<double>();
      if (!value || !(*value >= 0)) {
        throw failure(*table.get(key), fmt::format("{} {} must be a number >= 0", where, key));
      }
      tolerance.*field = *value;
    }
    return tolerance;
  }

  WorkSpec read_work(const toml::table& table) {
    reject_unknown_keys(table, "[work]", {"flops", "bytes"});
    WorkSpec work;
    if (table.contains("flops")) work.flops = expression_at(*table.get("flops"), "[work] flops");
    if (table.contains("bytes")) work.bytes = expression_at(*table.get("bytes"), "[work] bytes");
    return work;
  }

  fs::path reference_at(const toml::node& node) {
    std::optional<std::string> relative = node.value<std::string>();
    if (!relative || relative->empty()) {
      throw failure(node, fmt::format("reference must be a file name, not {}", toml_type_name(node)));
    }
    fs::path path = (directory_ / *relative).lexically_normal();
    if (path.extension() != ".cu" && path.extension() != ".py") {
      throw failure(node, fmt::format("reference \"{}\" must be a .cu or a .py file", *relative));
    }
    if (!is_file(path)) {
      throw failure(node,
                    fmt::format("reference \"{}\" does not exist (looked for {})", *relative, path.string()));
    }
    return path;
  }

  // The one .cu file beside kopt.toml that is not the reference.
  fs::path infer_kernel(ProblemSpec& spec) {
    std::vector<fs::path> found;
    for (const fs::path& path : folder_entries(directory_)) {
      bool reference_name = path.stem() == "ref" || path.stem() == "reference" || path == spec.reference;
      if (path.extension() == ".cu" && !reference_name) found.push_back(path);
    }
    if (found.size() != 1) {
      throw input_error("{}: no kernel = \"...\" and {} .cu files beside it to take instead; name the kernel",
                        file_name(), found.empty() ? "no" : "several");
    }
    spec.guesses.push_back(fmt::format("kernel: {} (the only .cu file beside {}; no kernel = \"...\" in it)",
                                       found[0].filename().string(), file_name()));
    return found[0];
  }

  fs::path directory_;
};

ProblemSpec parse_spec(std::string_view toml_text, const fs::path& directory, std::string_view file_name,
                       const std::optional<fs::path>& kernel) {
  toml::table root;
  try {
    root = toml::parse(toml_text, file_name);
  } catch (const toml::parse_error& error) {
    throw input_error("{}:{}:{}: {}", file_name, error.source().begin.line, error.source().begin.column,
                      error.description());
  }
  fs::path absolute_directory = fs::absolute(directory).lexically_normal();
  ProblemSpec spec = SpecReader(file_name, absolute_directory).read(root, kernel);
  spec.spec_file = absolute_directory / fs::path(file_name).filename();
  return spec;
}

ProblemSpec load_spec(const fs::path& toml_path, const std::optional<fs::path>& kernel) {
  fs::path absolute = fs::absolute(toml_path).lexically_normal();
  ProblemSpec spec = parse_spec(read_file(toml_path), absolute.parent_path(), toml_path.string(), kernel);
  spec.spec_file = absolute;  // file_name above is the path as the user gave it
  return spec;
}

}  // namespace

ProblemSpec parse_problem_spec(std::string_view toml_text, const fs::path& directory,
                               std::string_view file_name) {
  return parse_spec(toml_text, directory, file_name, std::nullopt);
}

ProblemSpec load_problem_spec(const fs::path& toml_path) { return load_spec(toml_path, std::nullopt); }

ProblemSpec load_problem_spec(const fs::path& toml_path, const fs::path& kernel) {
  return load_spec(toml_path, kernel);
}

const BoundCase* Problem::find_case(std::string_view name) const {
  for (const BoundCase& c : cases) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

const PrecisionPolicy& Problem::precision_policy() const {
  return precision != nullptr ? *precision : default_precision(signature);
}

}  // namespace kopt::spec
