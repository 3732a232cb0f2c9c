#include "kopt/spec/kernel_signature.hpp"

#include <algorithm>

#include "kopt/core/error.hpp"
#include "kopt/spec/kernel_params.hpp"
#include "kopt/spec/source_text.hpp"

namespace kopt::spec {
namespace {

enum class Scope { extern_c, namespace_scope, other };

// One place where the entry's name is followed by "(" at namespace scope.
struct Candidate {
  std::size_t name = 0;  // token indices
  std::size_t open = 0;
  std::size_t close = 0;
  bool extern_c = false;
  bool definition = false;
  std::vector<std::string> specifiers;  // identifiers before the name: "void", "__host__", ...

  bool has(std::string_view word) const { return std::ranges::find(specifiers, word) != specifiers.end(); }
};

std::optional<std::size_t> matching_close(const std::vector<Token>& tokens, std::size_t open) {
  int depth = 0;
  for (std::size_t i = open; i < tokens.size(); ++i) {
    const std::string& t = tokens[i].text;
    depth += (t == "(" || t == "[") - (t == ")" || t == "]");
    if (depth == 0) return i;
  }
  return std::nullopt;
}

std::optional<std::size_t> matching_open(const std::vector<Token>& tokens, std::size_t close) {
  int depth = 0;
  for (std::size_t i = close + 1; i-- > 0;) {
    const std::string& t = tokens[i].text;
    depth += (t == ")" || t == "]") - (t == "(" || t == "[");
    if (depth == 0) return i;
  }
  return std::nullopt;
}

// Finds declarations and definitions of one name, tracking which braces are
// `extern "C" { }` blocks and namespaces (where a declaration may stand) and which are
// bodies (where `solve(` is a call).
class EntryFinder {
 public:
  explicit EntryFinder(const std::vector<Token>& tokens) : tokens_(tokens) {}

  std::vector<Candidate> find(std::string_view name) const {
    std::vector<Candidate> candidates;
    std::vector<Scope> scopes;
    for (std::size_t i = 0; i < tokens_.size(); ++i) {
      const std::string& t = tokens_[i].text;
      if (t == "{") scopes.push_back(scope_opened_at(i));
      if (t == "}" && !scopes.empty()) scopes.pop_back();
      if (t != name || i + 1 >= tokens_.size() || tokens_[i + 1].text != "(") continue;
      if (std::ranges::find(scopes, Scope::other) != scopes.end()) continue;
      bool in_extern_c_block = std::ranges::find(scopes, Scope::extern_c) != scopes.end();
      if (std::optional<Candidate> candidate = declaration_at(i, in_extern_c_block)) {
        candidates.push_back(std::move(*candidate));
      }
    }
    return candidates;
  }

 private:
  Scope scope_opened_at(std::size_t brace) const {
    if (brace >= 2 && tokens_[brace - 1].text == "\"C\"" && tokens_[brace - 2].text == "extern") {
      return Scope::extern_c;
    }
    // namespace {, namespace a {, namespace a::b {
    for (std::size_t i = brace; i > 0; --i) {
      const Token& token = tokens_[i - 1];
      if (token.text == "namespace") return Scope::namespace_scope;
      if (!token.is_identifier() && token.text != "::") break;
    }
    return Scope::other;
  }

  // Walks back from the name over specifiers and attributes to the start of the
  // declaration; nullopt when what precedes the name is not a plain declaration.
  std::optional<Candidate> declaration_at(std::size_t name, bool in_extern_c_block) const {
    Candidate candidate{.name = name, .open = name + 1};
    std::optional<std::size_t> close = matching_close(tokens_, name + 1);
    if (!close) return std::nullopt;
    candidate.close = *close;
    candidate.extern_c = in_extern_c_block;
    for (std::size_t j = name; j > 0;) {
      const Token& token = tokens_[j - 1];
      if (token.text == ")" || token.text == "]") {  // __attribute__((...)), [[...]]
        std::optional<std::size_t> open = matching_open(tokens_, j - 1);
        if (!open) return std::nullopt;
        j = *open;
        continue;
      }
      if (token.text == "\"C\"" && j >= 2 && tokens_[j - 2].text == "extern") {
        candidate.extern_c = true;
        break;
      }
      if (token.text == ";" || token.text == "{" || token.text == "}") break;
      if (!token.is_identifier()) return std::nullopt;
      candidate.specifiers.insert(candidate.specifiers.begin(), token.text);
      --j;
    }
    candidate.definition = is_followed_by_body(candidate.close);
    return candidate;
  }

  bool is_followed_by_body(std::size_t close) const {
    for (std::size_t i = close + 1; i < tokens_.size(); ++i) {
      if (tokens_[i].text == "{") return true;
      if (tokens_[i].text == ";") return false;
    }
    return false;
  }

  const std::vector<Token>& tokens_;
};

// The declaration to read the parameters from: a definition when there is one (a prototype
// may leave its parameters unnamed), else the first extern "C" declaration.
std::optional<Candidate> choose_entry(const std::vector<Candidate>& candidates, std::string_view name,
                                      std::string_view file_name, const std::vector<Token>& tokens) {
  const Candidate* first_extern_c = nullptr;
  for (const Candidate& candidate : candidates) {
    if (!candidate.extern_c) continue;
    int line = tokens[candidate.name].line;
    if (candidate.has("__global__") || (candidate.has("__device__") && !candidate.has("__host__"))) {
      throw input_error(
          "{}:{}: {} is a device function; kopt calls {} on the host: write an extern \"C\" "
          "void {}(...) that launches the kernel",
          file_name, line, name, name, name);
    }
    if (!candidate.has("void")) {
      throw input_error("{}:{}: {} must return void (extern \"C\" void {}(...))", file_name, line, name,
                        name);
    }
    if (first_extern_c == nullptr) first_extern_c = &candidate;
  }
  if (first_extern_c == nullptr) return std::nullopt;
  auto usable_definition = [](const Candidate& c) { return c.definition && c.has("void"); };
  auto extern_c_definition = std::ranges::find_if(
      candidates, [&](const Candidate& c) { return c.extern_c && usable_definition(c); });
  if (extern_c_definition != candidates.end()) return *extern_c_definition;
  auto definition = std::ranges::find_if(candidates, usable_definition);
  return definition != candidates.end() ? *definition : *first_extern_c;
}

}  // namespace

const KernelParam* KernelSignature::find(std::string_view name) const {
  auto found = std::ranges::find(params, name, &KernelParam::name);
  return found == params.end() ? nullptr : &*found;
}

KernelSignature parse_kernel_signature(std::string_view source, std::string_view file_name,
                                       const std::optional<std::string>& entry) {
  const std::string code = blank_preprocessor(clean_source(source).code);
  const std::vector<Token> tokens = tokenize(code);
  const std::vector<std::string> names =
      entry ? std::vector<std::string>{*entry} : std::vector<std::string>{"solve", "solution"};
  for (const std::string& name : names) {
    std::optional<Candidate> found = choose_entry(EntryFinder(tokens).find(name), name, file_name, tokens);
    if (!found) continue;
    KernelSignature signature{.entry = name, .line = tokens[found->name].line, .params = {}};
    signature.params = parse_kernel_params(tokens, found->open, found->close, code, file_name, name);
    return signature;
  }
  std::string looked_for;
  for (const std::string& name : names) looked_for += (looked_for.empty() ? "" : ", ") + name;
  throw input_error(
      "{}: no extern \"C\" void {}(...) found (looked for {}; name another with entry = \"...\" in "
      "kopt.toml)",
      file_name, names.front(), looked_for);
}

}  // namespace kopt::spec
