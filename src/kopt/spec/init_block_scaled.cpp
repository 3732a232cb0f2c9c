// mx_data(...), mx_scale(...) and mx_scale_blocked(...) in kopt.toml's init: the two halves of
// one block-scaled quantization of a drawn source (spec/block_scaled.hpp, docs/check.md).

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "kopt/core/error.hpp"
#include "kopt/spec/init_text.hpp"
#include "kopt/spec/problem_spec.hpp"

namespace kopt::spec {
namespace {

// The block-scaled fills' spellings (spec/block_scaled.hpp): the two halves of one quantization.
struct BlockScaledSpelling {
  std::string_view prefix;
  BlockScaledPart part;
};
constexpr BlockScaledSpelling kBlockScaledSpellings[] = {{"mx_data(", BlockScaledPart::data},
                                                         {"mx_scale(", BlockScaledPart::scale},
                                                         {"mx_scale_blocked(", BlockScaledPart::scale_blocked}};

bool is_source_name(std::string_view text) {
  return !text.empty() && (std::isalpha(static_cast<unsigned char>(text[0])) || text[0] == '_') &&
         std::ranges::all_of(text, [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

std::string_view part_prefix(BlockScaledPart part) {
  return std::ranges::find_if(kBlockScaledSpellings, [&](const BlockScaledSpelling& s) { return s.part == part; })->prefix;
}

}  // namespace

std::optional<InitFormula> InitFormula::block_scaled(const std::string& text) {
  for (const BlockScaledSpelling& spelling : kBlockScaledSpellings) {
    if (text.starts_with(spelling.prefix)) return block_scaled(text, spelling.prefix, spelling.part);
  }
  return std::nullopt;
}

// mx_data(F, element, block, source) / mx_scale(...) / mx_scale_blocked(..., rows, columns): the
// packed elements or the e8m0 scales of the source's values (drawn by F, a normal or uniform fill
// as drawn) quantized in blocks of `block` along its last axis (spec/block_scaled.hpp).
InitFormula InitFormula::block_scaled(const std::string& text, std::string_view prefix, BlockScaledPart part) {
  const bool blocked = part == BlockScaledPart::scale_blocked;
  const std::vector<std::string> parts =
      split_outside_brackets(std::string_view(text).substr(prefix.size(), text.size() - prefix.size() - 1), ',');
  if (text.back() != ')' || parts.size() != (blocked ? 6u : 4u) ||
      std::ranges::any_of(parts, [](const std::string& p) { return p.empty(); })) {
    throw input_error("init \"{}\": expected {}FILL, element, block, source{})", text, prefix,
                      blocked ? ", rows, columns" : "");
  }
  InitFormula inner = InitFormula::parse(parts[0]);
  if ((inner.kind_ != InitKind::normal && inner.kind_ != InitKind::uniform) ||
      inner.arrangement_ != Arrangement::as_drawn || inner.block_scaled_) {
    throw input_error("init \"{}\": {}...) quantizes a normal or uniform fill as drawn", text, prefix);
  }
  try {
    block_element_format(parts[1]);
  } catch (const Error& error) {
    throw input_error("init \"{}\": {}", text, error.what());
  }
  if (!is_source_name(parts[3])) {
    throw input_error("init \"{}\": the source \"{}\" must be a name (the tensor quantized: a)", text, parts[3]);
  }
  inner.block_scaled_ = BlockScaledFormula{.part = part,
                                           .element = parts[1],
                                           .block = Expression::parse(parts[2]),
                                           .source = parts[3],
                                           .rows = blocked ? std::optional(Expression::parse(parts[4])) : std::nullopt,
                                           .columns = blocked ? std::optional(Expression::parse(parts[5])) : std::nullopt};
  inner.text_ = text;
  if (inner.names().empty()) inner.bind({});  // literal sizes are checked now, so the error names the line
  return inner;
}

BlockScaledInit InitFormula::bind_block_scaled(const Dims& dims) const {
  const auto positive = [&](const Expression& expression, std::string_view what) {
    std::int64_t value = 0;
    try {
      value = expression.evaluate_integer(dims);
    } catch (const Error& error) {
      throw failure(error.what());
    }
    if (value <= 0) throw failure(fmt::format("the {} must be > 0 (it is {})", what, value));
    return value;
  };
  BlockScaledInit init{.part = block_scaled_->part,
                       .element = block_scaled_->element,
                       .block = positive(block_scaled_->block, "block size"),
                       .source = block_scaled_->source};
  if (block_scaled_->rows) init.rows = positive(*block_scaled_->rows, "row count");
  if (block_scaled_->columns) init.columns = positive(*block_scaled_->columns, "column count");
  return init;
}

std::string block_scaled_init_text(const std::string& source_fill, const BlockScaledInit& mx) {
  std::string text = fmt::format("{}{},{},{},{}", part_prefix(mx.part), source_fill, mx.element, mx.block, mx.source);
  if (mx.part == BlockScaledPart::scale_blocked) text += fmt::format(",{},{}", mx.rows, mx.columns);
  return text + ")";
}

}  // namespace kopt::spec
