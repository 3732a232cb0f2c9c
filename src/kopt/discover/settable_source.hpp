#pragma once
// The source rewrite that makes every constant kopt tune-space finds settable by -D, so that
// the built-in tuner searches an unannotated kernel's plain #defines, constexpr constants and
// launch literals like its #ifndef-guarded ones.

#include <string>
#include <string_view>

#include "kopt/discover/tune_space.hpp"

namespace kopt::discover {

// The macro a candidate is set by: a #define's own name; KOPT_<NAME> for a constexpr;
// KOPT_<WHAT>_L<line> for a launch literal ("<<<>>> block" on line 42: KOPT_BLOCK_L42), whose
// name keeps the words the ladders of data/tune_space.toml match.
std::string settable_macro(const Candidate& candidate);

// `source` with each candidate that -D cannot set rewritten: a plain `#define NAME 256` put
// under `#ifndef NAME`; a constexpr's or a launch's literal replaced by its macro, defined
// (under #ifndef) on the lines just above. Behaves as `source` when nothing is set; equal to it
// when every candidate is guarded already.
std::string settable_source(std::string_view source, const TuneSpace& space);

// kopt tune-space's last line: what kopt optimize searches (by -D, and through the settable
// copy under which macros), or that there is nothing to search.
std::string search_verdict(const TuneSpace& space);

}  // namespace kopt::discover
