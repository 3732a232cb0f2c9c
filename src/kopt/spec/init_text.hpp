#pragma once
// Pieces of init's spelling (spec/init_spec.cpp) shared with the fills kept in files of their
// own (init_block_scaled.cpp, init_writes.cpp).

#include <string>
#include <string_view>
#include <vector>

#include "kopt/spec/block_scaled.hpp"

namespace kopt::spec {

// Splits at `separator` outside every bracket, ( and [ alike (the arguments of "FILL, n, v" at
// ','; a slice's parts at ':'); each part's whitespace collapsed, empty parts kept.
std::vector<std::string> split_outside_brackets(std::string_view text, char separator);

// A block-scaled init as kopt.toml spells it, around the text of its source's fill.
std::string block_scaled_init_text(const std::string& source_fill, const BlockScaledInit& init);

}  // namespace kopt::spec
