#include "kopt/spec/python_facts.hpp"

#include <sstream>

#include "kopt/core/embedded_files.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/core/process.hpp"

namespace kopt::spec {
namespace {

// The helper's `PYTHON_FACTS: ...` line says what it could not take.
std::string helper_reason(const ProcessResult& result) {
  std::istringstream err(result.err);
  std::string reason;
  for (std::string line; std::getline(err, line);) {
    if (line.starts_with("PYTHON_FACTS: ")) reason = line.substr(14);
  }
  return reason.empty() ? fmt::format("the Python reader {}: {}", result.outcome(), result.output_tail(3)) : reason;
}

// The readers import one another and the stand-in torch that runs a suite's test generators
// (kopt_suite_shim.py), so they run as files in one folder, written from kopt's embedded copies.
constexpr const char* kHelpers[] = {"kopt_python_facts.py", "kopt_tensara_facts.py", "kopt_suite_shim.py",
                                    "kopt_shim_values.py", "kopt_block_scaled_facts.py"};
// The tables the readers consult, written beside them (block-scaled element formats).
constexpr const char* kHelperTables[] = {"block_scaled_formats.toml"};

}  // namespace

nlohmann::ordered_json read_python_facts(std::string_view what, const std::filesystem::path& file) {
  // -I: no user site-packages, no PYTHONPATH; the helper needs only the standard library.
  // Tensara's def.py has a reader of its own (python/kopt_tensara_facts.py), same protocol.
  const char* helper = what == "tensara" ? "kopt_tensara_facts.py" : "kopt_python_facts.py";
  TempDir helpers("kopt-python-facts");
  for (const char* name : kHelpers) write_file_atomic(helpers.path() / name, data_file(std::string("python/") + name));
  for (const char* name : kHelperTables) write_file_atomic(helpers.path() / name, data_file(std::string("data/") + name));
  ProcessSpec spec{.argv = {find_python().string(), "-I", (helpers.path() / helper).string(), std::string(what),
                            file.string()},
                   .time_limit = std::chrono::seconds(60)};
  SystemProcessRunner runner;
  ProcessResult result = runner.run(spec);
  if (!result.ok()) throw input_error("{}", helper_reason(result));
  try {
    return nlohmann::ordered_json::parse(result.out);  // in the file's order
  } catch (const nlohmann::json::parse_error&) {
    throw input_error("the Python reader gave no JSON for {}: {}", file.string(), result.output_tail(3));
  }
}

ReferenceTolerance reference_tolerance(const std::filesystem::path& ref_py) {
  nlohmann::ordered_json facts = read_python_facts("tolerance", ref_py);
  ReferenceTolerance tolerance;
  if (facts.contains("atol")) tolerance.atol = facts["atol"].get<double>();
  if (facts.contains("rtol")) tolerance.rtol = facts["rtol"].get<double>();
  return tolerance;
}

}  // namespace kopt::spec
