#include "kopt/verify/input_dependence.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "kopt/core/error.hpp"
#include "kopt/spec/data_file.hpp"

namespace kopt::verify {
namespace {

constexpr const char* kRuleFile = "data/input_dependence.toml";

InputDependenceRule load_rule() {
  const toml::table root = spec::load_data_file(kRuleFile);
  const toml::table& table =
      spec::data_section(root, kRuleFile, "material_difference", {"rounding_ulps", "least_share"});
  InputDependenceRule rule{.rounding_ulps = table["rounding_ulps"].value_or(0.0),
                           .least_share = table["least_share"].value_or(-1.0)};
  if (!(rule.rounding_ulps >= 1) || !(rule.least_share > 0 && rule.least_share <= 1)) {
    throw environment_error("{}: [material_difference] needs rounding_ulps >= 1 and least_share in (0, 1]", kRuleFile);
  }
  return rule;
}

// The pooled view of one output over its seeds, from the comparisons that read it.
struct PooledSpread {
  std::int64_t elements = 0;
  std::int64_t most_elements_in_one_seed = 0;
  bool every_seed_read = true;    // no seed's output equal byte for byte to its reference
  bool every_seed_within = true;  // every seed's output within tolerance
  bool reference_finite = true;
  bool kernel_constant = true;    // one value at every element of every seed
  double reference_low = std::numeric_limits<double>::infinity();
  double reference_high = -std::numeric_limits<double>::infinity();
  double accepted_low = -std::numeric_limits<double>::infinity();
  double accepted_high = std::numeric_limits<double>::infinity();
};

bool same_digest_everywhere(const std::vector<std::uint64_t>& digests) {
  return !digests.empty() && std::ranges::all_of(digests, [&](std::uint64_t d) { return d == digests.front(); });
}

PooledSpread pool(const OutputAcrossSeeds& output) {
  PooledSpread pooled;
  for (const OutputError* error : output.errors) {
    if (!error->spread_known) {
      pooled.every_seed_read = false;
      continue;
    }
    pooled.elements += error->elements;
    pooled.most_elements_in_one_seed = std::max(pooled.most_elements_in_one_seed, error->elements);
    pooled.every_seed_within = pooled.every_seed_within && error->passed();
    pooled.reference_finite = pooled.reference_finite && error->reference_finite;
    pooled.kernel_constant = pooled.kernel_constant && (error->output_constant || error->elements == 1);
    pooled.reference_low = std::min(pooled.reference_low, error->reference_low);
    pooled.reference_high = std::max(pooled.reference_high, error->reference_high);
    pooled.accepted_low = std::max(pooled.accepted_low, error->accepted_low);
    pooled.accepted_high = std::min(pooled.accepted_high, error->accepted_high);
  }
  // Constant within each seed is not constant across them unless every seed wrote the same bytes.
  if (output.errors.size() > 1) pooled.kernel_constant = pooled.kernel_constant && same_digest_everywhere(output.kernel_digests);
  return pooled;
}

std::string over_seeds(std::size_t seeds) { return seeds > 1 ? fmt::format(" and each of {} seeds", seeds) : ""; }

}  // namespace

const InputDependenceRule& input_dependence_rule() {
  static const InputDependenceRule rule = load_rule();
  return rule;
}

bool materially_different(double a, double b, double epsilon, const InputDependenceRule& rule) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) != std::isnan(b);
  if (std::isinf(a) || std::isinf(b)) return a != b;
  return std::fabs(a - b) > rule.rounding_ulps * epsilon * std::max(std::fabs(a), std::fabs(b));
}

std::int64_t material_differences(std::span<const std::byte> a, std::span<const std::byte> b, run::ElementType type,
                                  std::size_t element_bytes, double epsilon, const InputDependenceRule& rule) {
  const auto elements = static_cast<std::int64_t>(std::min(a.size(), b.size()) / element_bytes);
  std::int64_t count = 0;
  for (std::int64_t i = 0; i < elements; ++i) {
    const double x = run::element_as_double(a.data(), type, i);
    const double y = run::element_as_double(b.data(), type, i);
    if (materially_different(x, y, epsilon, rule)) ++count;
  }
  return count;
}

ConstantOutputVerdict judge_constant_output(const OutputAcrossSeeds& output, const InputDependenceRule& rule) {
  const PooledSpread pooled = pool(output);
  // One element seen once accepts a constant trivially; a NaN or infinity is matched only by itself.
  if (pooled.elements < 2 || !pooled.reference_finite || pooled.accepted_low > pooled.accepted_high) return {};
  const spec::BoundBuffer& buffer = *output.buffer;
  const std::string tolerance = fmt::format("atol={:g} rtol={:g}", buffer.tolerance.atol, buffer.tolerance.rtol);
  const bool reference_moves =
      materially_different(pooled.reference_low, pooled.reference_high, buffer.dtype->epsilon, rule);
  if (!reference_moves) {
    if (pooled.most_elements_in_one_seed < 2) return {};
    return {.warning = fmt::format("case {}, output {}: the reference is {:g} at every element{}, so any kernel that "
                                   "writes that value passes this case whatever its inputs",
                                   output.case_name, buffer.name, pooled.reference_low, over_seeds(output.errors.size()))};
  }
  // A constant outside the tolerance is a mismatch already, reported as one.
  if (pooled.every_seed_read && pooled.kernel_constant && pooled.every_seed_within) {
    return {.failure = fmt::format(
                "output {}: one value at every element{}, within {} only because every reference value ({:g} to {:g}) "
                "lies that close to one constant: the output does not follow the inputs",
                buffer.name, over_seeds(output.errors.size()), tolerance, pooled.reference_low, pooled.reference_high)};
  }
  // A scalar's few seeds (three by default) lie within a loose tolerance of each other by chance
  // too often for a warning to mean anything; the failure above needs no such luck.
  if (pooled.most_elements_in_one_seed < 2) return {};
  return {.warning = fmt::format(
              "case {}, output {}: one constant (any in [{:g}, {:g}]) is within {} of every reference value{}, so a "
              "kernel that ignores its inputs would pass this case; a tolerance under half the reference's spread "
              "({:g}) tells them apart",
              output.case_name, buffer.name, pooled.accepted_low, pooled.accepted_high, tolerance,
              output.errors.size() > 1 ? fmt::format(" over {} seeds", output.errors.size()) : "",
              (pooled.reference_high - pooled.reference_low) / 2)};
}

namespace {

// The runs of each case, in seed order: [case][seed] → index in report.runs (-1: none).
std::vector<std::vector<std::ptrdiff_t>> runs_by_case_and_seed(const CheckReport& report) {
  std::vector<std::vector<std::ptrdiff_t>> index(report.cases.size(), std::vector<std::ptrdiff_t>(report.seeds.size(), -1));
  for (std::size_t r = 0; r < report.runs.size(); ++r) {
    const RunRecord& run = report.runs[r];
    const auto seed = static_cast<std::size_t>(std::ranges::find(report.seeds, run.seed) - report.seeds.begin());
    const auto c = static_cast<std::size_t>(run.case_index);
    if (c < index.size() && seed < report.seeds.size()) index[c][seed] = static_cast<std::ptrdiff_t>(r);
  }
  return index;
}

const OutputError* error_named(const RunRecord& run, const std::string& name) {
  auto found = std::ranges::find(run.outputs, name, &OutputError::name);
  return found == run.outputs.end() ? nullptr : &*found;
}

std::uint64_t digest_of(const RunRecord& run, std::size_t output) {
  return output < run.output_digests.size() ? run.output_digests[output] : 0;
}

void add_finding(RunRecord& run, const spec::BoundBuffer& buffer, std::string message) {
  run.findings.push_back({FindingKind::ignores_inputs, buffer.name, std::move(message)});
  order_findings(run);
}

// Two passing seeds whose outputs are the same bytes, where the references differ materially at
// least_share of the elements: the later seed's run fails. Their references are read only then.
void judge_replays(CheckReport& report, std::size_t c, std::size_t output, const spec::BoundBuffer& buffer,
                   const std::vector<std::ptrdiff_t>& runs, const ReferenceReader& read_reference,
                   const InputDependenceRule& rule) {
  for (std::size_t later = 1; later < runs.size(); ++later) {
    for (std::size_t earlier = 0; earlier < later; ++earlier) {
      if (runs[earlier] < 0 || runs[later] < 0) continue;
      RunRecord& first = report.runs[static_cast<std::size_t>(runs[earlier])];
      RunRecord& second = report.runs[static_cast<std::size_t>(runs[later])];
      const std::uint64_t digest = digest_of(first, output);
      if (digest == 0 || digest != digest_of(second, output) || !first.passed() || !second.passed()) continue;
      const std::vector<std::byte> a = read_reference(c, earlier, buffer);
      const std::vector<std::byte> b = read_reference(c, later, buffer);
      const std::int64_t differing = material_differences(a, b, run::element_type(*buffer.dtype), buffer.dtype->bytes,
                                                          buffer.dtype->epsilon, rule);
      const auto least = std::max<std::int64_t>(
          1, static_cast<std::int64_t>(std::ceil(rule.least_share * static_cast<double>(buffer.elements))));
      if (differing < least) continue;
      add_finding(second, buffer,
                  fmt::format("output {} is the same, byte for byte, as for seed {}, where the reference differs "
                              "beyond rounding at {} of {} elements: the output does not follow the inputs",
                              buffer.name, first.seed, differing, buffer.elements));
      return;
    }
  }
}

}  // namespace

void judge_constant_outputs(const spec::BoundCase& bound_case, RunRecord& run, const InputDependenceRule& rule) {
  for (const spec::BoundArg& arg : bound_case.args) {
    if (!arg.buffer || !arg.buffer->is_output) continue;
    const OutputError* error = error_named(run, arg.buffer->name);
    if (error == nullptr) continue;
    ConstantOutputVerdict verdict =
        judge_constant_output({.case_name = bound_case.name, .buffer = &*arg.buffer, .errors = {error}}, rule);
    if (verdict.failure) add_finding(run, *arg.buffer, std::move(*verdict.failure));
  }
}

void judge_input_dependence(CheckReport& report, const ReferenceReader& read_reference, const InputDependenceRule& rule) {
  const std::vector<std::vector<std::ptrdiff_t>> runs = runs_by_case_and_seed(report);
  for (std::size_t c = 0; c < report.cases.size(); ++c) {
    std::size_t output = 0;
    for (const spec::BoundArg& arg : report.cases[c].args) {
      if (!arg.buffer || !arg.buffer->is_output) continue;
      const spec::BoundBuffer& buffer = *arg.buffer;
      OutputAcrossSeeds across{.case_name = report.cases[c].name, .buffer = &buffer};
      for (std::ptrdiff_t r : runs[c]) {
        if (r < 0) continue;
        const RunRecord& run = report.runs[static_cast<std::size_t>(r)];
        if (const OutputError* error = error_named(run, buffer.name)) across.errors.push_back(error);
        across.kernel_digests.push_back(digest_of(run, output));
      }
      if (std::ranges::find(across.kernel_digests, 0u) != across.kernel_digests.end()) across.kernel_digests.clear();
      ConstantOutputVerdict verdict = judge_constant_output(across, rule);
      if (verdict.warning) report.warnings.push_back(std::move(*verdict.warning));
      if (verdict.failure && runs[c].front() >= 0) {
        add_finding(report.runs[static_cast<std::size_t>(runs[c].front())], buffer, std::move(*verdict.failure));
      } else {
        judge_replays(report, c, output, buffer, runs[c], read_reference, rule);
      }
      ++output;
    }
  }
}

}  // namespace kopt::verify
