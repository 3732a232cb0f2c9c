#pragma once
// Whether a check's outputs follow the kernel's inputs. A tolerance that accepts one constant
// for a whole output (every reference value lies within it of one value) cannot tell a kernel
// that computes from one that writes that constant, and one that accepts another seed's output
// cannot tell a kernel that replays it. Where the tolerance is that loose, kopt asks instead
// whether the kernel's output moves where the reference's moves by more than rounding could
// explain (docs/integrity.md, "Outputs that ignore the inputs"; data/input_dependence.toml).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "kopt/run/host_data.hpp"
#include "kopt/spec/problem_spec.hpp"
#include "kopt/verify/check.hpp"
#include "kopt/verify/output_comparison.hpp"

namespace kopt::verify {

struct InputDependenceRule {
  double rounding_ulps = 0;  // a difference beyond this many epsilons of the larger value is material
  double least_share = 0;    // of an output's elements that must differ materially between two seeds
};

// data/input_dependence.toml, read once; a malformed file is an environment error (exit 3).
const InputDependenceRule& input_dependence_rule();

// Whether `a` and `b` are further apart than rounding to a type of `epsilon` could move them.
bool materially_different(double a, double b, double epsilon, const InputDependenceRule& rule);

// How many elements of two reference outputs differ materially.
std::int64_t material_differences(std::span<const std::byte> a, std::span<const std::byte> b, run::ElementType type,
                                  std::size_t element_bytes, double epsilon, const InputDependenceRule& rule);

// One output of one case, over the case's seeds, as the comparisons with the reference saw it.
struct OutputAcrossSeeds {
  std::string case_name;
  const spec::BoundBuffer* buffer = nullptr;
  std::vector<const OutputError*> errors;     // one per seed of the case, in seed order
  std::vector<std::uint64_t> kernel_digests;  // the kernel's output digest per seed; empty: not taken
};

struct ConstantOutputVerdict {
  std::optional<std::string> failure;  // the kernel writes one value whatever its inputs
  std::optional<std::string> warning;  // the tolerance accepts a constant: the case proves little
};

// A tolerance that accepts one constant for every element and seed of the output is a warning;
// a kernel that writes one such constant everywhere, where the reference's values differ
// materially, fails.
ConstantOutputVerdict judge_constant_output(const OutputAcrossSeeds& output, const InputDependenceRule& rule);

// One run's outputs alone (a timed call the bench kept and compares within tolerance): an output
// that judge_constant_output fails is an `ignores_inputs` finding of the run.
void judge_constant_outputs(const spec::BoundCase& bound_case, RunRecord& run, const InputDependenceRule& rule);

// The reference's output `buffer` of a case and seed, by their indices in the check.
using ReferenceReader = std::function<std::vector<std::byte>(std::size_t case_index, std::size_t seed_index,
                                                             const spec::BoundBuffer& buffer)>;

// Every case and output of a checked report: judge_constant_output, then outputs equal byte for
// byte for two seeds whose references differ materially at `least_share` of the elements (a
// replay). Failures become `ignores_inputs` findings of the run concerned, warnings the report's.
void judge_input_dependence(CheckReport& report, const ReferenceReader& read_reference, const InputDependenceRule& rule);

}  // namespace kopt::verify
