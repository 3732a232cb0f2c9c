#pragma once
// Precision policies: what a kernel's arithmetic may be done in (data/precisions.toml). A
// problem's policy decides the roofline's compute ceiling, the integrity floor a timing is
// held to, and the least default tolerance of its floating outputs. The spec names one
// (`precision`), or the problem's narrowest floating buffer decides.

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kopt/spec/dtype.hpp"

namespace kopt::spec {

struct KernelSignature;

struct PrecisionPolicy {
  std::string name;                     // "fp32", "tf32", "bf16", ...: what the spec writes
  std::string what;                     // one line for people
  std::vector<std::string> compute;     // rates (data/peaks.toml) the arithmetic may run at
  const DType* rounds_like = nullptr;   // the narrowest type a value passes through; nullptr: none
  std::vector<const DType*> default_for;  // the dtypes whose problems follow it by default
};

// All policies, loaded once from data/precisions.toml and validated.
std::span<const PrecisionPolicy> all_precisions();

// The policy named `name`; input_error naming the known ones when there is none.
const PrecisionPolicy& precision_named(std::string_view name);

// The policy of a spec without `precision`: that of the narrowest floating pointer parameter
// (the first of equal width), or of the first output's dtype where none is floating.
const PrecisionPolicy& default_precision(const KernelSignature& signature);

// The default tolerance of an output of `dtype` under `policy`, each part the larger of the
// dtype's default and that of the type the policy rounds through.
std::pair<double, double> default_atol_rtol(const DType& dtype, const PrecisionPolicy& policy);

// Parses the policy table text; throws input_error naming file and entry on a malformed one.
std::vector<PrecisionPolicy> parse_precision_table(std::string_view toml_text, std::string_view file_name);

}  // namespace kopt::spec
