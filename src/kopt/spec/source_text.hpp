#pragma once
// Lexical helpers for reading CUDA source without a compiler: enough to find the entry
// point and the kopt: annotations, not a C++ parser.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace kopt::spec {

struct LineComment {
  int line = 0;            // 1-based
  std::size_t offset = 0;  // of the "//" in the source
  std::string text;        // after the "//"
};

struct CleanSource {
  // The source with comments and the contents of string and character literals replaced by
  // spaces, newlines kept, so offsets and line numbers still match the original. The
  // literals "C" and "C++" are kept: `extern "C"` is what we look for.
  std::string code;
  std::vector<LineComment> comments;
  // The source with only its comments blanked: string literals kept (the source audit looks
  // for paths such as "/proc/self/mem" in them, and a comment that mentions one is no use).
  std::string without_comments;
};

CleanSource clean_source(std::string_view source);

// The same for a Python source (a Triton kernel.py): `#` comments and the contents of string
// literals (single, double and triple quotes, any prefix) blanked in `code`, only the
// comments in `without_comments`; `comments` is left empty.
CleanSource clean_python_source(std::string_view source);

// Blanks preprocessor directives (with their continuation lines): a #define may hold
// unbalanced braces or parentheses that would confuse the entry finder.
std::string blank_preprocessor(std::string code);

struct Token {
  std::string text;
  int line = 0;
  std::size_t begin = 0;  // offsets into the code
  std::size_t end = 0;

  bool is_identifier() const;
};

// Identifiers and numbers, string literals, "::", "...", "&&", and single characters.
std::vector<Token> tokenize(std::string_view code);

// "unsigned  long\tint" -> "unsigned long int".
std::string collapse_whitespace(std::string_view text);

// "block_size" -> "BLOCK_SIZE" (ASCII).
std::string upper_case(std::string_view text);

// The lines of `text`, without their '\n'; a last line without one is a line too.
std::vector<std::string> split_lines(std::string_view text);

int line_at(std::string_view text, std::size_t offset);

// A C identifier: a letter or '_', then letters, digits and '_'.
bool is_identifier(std::string_view word);

}  // namespace kopt::spec
