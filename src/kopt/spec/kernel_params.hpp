#pragma once
// Parameter lists of the entry point (part of parse_kernel_signature).

#include <string_view>
#include <vector>

#include "kopt/spec/kernel_signature.hpp"
#include "kopt/spec/source_text.hpp"

namespace kopt::spec {

// Parses the parameters between tokens[open] "(" and tokens[close] ")"; `code` is the
// cleaned source the tokens point into. Throws input_error naming the file, the line and
// the parameter.
std::vector<KernelParam> parse_kernel_params(const std::vector<Token>& tokens, std::size_t open,
                                             std::size_t close, std::string_view code,
                                             std::string_view file_name, std::string_view entry);

}  // namespace kopt::spec
