#pragma once
// kopt import: a community problem definition into a kopt spec folder (kopt.toml and
// ref.py), so that an unmodified community solution runs with no hand-written spec.
// The definition's sizes are read by python/kopt_python_facts.py with Python's ast module, a
// LeetGPU challenge's tests by running its generators under a stand-in torch
// (python/kopt_suite_shim.py: no torch, no GPU); this side writes what they found as kopt.toml.

#include <filesystem>
#include <string>
#include <utility>
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
  // Further files the reference needs beside it (Tensara: the def.py ref.py calls), name -> text.
  std::vector<std::pair<std::string, std::string>> extra_files;
  std::vector<std::string> notes;  // what was left out or read loosely, one sentence each
};

// The spec folder's files for the definition `file`. Throws input_error, in one line naming
// the thing, where the definition says something kopt cannot translate.
ImportedProblem import_problem(const std::filesystem::path& file, ProblemFormat format);

// kopt.toml from the reader's facts (python/kopt_python_facts.py's JSON); pure, for tests.
std::string spec_toml_of(const nlohmann::ordered_json& facts, const std::string& name, const std::string& source_name);

// ref.py for a Tensara problem: def.py (beside it) loaded, with a stand-in for Tensara's
// `problem` module where it is absent, and reference(**kwargs) returning reference_solution
// of the inputs in the solution's order. Pure, for tests.
std::string tensara_reference_source(const std::string& class_name, const std::vector<std::string>& inputs);

// Writes kopt.toml, ref.py and the extra files into `folder`, each atomically; refuses a folder that already
// holds a kopt.toml, naming it.
void write_imported_problem(const ImportedProblem& problem, const std::filesystem::path& folder);

}  // namespace kopt::intake
