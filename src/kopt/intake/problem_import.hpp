#pragma once
// kopt import: a community problem definition into a kopt spec folder (kopt.toml and
// ref.py), so that an unmodified community solution runs with no hand-written spec.
// The definition is read by python/kopt_python_facts.py with Python's ast module (never
// run); this side writes what it read as kopt.toml.

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kopt::intake {

enum class ProblemFormat { leetgpu, tensara };

// By file name: challenge.py is LeetGPU's, def.py Tensara's; `named` ("leetgpu", "tensara")
// when given overrides. Throws input_error naming the file when neither tells.
ProblemFormat problem_format_of(const std::filesystem::path& file, const std::string& named);

struct ImportedProblem {
  std::string name;                // the spec's name: the definition's folder
  std::string spec_toml;           // kopt.toml, already checked to load
  std::string reference_source;    // ref.py
  std::vector<std::string> notes;  // what was left out or read loosely, one sentence each
};

// The spec folder's files for the definition `file`. Throws input_error, in one line naming
// the thing, where the definition says something kopt cannot translate.
ImportedProblem import_problem(const std::filesystem::path& file, ProblemFormat format);

// kopt.toml from the reader's facts (python/kopt_python_facts.py's JSON); pure, for tests.
std::string spec_toml_of(const nlohmann::ordered_json& facts, const std::string& name, const std::string& source_name);

// Writes kopt.toml and ref.py into `folder`, each atomically; refuses a folder that already
// holds a kopt.toml, naming it.
void write_imported_problem(const ImportedProblem& problem, const std::filesystem::path& folder);

}  // namespace kopt::intake
