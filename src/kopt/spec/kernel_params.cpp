#include "kopt/spec/kernel_params.hpp"

#include <algorithm>
#include <set>
#include <sstream>

#include "kopt/core/error.hpp"

namespace kopt::spec {
namespace {

using TokenRange = std::vector<Token>;

bool is_qualifier(std::string_view word) {
  return word == "const" || word == "volatile" || word == "__restrict__" || word == "restrict" ||
         word == "__restrict";
}

// Every word of every spelling in the dtype table ("unsigned", "int", "__half", ...): a
// parameter whose last word is one of these has no name.
const std::set<std::string, std::less<>>& type_words() {
  static const std::set<std::string, std::less<>> words = [] {
    std::set<std::string, std::less<>> all = {"void"};
    for (const DType& dtype : all_dtypes()) {
      for (const std::string& c_name : dtype.c_names) {
        std::istringstream split(c_name);
        for (std::string word; split >> word;) all.insert(word);
      }
    }
    return all;
  }();
  return words;
}

// Splits the tokens between the parentheses at top-level commas.
std::vector<TokenRange> split_params(const std::vector<Token>& tokens, std::size_t open, std::size_t close) {
  std::vector<TokenRange> params(1);
  int depth = 0;
  for (std::size_t i = open + 1; i < close; ++i) {
    const std::string& t = tokens[i].text;
    depth += (t == "(" || t == "[" || t == "{") - (t == ")" || t == "]" || t == "}");
    if (t == "," && depth == 0) {
      params.emplace_back();
    } else {
      params.back().push_back(tokens[i]);
    }
  }
  return params;
}

// Drops __attribute__((...)), __declspec(...), __align__(n) and [[...]].
TokenRange without_attributes(const TokenRange& tokens) {
  TokenRange kept;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const std::string& t = tokens[i].text;
    bool call_like = t == "__attribute__" || t == "__declspec" || t == "__align__";
    bool brackets = t == "[" && i + 1 < tokens.size() && tokens[i + 1].text == "[";
    if (!call_like && !brackets) {
      kept.push_back(tokens[i]);
      continue;
    }
    std::size_t group = call_like ? i + 1 : i;
    int depth = 0;
    for (std::size_t j = group; j < tokens.size(); ++j) {
      depth +=
          (tokens[j].text == "(" || tokens[j].text == "[") - (tokens[j].text == ")" || tokens[j].text == "]");
      i = j;
      if (depth == 0) break;
    }
  }
  return kept;
}

// What the contract cannot express, named so that the message says what to change.
std::optional<std::string> unsupported_construct(const TokenRange& tokens) {
  for (const Token& token : tokens) {
    const std::string& t = token.text;
    if (t == "...") return "variadic parameters are not supported";
    if (t == "&" || t == "&&") return "references are not supported; pass a device pointer";
    if (t == "[") return "arrays are not supported; pass a pointer";
    if (t == "<" || t == ">") return "templates are not supported";
    if (t == "(") return "function pointers are not supported";
    if (t == "=") return "default arguments are not supported";
  }
  if (std::ranges::count(tokens, std::string("*"), &Token::text) > 1) {
    return "pointers to pointers are not supported";
  }
  return std::nullopt;
}

// "std::size_t" and "::size_t" name the same type as "size_t".
std::string without_std_prefix(std::string word) {
  for (std::string_view prefix : {"std::", "::"}) {
    if (word.starts_with(prefix)) return word.substr(prefix.size());
  }
  return word;
}

// Reads one parameter: qualifiers and "*" may stand anywhere between the type and the name.
class ParamParser {
 public:
  ParamParser(std::string_view code, std::string_view file_name, std::string_view entry)
      : code_(code), file_name_(file_name), entry_(entry) {}

  KernelParam parse(const TokenRange& written, int index, int line) const {
    KernelParam param;
    if (!written.empty()) {
      param.declaration = collapse_whitespace(
          code_.substr(written.front().begin, written.back().end - written.front().begin));
    }
    const Where where{index, line, param.declaration};
    TokenRange tokens = without_attributes(written);
    if (tokens.empty()) throw failure(where, "the parameter is empty");
    if (std::optional<std::string> problem = unsupported_construct(tokens)) throw failure(where, *problem);
    const Token& last = tokens.back();
    if (!last.is_identifier() || is_qualifier(last.text) || type_words().contains(last.text)) {
      throw failure(where, "the parameter has no name");
    }
    param.name = last.text;
    tokens.pop_back();
    std::string type_name = read_type(tokens, param, where);
    if (type_name == "void") throw failure(where, "void pointers are not supported; give the element type");
    param.dtype = dtype_from_c_name(type_name);
    if (param.dtype == nullptr) throw failure(where, fmt::format("unknown type \"{}\"", type_name));
    return param;
  }

 private:
  struct Where {
    int index;
    int line;
    std::string_view declaration;
  };

  // The type's words ("unsigned int"); sets is_pointer and is_const on the way.
  std::string read_type(const TokenRange& tokens, KernelParam& param, const Where& where) const {
    std::vector<std::string> words;
    bool qualify_next = false;
    for (const Token& token : tokens) {
      if (token.text == "const") param.is_const |= !param.is_pointer;  // const before "*": the pointee
      if (is_qualifier(token.text)) continue;
      if (token.text == "*") {
        param.is_pointer = true;
      } else if (token.text == "::") {
        if (words.empty()) words.emplace_back();
        words.back() += "::";
        qualify_next = true;
      } else if (!token.is_identifier()) {
        throw failure(where, fmt::format("unexpected \"{}\"", token.text));
      } else if (param.is_pointer) {
        throw failure(where, fmt::format("unexpected \"{}\" after \"*\"", token.text));
      } else if (qualify_next) {
        words.back() += token.text;
        qualify_next = false;
      } else {
        words.push_back(token.text);
      }
    }
    if (words.empty()) throw failure(where, "the parameter has no type");
    std::string type_name;
    for (const std::string& word : words) {
      if (!type_name.empty()) type_name += ' ';
      type_name += without_std_prefix(word);
    }
    return type_name;
  }

  Error failure(const Where& where, std::string_view what) const {
    return input_error("{}:{}: cannot parse parameter {} of {} (\"{}\"): {}", file_name_, where.line,
                       where.index, entry_, where.declaration, what);
  }

  std::string_view code_;
  std::string_view file_name_;
  std::string_view entry_;
};

}  // namespace

std::vector<KernelParam> parse_kernel_params(const std::vector<Token>& tokens, std::size_t open,
                                             std::size_t close, std::string_view code,
                                             std::string_view file_name, std::string_view entry) {
  std::vector<TokenRange> written = split_params(tokens, open, close);
  bool no_params =
      written.size() == 1 && (written[0].empty() || (written[0].size() == 1 && written[0][0].text == "void"));
  if (no_params) return {};
  ParamParser parser(code, file_name, entry);
  std::vector<KernelParam> params;
  for (std::size_t i = 0; i < written.size(); ++i) {
    int line = written[i].empty() ? tokens[open].line : written[i].front().line;
    KernelParam param = parser.parse(written[i], static_cast<int>(i + 1), line);
    if (auto same = std::ranges::find(params, param.name, &KernelParam::name); same != params.end()) {
      throw input_error("{}:{}: parameter {} of {} repeats the name \"{}\" of parameter {}", file_name, line,
                        i + 1, entry, param.name, same - params.begin() + 1);
    }
    params.push_back(std::move(param));
  }
  return params;
}

}  // namespace kopt::spec
