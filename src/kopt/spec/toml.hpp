#pragma once
// toml++ for spec/: include this, not <toml++/toml.h>.
//
// toml++ 3.3 checks some of its parser's preconditions with assert(), and malformed input
// can break them: "[= a]" aborts a debug build instead of raising toml::parse_error
// (marzer/tomlplusplus#301). A kopt.toml is user input, so the checks stay off and the
// parser's own error is reported; release builds (NDEBUG) behave this way already.
#ifndef TOML_ASSERT
#define TOML_ASSERT(expr) static_cast<void>(0)
#endif

#include <toml++/toml.h>
