// toml++'s implementation (the parser, the printers), compiled once here: every other source
// file sees only its declarations (TOML_HEADER_ONLY=0), instead of compiling the parser again
// wherever kopt/spec/toml.hpp is included.
#define TOML_IMPLEMENTATION
#include "kopt/spec/toml.hpp"
