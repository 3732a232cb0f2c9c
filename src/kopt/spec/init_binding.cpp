#include "kopt/spec/init_binding.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "kopt/core/error.hpp"
#include "kopt/spec/block_scaled.hpp"

namespace kopt::spec {
namespace {

// set(...)'s indices must name elements of the buffer, and its values fit an integer buffer;
// cat(...)'s runs must add up to the buffer (a suite's packed weights, laid end to end).
void check_writes_fit(const KernelParam& param, const InitSpec& init, std::int64_t elements,
                      const std::string& case_name) {
  std::int64_t runs = 0;
  for (const FillSegment& segment : init.segments) runs += segment.count;
  if (init.kind == InitKind::segments && runs != elements) {
    throw input_error("buffer {}: init {} lays {} elements for {} in case \"{}\"", param.name, init.text(), runs,
                      elements, case_name);
  }
  for (const ElementWrite& write : init.writes) {
    if (!param.dtype->is_floating() && !(write.value == std::trunc(write.value) &&
                                         fits_integer(*param.dtype, static_cast<std::int64_t>(write.value)))) {
      throw input_error("buffer {}: init {} writes {}, which {} does not hold", param.name, init.text(), write.value,
                        param.dtype->name);
    }
    for (const ElementSelector& selector : write.selectors) {
      if (selector.kind == ElementSelector::Kind::index && (*selector.start < -elements || *selector.start >= elements)) {
        throw input_error("buffer {}: init {} writes element {} of {} in case \"{}\"", param.name, init.text(),
                          *selector.start, elements, case_name);
      }
    }
  }
}

}  // namespace

bool fits_integer(const DType& dtype, std::int64_t value) {
  const int bits = static_cast<int>(dtype.bytes * 8);
  if (dtype.kind == DTypeKind::unsigned_integer) {
    return value >= 0 && (bits >= 64 || value < (std::int64_t{1} << bits));
  }
  return bits >= 64 || (value >= -(std::int64_t{1} << (bits - 1)) && value < (std::int64_t{1} << (bits - 1)));
}

// `where`: "[buffers.x]", or "[[cases]] init.x of case \"c\":" for a case's own fill.
void check_init_kind(const KernelParam& param, const InitFormula& init, std::string_view where) {
  if (init.block_scaled()) {  // packed elements or e8m0 scales: bytes, whatever the values they stand for
    if (param.dtype->bytes != 1) {
      throw input_error("{} init \"{}\" writes bytes (packed elements or e8m0 scales), but {} is {}; use uint8",
                        where, init.text(), param.name, param.dtype->name);
    }
    return;
  }
  const bool random_real = init.kind() == InitKind::normal || init.kind() == InitKind::uniform;
  if (random_real && !param.dtype->is_floating()) {
    throw input_error("{} init \"{}\" needs a floating dtype, but {} is {}; use int(lo,hi), int[lo,hi), zeros or ones",
                      where, init.text(), param.name, param.dtype->name);
  }
}

// The init's bounds may read the case's dims, so they are evaluated, and checked against
// the dtype, per case. `where`: "[buffers.x]", or "[[cases]] init.x" for a case's own fill.
InitSpec bind_init(const KernelParam& param, const InitFormula& formula, const Dims& dims,
                   const std::string& case_name, std::string_view where) {
  InitSpec init;
  try {
    init = formula.bind(dims);
  } catch (const Error& error) {
    throw input_error("{}, case \"{}\": {}", where, case_name, error.what());
  }
  // inf and nan have no integer to stand for (a cast of one would be undefined): say so first.
  if (!param.dtype->is_floating() && init.kind == InitKind::values &&
      !std::ranges::all_of(init.values, [](double v) { return std::isfinite(v); })) {
    throw input_error("{} init \"{}\" holds a non-finite value, which {} cannot hold (inf, -inf and nan are for "
                      "floating buffers)", where, formula.text(), param.dtype->name);
  }
  const auto fits = [&](double v) {
    return v == std::trunc(v) && fits_integer(*param.dtype, static_cast<std::int64_t>(v));
  };
  if (!param.dtype->is_floating() && ((init.kind == InitKind::full && !fits(init.a)) ||
                                      (init.kind == InitKind::choice && !(fits(init.a) && fits(init.b))) ||
                                      (init.kind == InitKind::values && !std::ranges::all_of(init.values, fits)))) {
    throw input_error("{} init \"{}\" does not fit {}", where, formula.text(), param.dtype->name);
  }
  bool in_range = init.kind != InitKind::integers || param.dtype->is_floating() ||
                  (fits_integer(*param.dtype, static_cast<std::int64_t>(init.a)) &&
                   fits_integer(*param.dtype, static_cast<std::int64_t>(init.b)));
  if (!in_range) {
    const bool same_text = init.text() == formula.text();
    throw input_error("{} init \"{}\" does not fit {}{}", where, formula.text(), param.dtype->name,
                      same_text ? "" : fmt::format(" (it is {} in case \"{}\")", init.text(), case_name));
  }
  return init;
}

void check_init_fits_buffer(const KernelParam& param, const InitSpec& init, std::int64_t elements, std::int64_t bytes,
                            const std::string& case_name) {
  if (init.kind == InitKind::values && std::cmp_not_equal(init.values.size(), elements)) {
    throw input_error("buffer {}: init {} gives {} values for {} elements in case \"{}\"", param.name, init.text(),
                      init.values.size(), elements, case_name);
  }
  check_writes_fit(param, init, elements, case_name);
  if (init.block_scaled) {
    const std::string problem = block_scaled_size_problem(*init.block_scaled, bytes);
    if (!problem.empty()) {
      throw input_error("buffer {}: init {} in case \"{}\": {}", param.name, init.text(), case_name, problem);
    }
  }
}

}  // namespace kopt::spec
