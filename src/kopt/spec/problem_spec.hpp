#pragma once
// The problem spec, kopt.toml (docs/design.md §2), and its binding to a kernel's signature into
// concrete cases: every buffer's size and initial values, every scalar's value.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kopt/spec/block_scaled.hpp"
#include "kopt/spec/expression.hpp"
#include "kopt/spec/kernel_signature.hpp"
#include "kopt/spec/precision.hpp"

namespace kopt {
class Error;
}

namespace kopt::spec {

// segments: cat(FILL:n, ...), consecutive runs each drawn by its own fill (a model's packed weights).
enum class InitKind { normal, uniform, integers, zeros, ones, full, values, choice, segments };

// How a fill's values are laid out over the buffer: as drawn, sorted ascending over the whole
// buffer (sorted(F)), with the elements above (tril(F, n)) or below (triu(F, n)) the
// diagonal of each n x n matrix zeroed, as torch.tril and torch.triu leave them, each run of n
// elements replaced by its softmax (softmax(F, n): torch.softmax along the last axis), or v
// added to each n x n matrix's diagonal (plus_eye(F, n, v): x + torch.eye(n) * v).
// halves(F, n): each run of n elements ends with a copy of its first n/2 (RoPE's cos and sin tables:
// t[:, n//2:] = t[:, :n//2]).
enum class Arrangement { as_drawn, sorted, lower_triangle, upper_triangle, softmax, plus_eye, halves };

// Which elements set(FILL, v, SELECTOR...) writes v to (docs/check.md): an index (negative counts
// from the end, as Python's), a slice start:stop:step:width (width elements at every step-th
// one from start, up to stop; an end left open is the buffer's; a Python slice has width 1), or
// walk(start, lo, hi) (start, then each position the last plus a random draw from [lo, hi), until
// past the end: a suite's `while i < n: x[i] = 1; i += randint(lo, hi)`).
struct ElementSelector {
  enum class Kind { index, slice, walk };
  Kind kind = Kind::index;
  std::optional<std::int64_t> start;  // index: the element; slice: open when absent; walk: the first position
  std::optional<std::int64_t> stop;   // slice only: open when absent
  std::int64_t step = 1;              // slice: from one run to the next; walk: the least step (lo)
  std::int64_t width = 1;             // slice: elements per run; walk: the step's bound (hi, excluded)
  std::string text() const;
};

// One set(..., v, SELECTOR...): v at every selected element, written after the fill beneath it.
struct ElementWrite {
  double value = 0;
  std::vector<ElementSelector> selectors;
};

// One run of cat(FILL:n, ...): n elements drawn by a per-element fill (normal, uniform, int, zeros,
// ones, full).
struct FillSegment {
  InitKind kind = InitKind::zeros;
  double a = 0, b = 0;
  std::int64_t count = 0;
};

// How a buffer is filled, with the values of one case. normal(mean, stddev); uniform(lo, hi);
// int(lo, hi) draws integers in [lo, hi], both ends included (index-like inputs); zeros; ones;
// full(v), the one value v everywhere (a suite's edge case: [2.0] * 30, torch.full(n, -3));
// values(v0, v1, ...), element i is vi (a suite's literal data: torch.tensor([1.0, -2.0]), a
// shape array passed as a parameter), one value per element; choice(a, b, p), each element b
// with probability p (0.5 when not given), else a (torch.randint(0, 2) * 2 - 1 is choice(-1, 1));
// any of these arranged (above).
struct InitSpec {
  InitKind kind = InitKind::normal;
  double a = 0;  // mean, lo, full's value, choice's first value
  double b = 1;  // stddev, hi (included); full's value again; choice's second value
  std::vector<double> values;  // values(...)'s, in element order; empty for every other kind
  double probability = 0.5;    // choice: how likely b is
  Arrangement arrangement = Arrangement::as_drawn;
  std::int64_t width = 0;      // tril/triu/plus_eye: the matrices' row length n; softmax: the row's
  double diagonal = 0;         // plus_eye: the v added to each diagonal element
  std::vector<FillSegment> segments;  // cat(...): the runs, in order
  std::vector<ElementWrite> writes;   // set(...): applied last, innermost first
  // mx_data / mx_scale / mx_scale_blocked: this fill (kind, a, b) is the source's, quantized.
  std::optional<BlockScaledInit> block_scaled;
  // Written by the host and uploaded, never generated on the device: a list, a choice, or an
  // arrangement of the whole buffer, is no formula of (seed, index) the device generator knows;
  // nor are runs of several fills or elements written over a fill.
  bool host_written() const {
    return kind == InitKind::values || kind == InitKind::choice || kind == InitKind::segments ||
           arrangement != Arrangement::as_drawn || !writes.empty() || block_scaled.has_value();
  }
  std::string text() const;  // as a spec would write it: "normal", "uniform(-1,1)", "int(0,99)"
  // Parses the spellings of InitFormula with numbers for bounds; throws input_error quoting `text`.
  static InitSpec parse(std::string_view text);
};

// The spellings of a bound fill's writes and runs (init_writes.cpp): set(TEXT, v, ...), cat(...).
std::string written_text(std::string text, const std::vector<ElementWrite>& writes);
std::string segments_text(const std::vector<FillSegment>& segments);

// An init as kopt.toml writes it: the spellings of InitSpec, plus int[lo,hi] (as int(lo,hi))
// and int[lo,hi) (hi excluded, as torch.randint), with every argument an expression of the
// dims ("int[0, num_bins)"), so that one spec fills each case by its own dims.
class InitFormula {
 public:
  // Throws input_error quoting `text`; bounds that read no dim are checked here already.
  static InitFormula parse(std::string_view text);

  const std::string& text() const { return text_; }  // as written, whitespace collapsed
  InitKind kind() const { return kind_; }
  std::vector<std::string> names() const;  // the dims its arguments read
  bool block_scaled() const { return block_scaled_.has_value(); }
  // The fill of the case whose dims are `dims`; throws input_error quoting the text.
  InitSpec bind(const Dims& dims) const;

 private:
  InitSpec bind_integers(const Dims& dims) const;
  InitSpec bind_values(const Dims& dims) const;
  InitSpec bind_choice(const Dims& dims) const;
  InitSpec bind_drawn(const Dims& dims) const;
  static InitFormula arranged(const std::string& text, std::string_view prefix, Arrangement arrangement);
  // set(FILL, v, SELECTOR...) and cat(FILL:n, ...) (init_writes.cpp).
  static InitFormula with_writes(const std::string& text);
  static InitFormula concatenated(const std::string& text);
  void bind_writes(InitSpec& init, const Dims& dims) const;
  std::vector<std::string> write_names() const;
  // mx_data(...), mx_scale(...), mx_scale_blocked(...) (init_block_scaled.cpp); nothing for another spelling.
  static std::optional<InitFormula> block_scaled(const std::string& text);
  static InitFormula block_scaled(const std::string& text, std::string_view prefix, BlockScaledPart part);
  BlockScaledInit bind_block_scaled(const Dims& dims) const;
  double argument(std::size_t index, const Dims& dims) const;
  Error failure(std::string_view why) const;

  std::string text_;
  InitKind kind_ = InitKind::normal;
  std::vector<Expression> arguments_;  // none: the kind's defaults
  // values(...)'s inf, -inf and nan by argument index, whose arguments_ entry is parsed from "0"
  // and never read: a suite's edge data (max pooling over -inf) that no expression evaluates to.
  std::map<std::size_t, double> non_finite_;
  bool half_open_ = false;             // int[lo,hi)
  Arrangement arrangement_ = Arrangement::as_drawn;  // sorted(F), tril/triu/softmax(F, n), plus_eye(F, n, v)
  std::optional<Expression> width_;                  // tril/triu/softmax/plus_eye's n
  std::optional<Expression> diagonal_;               // plus_eye's v
  struct SelectorFormula {
    ElementSelector::Kind kind = ElementSelector::Kind::index;
    std::vector<std::optional<Expression>> parts;  // index: {i}; slice: {start, stop, step, width}; walk: {start, lo, hi}
  };
  struct WriteFormula {
    Expression value;
    std::vector<SelectorFormula> selectors;
  };
  ElementSelector bind_selector(const SelectorFormula& formula, const Dims& dims) const;
  std::vector<WriteFormula> writes_;         // set(...)'s, innermost first
  std::vector<InitFormula> segment_fills_;   // cat(...)'s fills and counts
  std::vector<Expression> segment_counts_;
  // mx_data(F, element, block, source) and its kin: this formula's fill is the source's.
  struct BlockScaledFormula {
    BlockScaledPart part;
    std::string element;
    Expression block;
    std::string source;
    std::optional<Expression> rows, columns;  // mx_scale_blocked's
  };
  std::optional<BlockScaledFormula> block_scaled_;
};

struct Tolerance {
  double atol = 0;
  double rtol = 0;
};

struct BufferSpec {
  std::vector<Expression> shape;          // "M*K" is one dimension; ["M", "K"] is two
  std::optional<InitFormula> init;        // on an output: its value before every call (zeros, or in-out)
  std::optional<Tolerance> tolerance;     // overrides [tolerance] for this output
  // The dtype the problem is defined in (`dtype = "float16"`): a kernel whose parameter has
  // another is refused at binding, so a float* kernel cannot pass an fp16 problem's checks.
  std::optional<std::string> dtype;
};

struct WorkSpec {
  std::optional<Expression> flops;  // FLOP per solve call
  std::optional<Expression> bytes;  // minimum DRAM bytes per solve call
};

struct BuildSpec {
  std::vector<std::string> flags;            // extra nvcc flags for the kernel and a .cu reference
                                             // ([build] cutlass adds its -I folders here)
  std::string arch = "native";               // "native", "sm_90", "sm_90a", ...
};

struct TuneSpec {
  std::vector<std::pair<std::string, std::vector<std::string>>> params;  // in spec order
  std::vector<Expression> restrictions;
};

struct ProblemCase {
  std::string name;  // "default" for [dims]; else the case's `name` key, else "M=1024 N=1024"
  Dims dims;         // [dims] with the case's own values laid over them
  // The case's own fills of inputs (`init = { x = "zeros" }`), laid over [buffers.x] init: an edge
  // case of a suite (all zeros, a narrower range) keeps its values. Inputs and in-out buffers only.
  std::map<std::string, InitFormula, std::less<>> inits;
};

struct ProblemSpec {
  std::string name;                              // default: the folder's name
  std::filesystem::path directory;               // relative paths resolve here
  std::filesystem::path kernel;                  // absolute
  std::optional<std::filesystem::path> reference;  // absolute; none: no reference
  std::optional<std::string> entry;
  std::vector<ProblemCase> cases;                // never empty after loading
  std::map<std::string, BufferSpec, std::less<>> buffers;
  std::optional<Tolerance> tolerance;
  WorkSpec work;
  BuildSpec build;
  TuneSpec tune;
  // The precision policy the spec names (`precision`, data/precisions.toml; `allow_tf32 = true`
  // is "tf32"); none: the problem's narrowest floating buffer decides (spec/precision.hpp).
  std::optional<std::string> precision;
  // A seed task folder (a kernel and a ref.py, no kopt.toml): every buffer is sized the way
  // the seed's benchmark sizes it (one flat size from the integer dims) and every output
  // starts at zero, for the kernel and the reference alike (docs/check.md).
  bool seed_task = false;
  std::vector<std::string> guesses;              // what was inferred, one sentence each
  // The kopt.toml read (for parse_problem_spec: directory / file_name); none: a spec-less
  // problem, where bind_problem may guess the lone size parameter's value.
  std::optional<std::filesystem::path> spec_file;
};

// Parses kopt.toml text. Unknown keys are errors (a typo must not be silently ignored).
// Throws input_error naming `file_name`, the key and, where known, the line.
ProblemSpec parse_problem_spec(std::string_view toml_text, const std::filesystem::path& directory,
                               std::string_view file_name);

ProblemSpec load_problem_spec(const std::filesystem::path& toml_path);

// As above, with `kernel` standing in for the spec's own kernel (a variant checked against
// its problem's spec); the spec then need not name a kernel.
ProblemSpec load_problem_spec(const std::filesystem::path& toml_path, const std::filesystem::path& kernel);

// What the command line names as KERNEL:
//  - a folder holding kopt.toml: that spec;
//  - a .toml file: that spec;
//  - a .cu file: kopt.toml beside it when there is one, with this file as the kernel (so a
//    variant is checked against its problem's spec); else a spec-less problem whose guesses
//    say what was assumed;
// `spec_override` (--spec) names the spec explicitly, with `target` as the kernel.
ProblemSpec locate_problem(const std::filesystem::path& target,
                           const std::optional<std::filesystem::path>& spec_override = std::nullopt);

// One kernel argument of one case.
struct BoundBuffer {
  std::string name;
  const DType* dtype = nullptr;
  std::int64_t elements = 0;
  std::vector<std::int64_t> shape;   // product == elements
  bool is_output = false;            // written by the kernel (output or in-out)
  std::optional<InitSpec> init;      // inputs, in-out buffers and zero-start outputs; none: poisoned
  Tolerance tolerance;               // for outputs

  std::int64_t bytes() const { return elements * static_cast<std::int64_t>(dtype->bytes); }
  // An output that init = "zeros" sets to zero before every call (the kernel may accumulate
  // into it); like every output with an init, it is never poisoned (docs/check.md).
  bool starts_at_zero() const { return is_output && init && init->kind == InitKind::zeros; }
};

struct BoundScalar {
  std::string name;
  const DType* dtype = nullptr;
  Number value;  // checked to fit dtype
};

struct BoundArg {
  std::optional<BoundBuffer> buffer;  // exactly one of buffer, scalar
  std::optional<BoundScalar> scalar;
};

struct BoundCase {
  std::string name;
  Dims dims;
  std::vector<BoundArg> args;  // in the order of the signature's parameters
};

struct Problem {
  ProblemSpec spec;
  KernelSignature signature;
  std::vector<BoundCase> cases;
  std::vector<std::string> guesses;  // the spec's guesses plus those made while binding
  // What the arithmetic may be done in: the roofline's compute ceiling, the floor a timing is
  // held to, the least default tolerance of a floating output. Set by binding.
  const PrecisionPolicy* precision = nullptr;

  // The case named `name`; nullptr when there is none.
  const BoundCase* find_case(std::string_view name) const;
  // `precision`, or the signature's default for a Problem that was not bound.
  const PrecisionPolicy& precision_policy() const;
};

// Binds the spec to the signature, with `dim_overrides` (--dim) laid over every case.
// Fills what can be inferred safely (a lone integer scalar sizes every buffer; default init
// and tolerance by dtype) and records each guess; refuses with input_error, naming the
// buffer or scalar, where a guess would be unsafe: a buffer whose size cannot be known, a
// scalar without a value, a [buffers.X] that names no parameter, a shape with an unknown dim,
// a size that is zero, negative or overflows, a value that does not fit its C type.
Problem bind_problem(ProblemSpec spec, KernelSignature signature, const Dims& dim_overrides = {});

// Reads the kernel, parses its signature (the spec's entry), binds. One call for the CLI.
Problem load_problem(const std::filesystem::path& target,
                     const std::optional<std::filesystem::path>& spec_override, const Dims& dim_overrides);

}  // namespace kopt::spec
