#pragma once
// kopt tune-space: the candidate parameters of an unannotated kernel, found in its source
// without a GPU: #define and constexpr integer constants, launch-shape literals in solve and
// the local variables a launch reads (`int threads = 256;`),
// with values proposed around each (data/tune_space.toml), and the compile-options axis.

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace kopt::discover {

enum class ConstantKind { define, guarded_define, constexpr_constant, launch_literal, launch_variable };

struct Candidate {
  std::string name;    // the macro or constant; a launch literal: "solve: <<<..., 256>>>"
  ConstantKind kind;
  long long value = 0;
  int line = 0;
  std::size_t begin = 0, end = 0;     // the literal's offsets in the source
  std::string ladder;                 // "block size", "powers of two around 64"
  // "grid size" (a launch's first argument) or "dim3 axis" (one of a block's several axes):
  // what the constant is by its use, which its name's ladder does not know.
  std::string role;
  std::vector<long long> proposed;    // ascending, `value` among them
  // The tuner sets parameters with -D NAME=VALUE: only a #define under #ifndef NAME takes it.
  bool settable_by_define() const { return kind == ConstantKind::guarded_define; }
};

struct CompileOption {
  std::vector<std::string> flags;
  std::string why;
  bool tolerance_dependent = false;
  bool searched = true;  // false: listed for people, not tried by the tuner (data/tune_space.toml says why)
};

struct TuneSpace {
  std::vector<Candidate> candidates;          // in source order
  std::vector<CompileOption> compile_options;
  std::vector<std::string> declared;          // kopt:param macros already declared (not proposed again)
};

// Reads `kernel` (throws input_error naming it when it cannot).
TuneSpace discover_tune_space(const std::filesystem::path& kernel);
TuneSpace discover_tune_space_in(std::string_view source, std::string_view file_name);

// The [tune] table of the candidates -D can set ("BLOCK = [64, 128, 256]\n" lines); empty
// when there are none.
std::string tune_table_of(const TuneSpace& space);

// Appends tune_table_of(space) as [tune] to the kopt.toml `spec` (atomically). Refuses, in one
// line, a spec that already has [tune], a missing spec and a space with nothing -D can set.
void save_tune_table(const TuneSpace& space, const std::filesystem::path& spec);
// Appends `table` (TOML lines) as [tune] to the spec at `spec_path`: refused where it has one.
void append_tune_table(const std::string& table, const std::filesystem::path& spec_path);

std::string kind_text(ConstantKind kind);

// The tuner's compile-options axis: the parameter KOPT_COMPILE_OPTION names one of the
// searched options by its place among them (1, 2, ...), 0 none. It travels with a branch's
// defines, so the result cache, the frontier and a resumed run see it like any parameter, and
// the lab adds the option's flags to the build (-DKOPT_COMPILE_OPTION itself is an unused macro).
inline constexpr const char* kCompileOptionMacro = "KOPT_COMPILE_OPTION";
std::vector<CompileOption> searched_compile_options();
// The nvcc flags `defines`' KOPT_COMPILE_OPTION asks for (none when it is absent or 0);
// input_error naming the value when it names no searched option.
std::vector<std::string> compile_option_flags(const std::map<std::string, std::string>& defines);

}  // namespace kopt::discover
