#pragma once
// Element-wise comparison of a kernel's outputs: against the reference (how wrong), and
// against its own second run on the same inputs (unwritten elements, races).
// Pure functions on host bytes, tested without a GPU.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "kopt/run/host_data.hpp"
#include "kopt/spec/problem_spec.hpp"

namespace kopt::verify {

// An element passes when |out - ref| <= atol + rtol * |ref| (numpy.allclose: rtol scales the
// reference, never the output), NaN matches only NaN and an infinity only the same infinity.
// compare_to_reference and compare_reruns hold 64-bit integers to the same rule on their
// exact distance, which a double cannot carry above 2^53.
bool within_tolerance(double out, double ref, const spec::Tolerance& tolerance);

struct OutputError {
  std::string name;
  std::int64_t elements = 0;
  spec::Tolerance tolerance;
  double max_abs_error = 0;
  double mean_abs_error = 0;
  double max_rel_error = 0;      // |out - ref| / |ref| over elements with ref != 0
  double rel_l2_error = 0;       // ||out - ref|| / ||ref||
  std::int64_t bad_count = 0;    // elements outside the tolerance
  std::int64_t first_bad_index = -1;
  double first_bad_value = 0;
  double first_bad_expected = 0;

  // What the input-dependence judgement needs (input_dependence.hpp), from this comparison
  // alone: not kept in check.json. `spread_known` is false where no element was compared (an
  // output equal byte for byte to the reference's is never read).
  bool spread_known = false;
  bool output_constant = false;           // two or more elements, every one the same bytes
  bool reference_finite = true;           // no NaN or infinity in the reference
  double reference_low = 0, reference_high = 0;  // the reference's least and greatest value
  // The constants within tolerance of every reference element: [accepted_low, accepted_high],
  // empty when low > high. A tolerance that accepts one constant for a whole output cannot
  // tell a kernel that ignores its inputs from one that computes.
  double accepted_low = 0, accepted_high = 0;

  bool passed() const { return bad_count == 0; }
};

OutputError compare_to_reference(std::string name, std::span<const std::byte> out, std::span<const std::byte> ref,
                                 run::ElementType type, std::size_t element_bytes, const spec::Tolerance& tolerance);

// Two runs on the same inputs, the output poisoned with different bytes before each.
// An element still holding each run's poison was never written; any other difference is
// nondeterminism, a race when it exceeds the tolerance.
struct RerunComparison {
  std::int64_t unwritten_count = 0;
  std::int64_t first_unwritten_index = -1;
  std::int64_t differing_count = 0;          // bitwise different (unwritten excluded)
  std::int64_t beyond_tolerance_count = 0;
  std::int64_t first_beyond_tolerance_index = -1;
  double first_beyond_values[2] = {0, 0};
};

RerunComparison compare_reruns(std::span<const std::byte> first, std::span<const std::byte> second,
                               unsigned char first_poison, unsigned char second_poison, run::ElementType type,
                               std::size_t element_bytes, const spec::Tolerance& tolerance);

// Index of the first element whose bytes differ; -1 when equal.
std::int64_t first_changed_element(std::span<const std::byte> before, std::span<const std::byte> after,
                                   std::size_t element_bytes);

void to_json(nlohmann::json& out, const OutputError& error);
void from_json(const nlohmann::json& in, OutputError& error);

}  // namespace kopt::verify
