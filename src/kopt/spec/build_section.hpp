#pragma once
// kopt.toml's [build] and [tune] tables: how the kernel is compiled (flags, arch, a CUTLASS
// folder) and what the built-in tuner may change. Internal to the spec reader
// (problem_spec.cpp), which reads the rest of the file.

#include <filesystem>
#include <string_view>
#include <vector>

#include "kopt/spec/problem_spec.hpp"
#include "kopt/spec/toml_fields.hpp"

namespace kopt::spec {

class BuildSectionReader : public TomlFields {
 public:
  // `directory`: the spec's folder, which [build] cutlass is relative to.
  BuildSectionReader(std::string_view file_name, std::filesystem::path directory)
      : TomlFields(file_name), directory_(std::move(directory)) {}

  // Each throws input_error naming the line of what it refuses.
  BuildSpec read_build(const toml::table& table);
  // `cases`: their dims may be named in [tune] restrict beside the parameters.
  TuneSpec read_tune(const toml::table& table, const std::vector<ProblemCase>& cases);

 private:
  void read_cutlass(const toml::table& table, BuildSpec& build);

  std::filesystem::path directory_;
};

}  // namespace kopt::spec
