#pragma once
// Pieces of init's spelling (spec/init_spec.cpp) shared with the fills kept in files of their
// own (init_block_scaled.cpp).

#include <string>
#include <string_view>
#include <vector>

#include "kopt/spec/block_scaled.hpp"

namespace kopt::spec {

// The arguments of "FILL, n, v": split at the commas outside every bracket, ( and [ alike.
std::vector<std::string> top_level_arguments(std::string_view text);

// A block-scaled init as kopt.toml spells it, around the text of its source's fill.
std::string block_scaled_init_text(const std::string& source_fill, const BlockScaledInit& init);

}  // namespace kopt::spec
