// bind_problem: a ProblemSpec and a KernelSignature into concrete cases (every buffer's
// size and fill, every scalar's value), guessing only where the guess is safe.

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>
#include <utility>

#include "kopt/core/error.hpp"
#include "kopt/spec/init_binding.hpp"
#include "kopt/spec/problem_spec.hpp"

namespace kopt::spec {
namespace {

// A bare .cu file with one size parameter runs at 2^24 elements: large enough to measure
// bandwidth meaningfully, small enough (64 MiB of fp32) for any GPU.
constexpr std::int64_t kSpecLessSize = std::int64_t{1} << 24;

// The seed's benchmark gives every buffer of a kernel without a spec one flat size: 2^20
// elements without integer dims, the dim's value with one, the product of the two largest
// with several; never more than 2^28 elements.
constexpr std::int64_t kSeedSizeWithoutDims = std::int64_t{1} << 20;
constexpr std::int64_t kSeedSizeLimit = std::int64_t{1} << 28;

bool is_integer_scalar(const KernelParam& param) { return param.is_scalar() && !param.dtype->is_floating(); }

std::vector<const KernelParam*> integer_scalars(const KernelSignature& signature) {
  std::vector<const KernelParam*> scalars;
  for (const KernelParam& param : signature.params) {
    if (is_integer_scalar(param)) scalars.push_back(&param);
  }
  return scalars;
}

template <typename Range, typename Name>
std::string join_names(const Range& items, Name name) {
  std::string text;
  for (const auto& item : items) text += (text.empty() ? "" : ", ") + std::string(name(item));
  return text;
}

// Largest finite value of each floating dtype (IEEE formats; fp8 per the OCP FP8 spec).
double max_finite(const DType& dtype) {
  if (dtype.name == "float32") return FLT_MAX;
  if (dtype.name == "float16") return 65504.0;
  if (dtype.name == "bfloat16") return 3.3895313892515355e38;
  if (dtype.name == "float8_e4m3") return 448.0;
  if (dtype.name == "float8_e5m2") return 57344.0;
  return DBL_MAX;
}

// Documented defaults (docs/design.md §2), not guesses: nothing is recorded for them.
InitSpec default_init(const DType& dtype) {
  if (dtype.is_floating()) return InitSpec{InitKind::normal, 0, 1};
  if (dtype.kind == DTypeKind::signed_integer) return InitSpec{InitKind::integers, -100, 100};
  return InitSpec{InitKind::integers, 0, 100};
}

std::string shape_text(const std::vector<Expression>& shape) {
  if (shape.size() == 1) return fmt::format("\"{}\"", shape[0].text());
  return fmt::format("[{}]",
                     join_names(shape, [](const Expression& e) { return fmt::format("\"{}\"", e.text()); }));
}

class Binder {
 public:
  Binder(const ProblemSpec& spec, const KernelSignature& signature, const PrecisionPolicy& precision,
         std::vector<std::string>& guesses)
      : spec_(spec),
        signature_(signature),
        precision_(precision),
        guesses_(guesses),
        size_params_(integer_scalars(signature)),
        spec_less_(!spec.spec_file.has_value()) {}

  void check_spec_against_signature() const {
    for (const auto& [name, buffer] : spec_.buffers) {
      const KernelParam* param = signature_.find(name);
      if (param == nullptr) {
        throw input_error("[buffers.{}] names no parameter of {} (parameters: {})", name, signature_.entry,
                          join_names(signature_.params, [](const KernelParam& p) { return p.name; }));
      }
      if (param->is_scalar()) {
        throw input_error("[buffers.{}]: {} is a scalar parameter of {}, not a buffer", name, name,
                          signature_.entry);
      }
      if (buffer.tolerance && param->is_input_buffer()) {
        throw input_error("[buffers.{}] gives a tolerance, but {} is an input (const) and is never compared",
                          name, name);
      }
      if (buffer.init) check_init_kind(*param, *buffer.init, fmt::format("[buffers.{}]", param->name));
      if (buffer.dtype && *buffer.dtype != param->dtype->name) {
        throw input_error("[buffers.{}] dtype is {}, but {}'s {} is {}: the kernel must take the problem's dtype",
                          name, *buffer.dtype, signature_.entry, name, param->dtype->name);
      }
    }
    // Refuse an unknowable size before asking for scalar values: the fix is a kopt.toml.
    for (const KernelParam& param : signature_.params) {
      auto given = spec_.buffers.find(param.name);
      if (param.is_pointer && (given == spec_.buffers.end() || given->second.shape.empty())) {
        inferred_shape(param);
      }
    }
  }

  BoundCase bind(const ProblemCase& problem_case) {
    BoundCase bound{.name = problem_case.name, .dims = problem_case.dims, .args = {}};
    check_case_inits(problem_case);
    // Scalars first: a buffer sized by a scalar needs that scalar's value checked.
    std::map<std::string, BoundScalar, std::less<>> scalars;
    for (const KernelParam& param : signature_.params) {
      if (param.is_scalar()) scalars.emplace(param.name, bind_scalar(param, bound));
    }
    for (const KernelParam& param : signature_.params) {
      bound.args.push_back(param.is_scalar() ? BoundArg{std::nullopt, scalars.at(param.name)}
                                             : BoundArg{bind_buffer(param, bound, problem_case.inits), std::nullopt});
    }
    check_work(bound);
    return bound;
  }

 private:
  // A case's own fill names an input or an in-out buffer (an output's start is its [buffers] init,
  // the same in every case: a kernel that accumulates into it must not see it change).
  void check_case_inits(const ProblemCase& problem_case) const {
    for (const auto& [name, init] : problem_case.inits) {
      const auto param = std::ranges::find(signature_.params, name, &KernelParam::name);
      if (param == signature_.params.end() || !param->is_pointer) {
        throw input_error("case \"{}\": init names {}, not a buffer of {}", problem_case.name, name, signature_.entry);
      }
      auto spec = spec_.buffers.find(name);
      const bool in_out = spec != spec_.buffers.end() && spec->second.init && spec->second.init->kind() != InitKind::zeros;
      if (param->is_output_buffer() && !in_out) {
        throw input_error("case \"{}\": init names {}, an output; a case may fill only the inputs (and in-out buffers)",
                          problem_case.name, name);
      }
      check_init_kind(*param, init, fmt::format("[[cases]] init.{} of case \"{}\":", name, problem_case.name));
    }
  }

  BoundScalar bind_scalar(const KernelParam& param, const BoundCase& bound) const {
    auto found = bound.dims.find(param.name);
    if (found == bound.dims.end()) {
      throw input_error(
          "scalar {} of {} has no value in case \"{}\" (set {} in [dims] of kopt.toml, or pass --dim {}=... or "
          "--{}=...)",
          param.name, signature_.entry, bound.name, param.name, param.name, param.name);
    }
    const Number& value = found->second;
    auto cannot_hold = [&](std::string_view why) {
      return input_error("scalar {} of {} is {} and cannot hold {} in case \"{}\"{}", param.name,
                         signature_.entry, param.dtype->name, to_string(value), bound.name, why);
    };
    if (param.dtype->is_floating()) {
      if (std::abs(to_double(value)) > max_finite(*param.dtype)) throw cannot_hold("");
      return {param.name, param.dtype, to_double(value)};
    }
    if (!std::holds_alternative<std::int64_t>(value)) throw cannot_hold(" (not an integer)");
    if (!fits_integer(*param.dtype, std::get<std::int64_t>(value))) throw cannot_hold(" (out of range)");
    return {param.name, param.dtype, value};
  }

  BoundBuffer bind_buffer(const KernelParam& param, const BoundCase& bound,
                          const std::map<std::string, InitFormula, std::less<>>& case_inits) {
    BoundBuffer buffer{.name = param.name, .dtype = param.dtype, .is_output = param.is_output_buffer()};
    auto spec = spec_.buffers.find(param.name);
    const BufferSpec* given = spec == spec_.buffers.end() ? nullptr : &spec->second;
    const bool has_shape = given != nullptr && !given->shape.empty();
    const std::string shape = has_shape ? shape_text(given->shape) : inferred_shape(param);
    buffer.shape = has_shape ? evaluate_shape(param, given->shape, bound) : inferred_extent(param, bound);
    buffer.elements = 1;
    for (std::int64_t extent : buffer.shape) {
      if (extent <= 0) {
        throw input_error("buffer {}: shape {} gives {} in case \"{}\"; a size must be > 0", param.name,
                          shape, extent, bound.name);
      }
      if (__builtin_mul_overflow(buffer.elements, extent, &buffer.elements)) {
        throw input_error("buffer {}: shape {} has too many elements for int64 in case \"{}\"", param.name,
                          shape, bound.name);
      }
    }
    std::int64_t bytes = 0;
    if (__builtin_mul_overflow(buffer.elements, static_cast<std::int64_t>(param.dtype->bytes), &bytes)) {
      throw input_error(
          "buffer {}: shape {} gives {} elements of {} bytes, more bytes than int64 holds (case \"{}\")",
          param.name, shape, buffer.elements, param.dtype->bytes, bound.name);
    }
    if (auto own = case_inits.find(param.name); own != case_inits.end()) {
      buffer.init = bind_init(param, own->second, bound.dims, bound.name, fmt::format("[[cases]] init.{}", param.name));
    } else if (given != nullptr && given->init) {
      buffer.init = bind_init(param, *given->init, bound.dims, bound.name, fmt::format("[buffers.{}]", param.name));
    } else if (param.is_input_buffer()) {
      buffer.init = default_init(*param.dtype);
    } else if (spec_.seed_task) {
      buffer.init = InitSpec{InitKind::zeros, 0, 0};  // a reference that accumulates into it needs zeros
    }
    if (buffer.init) check_init_fits_buffer(param, *buffer.init, buffer.elements, bytes, bound.name);
    if (buffer.is_output) buffer.tolerance = tolerance_for(param, given);
    return buffer;
  }

  std::vector<std::int64_t> evaluate_shape(const KernelParam& param, const std::vector<Expression>& shape,
                                           const BoundCase& bound) const {
    std::vector<std::int64_t> extents;
    for (const Expression& expression : shape) {
      try {
        extents.push_back(expression.evaluate_integer(bound.dims));
      } catch (const Error& error) {
        throw input_error("buffer {}, case \"{}\": {}", param.name, bound.name, error.what());
      }
    }
    return extents;
  }

  std::string inferred_shape(const KernelParam& param) const {
    if (size_params_.size() == 1) return fmt::format("\"{}\"", size_params_[0]->name);
    if (spec_less_) return seed_size_rule();
    if (size_params_.empty()) {
      throw input_error(
          "cannot infer the size of buffer {}: {} has no size parameter; give [buffers.{}] shape = \"...\" "
          "in kopt.toml",
          param.name, signature_.entry, param.name);
    }
    throw input_error(
        "cannot infer the size of buffer {}: {} has several size parameters ({}); give [buffers.{}] shape = "
        "\"...\" in kopt.toml",
        param.name, signature_.entry, join_names(size_params_, [](const KernelParam* p) { return p->name; }),
        param.name);
  }

  std::string seed_size_rule() const {
    if (size_params_.empty()) return fmt::format("{} elements (no integer dims)", kSeedSizeWithoutDims);
    return fmt::format("the product of the two largest of {}",
                       join_names(size_params_, [](const KernelParam* p) { return p->name; }));
  }

  // The seed benchmark's flat size before its cap (kSeedSizeWithoutDims without integer dims);
  // the dims' values are checked by now. An overflowing product is past any cap.
  std::int64_t seed_elements_uncapped(const BoundCase& bound) const {
    std::vector<std::int64_t> values;
    for (const KernelParam* size : size_params_) values.push_back(std::get<std::int64_t>(bound.dims.at(size->name)));
    std::ranges::sort(values, std::greater<>());
    std::int64_t elements = kSeedSizeWithoutDims;
    if (values.size() == 1) elements = values[0];
    if (values.size() >= 2 && __builtin_mul_overflow(values[0], values[1], &elements)) {
      elements = std::numeric_limits<std::int64_t>::max();
    }
    return elements;
  }

  std::vector<std::int64_t> seed_extent(const KernelParam& param, const BoundCase& bound) {
    const std::int64_t uncapped = seed_elements_uncapped(bound);
    const std::int64_t elements = std::min(uncapped, kSeedSizeLimit);
    // At the cap, a ref.py that sizes its arrays from the dims sees other shapes than the
    // buffers it is handed: said here, before its error would be the first word of it.
    const std::string capped = uncapped > kSeedSizeLimit
                                   ? "; capped at 2^28, the seed's limit, so a ref.py that sizes arrays from the dims "
                                     "will not match: give [buffers] shapes in a kopt.toml"
                                   : "";
    std::string guess = fmt::format("buffer {}: {} elements ({}, as the seed's benchmark sizes it; no kopt.toml{})",
                                    param.name, elements, seed_size_rule(), capped);
    if (std::ranges::find(guesses_, guess) == guesses_.end()) guesses_.push_back(guess);
    return {elements};
  }

  // The lone integer scalar sizes the buffer; said once per buffer.
  std::vector<std::int64_t> inferred_extent(const KernelParam& param, const BoundCase& bound) {
    if (size_params_.size() != 1) return seed_extent(param, bound);
    const std::string& size_name = size_params_[0]->name;
    std::int64_t size = std::get<std::int64_t>(bound.dims.at(size_name));
    std::string elements = spec_.cases.size() == 1 ? std::to_string(size) : size_name;
    std::string guess =
        fmt::format("buffer {}: {} elements{} (the value of {}; no [buffers.{}] in kopt.toml)", param.name,
                    elements, spec_.cases.size() == 1 ? "" : " in each case", size_name, param.name);
    if (std::ranges::find(guesses_, guess) == guesses_.end()) guesses_.push_back(guess);
    return {size};
  }

  Tolerance tolerance_for(const KernelParam& param, const BufferSpec* given) const {
    if (given != nullptr && given->tolerance) return *given->tolerance;
    if (spec_.tolerance) return *spec_.tolerance;
    const auto [atol, rtol] = default_atol_rtol(*param.dtype, precision_);
    return {atol, rtol};
  }

  // The work formulas must evaluate on every case, or the roofline would fail much later.
  void check_work(const BoundCase& bound) const {
    for (auto [what, formula] :
         {std::pair{"flops", &spec_.work.flops}, std::pair{"bytes", &spec_.work.bytes}}) {
      if (!*formula) continue;
      try {
        (*formula)->evaluate(bound.dims);
      } catch (const Error& error) {
        throw input_error("[work] {}, case \"{}\": {}", what, bound.name, error.what());
      }
    }
  }

  const ProblemSpec& spec_;
  const KernelSignature& signature_;
  const PrecisionPolicy& precision_;
  std::vector<std::string>& guesses_;
  std::vector<const KernelParam*> size_params_;
  bool spec_less_;  // no kopt.toml: sized by the seed's rule where one dim cannot size a buffer
};

// A --dim must name something, or a typo would run the default size silently.
void check_overrides(const ProblemSpec& spec, const KernelSignature& signature, const Dims& overrides) {
  for (const auto& [name, value] : overrides) {
    bool known = signature.find(name) != nullptr ||
                 std::ranges::any_of(spec.cases, [&](const ProblemCase& c) { return c.dims.contains(name); });
    if (!known) {
      throw input_error("--dim {}: {} is neither a dim of the spec nor a parameter of {} (parameters: {})",
                        name, name, signature.entry,
                        join_names(signature.params, [](const KernelParam& p) { return p.name; }));
    }
  }
}

}  // namespace

Problem bind_problem(ProblemSpec spec, KernelSignature signature, const Dims& dim_overrides) {
  check_overrides(spec, signature, dim_overrides);
  for (ProblemCase& problem_case : spec.cases) {
    for (const auto& [name, value] : dim_overrides) problem_case.dims[name] = value;
  }
  std::vector<std::string> guesses = spec.guesses;
  std::vector<const KernelParam*> sizes = integer_scalars(signature);
  const bool spec_less = !spec.spec_file.has_value();
  if (spec_less && sizes.size() == 1 && !dim_overrides.contains(sizes[0]->name)) {
    const std::string& size = sizes[0]->name;
    for (ProblemCase& problem_case : spec.cases) problem_case.dims.try_emplace(size, kSpecLessSize);
    guesses.push_back(fmt::format("{} = {} (2^24; no kopt.toml gives it; override with --dim {}=...)", size,
                                  kSpecLessSize, size));
  }
  const PrecisionPolicy& precision = spec.precision ? precision_named(*spec.precision) : default_precision(signature);
  Binder binder(spec, signature, precision, guesses);
  binder.check_spec_against_signature();
  std::vector<BoundCase> cases;
  for (const ProblemCase& problem_case : spec.cases) cases.push_back(binder.bind(problem_case));
  return Problem{.spec = std::move(spec),
                 .signature = std::move(signature),
                 .cases = std::move(cases),
                 .guesses = std::move(guesses),
                 .precision = &precision};
}

}  // namespace kopt::spec
