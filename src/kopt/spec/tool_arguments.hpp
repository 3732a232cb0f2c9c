#pragma once
// Arguments that reach nvcc: -D defines (command line, variant.json), [build] flags (kopt.toml)
// and the target architecture. nvcc runs its sub-commands through a shell, so an argument it
// passes on can execute commands; every such argument is checked here first, against
// data/tool_arguments.toml. Each check throws input_error (exit 2) naming where the argument
// came from and the character or option refused.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kopt::spec {

// `where` names the source in the message: "-D", "[build] flags", "runs/x/b1/variant.json".
// The name must be a C identifier; the value must hold no refused character.
void check_define(std::string_view name, std::string_view value, std::string_view where);

// Each flag: no refused character, and none of the options that choose a program to run or
// an output file (also inside a comma-separated -Xcompiler list).
void check_compiler_flags(const std::vector<std::string>& flags, std::string_view where);

// sm_NN, sm_NNa, sm_NNf (the forms kopt compiles for); `where` as above ("--arch").
void check_arch(std::string_view arch, std::string_view where);
bool is_sm_arch(std::string_view arch);

// `text` with control bytes shown as \xNN, for messages.
std::string printable(std::string_view text);

}  // namespace kopt::spec
