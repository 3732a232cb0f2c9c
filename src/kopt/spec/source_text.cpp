#include "kopt/spec/source_text.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace kopt::spec {
namespace {

bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Replaces text[begin, end) by spaces, keeping newlines so that line numbers survive.
void blank(std::string& text, std::size_t begin, std::size_t end) {
  for (std::size_t i = begin; i < end && i < text.size(); ++i) {
    if (text[i] != '\n') text[i] = ' ';
  }
}

// A quote right after a number is a digit separator (1'000'000), not a character literal.
bool is_digit_separator(std::string_view source, std::size_t quote) {
  std::size_t start = quote;
  while (start > 0 && (is_name_char(source[start - 1]) || source[start - 1] == '\'')) --start;
  return start < quote && std::isdigit(static_cast<unsigned char>(source[start]));
}

// R"delim( ... )delim", possibly with an encoding prefix (u8R, LR, uR, UR).
bool starts_raw_string(std::string_view source, std::size_t quote) {
  if (quote == 0 || source[quote - 1] != 'R') return false;
  std::size_t start = quote - 1;
  while (start > 0 && is_name_char(source[start - 1])) --start;
  std::string_view prefix = source.substr(start, quote - 1 - start);
  return prefix.empty() || prefix == "u8" || prefix == "u" || prefix == "U" || prefix == "L";
}

// The offset just past the closing quote of a literal opened at `open` (escapes honoured;
// an unterminated literal ends at the end of its line).
std::size_t end_of_quoted(std::string_view source, std::size_t open) {
  const char quote = source[open];
  std::size_t i = open + 1;
  while (i < source.size() && source[i] != quote && source[i] != '\n') i += source[i] == '\\' ? 2 : 1;
  return std::min(i + 1, source.size());
}

std::size_t end_of_raw_string(std::string_view source, std::size_t open) {
  std::size_t paren = source.find('(', open);
  if (paren == std::string_view::npos) return source.size();
  std::string closing(1, ')');
  closing.append(source.substr(open + 1, paren - open - 1)).push_back('"');
  std::size_t close = source.find(closing, paren);
  return close == std::string_view::npos ? source.size() : close + closing.size();
}

}  // namespace

CleanSource clean_source(std::string_view source) {
  CleanSource clean{std::string(source), {}, std::string(source)};
  std::string& code = clean.code;
  int line = 1;
  std::size_t i = 0;
  while (i < source.size()) {
    const char c = source[i];
    const char next = i + 1 < source.size() ? source[i + 1] : '\0';
    std::size_t end = i + 1;
    if (c == '/' && next == '/') {
      end = std::min(source.find('\n', i), source.size());
      clean.comments.push_back({line, i, std::string(source.substr(i + 2, end - i - 2))});
      blank(code, i, end);
      blank(clean.without_comments, i, end);
    } else if (c == '/' && next == '*') {
      std::size_t close = source.find("*/", i + 2);
      end = close == std::string_view::npos ? source.size() : close + 2;
      blank(code, i, end);
      blank(clean.without_comments, i, end);
    } else if (c == '"') {
      end = starts_raw_string(source, i) ? end_of_raw_string(source, i) : end_of_quoted(source, i);
      std::string_view literal = source.substr(i, end - i);
      if (literal != "\"C\"" && literal != "\"C++\"") blank(code, i + 1, end - 1);
    } else if (c == '\'' && !is_digit_separator(source, i)) {
      end = end_of_quoted(source, i);
      blank(code, i, end);
    }
    line += static_cast<int>(std::count(source.begin() + i, source.begin() + end, '\n'));
    i = end;
  }
  return clean;
}

namespace {

// The end of the Python string literal whose opening quote is at `open` (past its closing
// quote; the source's end when unterminated). Triple quotes span lines; a backslash escapes.
std::size_t end_of_python_string(std::string_view source, std::size_t open) {
  const char quote = source[open];
  const bool triple = source.substr(open, 3) == std::string(3, quote);
  const std::string close = triple ? std::string(3, quote) : std::string(1, quote);
  for (std::size_t i = open + close.size(); i < source.size(); ++i) {
    if (source[i] == '\\') {
      ++i;
      continue;
    }
    if (!triple && source[i] == '\n') return i;  // unterminated on its line
    if (source.substr(i, close.size()) == close) return i + close.size();
  }
  return source.size();
}

}  // namespace

CleanSource clean_python_source(std::string_view source) {
  CleanSource clean{std::string(source), {}, std::string(source)};
  std::size_t i = 0;
  while (i < source.size()) {
    const char c = source[i];
    std::size_t end = i + 1;
    if (c == '#') {
      end = std::min(source.find('\n', i), source.size());
      blank(clean.code, i, end);
      blank(clean.without_comments, i, end);
    } else if (c == '"' || c == '\'') {
      end = end_of_python_string(source, i);
      const std::size_t quotes = source.substr(i, 3) == std::string(3, c) ? 3 : 1;
      const bool closed = end >= i + 2 * quotes && source.substr(end - quotes, quotes) == std::string(quotes, c);
      blank(clean.code, i + quotes, closed ? end - quotes : end);
    }
    i = end;
  }
  return clean;
}

std::string blank_preprocessor(std::string code) {
  std::size_t line_start = 0;
  bool continued = false;
  while (line_start < code.size()) {
    std::size_t line_end = std::min(code.find('\n', line_start), code.size());
    std::size_t first = code.find_first_not_of(" \t", line_start);
    bool directive = continued || (first < line_end && code[first] == '#');
    if (directive) {
      std::size_t last = code.find_last_not_of(" \t\r", line_end == 0 ? 0 : line_end - 1);
      continued = last != std::string::npos && last >= line_start && code[last] == '\\';
      blank(code, line_start, line_end);
    }
    line_start = line_end + 1;
  }
  return code;
}

bool Token::is_identifier() const {
  return !text.empty() && (std::isalpha(static_cast<unsigned char>(text[0])) || text[0] == '_');
}

std::vector<Token> tokenize(std::string_view code) {
  std::vector<Token> tokens;
  int line = 1;
  std::size_t i = 0;
  while (i < code.size()) {
    const char c = code[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      line += c == '\n';
      ++i;
      continue;
    }
    std::size_t end = i + 1;
    if (is_name_char(c)) {
      while (end < code.size() && is_name_char(code[end])) ++end;
    } else if (c == '"') {
      std::size_t close = code.find('"', i + 1);
      end = close == std::string_view::npos ? code.size() : close + 1;
    } else {
      for (std::string_view symbol : {"::", "...", "&&"}) {
        if (code.substr(i, symbol.size()) == symbol) end = i + symbol.size();
      }
    }
    tokens.push_back({std::string(code.substr(i, end - i)), line, i, end});
    line += static_cast<int>(std::count(code.begin() + i, code.begin() + end, '\n'));
    i = end;
  }
  return tokens;
}

std::string collapse_whitespace(std::string_view text) {
  std::istringstream words{std::string(text)};
  std::string word, joined;
  while (words >> word) {
    if (!joined.empty()) joined += ' ';
    joined += word;
  }
  return joined;
}

std::string upper_case(std::string_view text) {
  std::string result(text);
  std::ranges::transform(result, result.begin(), [](unsigned char c) { return std::toupper(c); });
  return result;
}

std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> lines;
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

int line_at(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + offset, '\n'));
}

bool is_identifier(std::string_view word) {
  return !word.empty() && !std::isdigit(static_cast<unsigned char>(word[0])) &&
         std::ranges::all_of(word, [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

}  // namespace kopt::spec
