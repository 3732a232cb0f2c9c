// check_job.hpp's comparisons with the reference: element by element within tolerance, or by
// digest where the bytes are the reference's own.
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <span>
#include <string>

#include "kopt/core/error.hpp"
#include "kopt/run/host_data.hpp"
#include "kopt/verify/check_job.hpp"
#include "kopt/verify/npy.hpp"
#include "kopt/verify/output_comparison.hpp"

namespace kopt::verify {
namespace fs = std::filesystem;

void order_findings(RunRecord& run) {
  std::stable_sort(run.findings.begin(), run.findings.end(),
                   [](const Finding& a, const Finding& b) { return a.kind < b.kind; });
}

namespace {

// One output against the reference's: its error, and a mismatch finding when outside tolerance.
void compare_output(const spec::BoundBuffer& buffer, std::span<const std::byte> output, std::span<const std::byte> expected,
                    RunRecord& run) {
  if (expected.size() != output.size()) {
    throw input_error("reference output {} has {} bytes, the kernel's has {}", buffer.name, expected.size(),
                      output.size());
  }
  OutputError error = compare_to_reference(buffer.name, output, expected, run::element_type(*buffer.dtype),
                                           buffer.dtype->bytes, buffer.tolerance);
  if (!error.passed()) {
    run.findings.push_back(
        {FindingKind::mismatch, buffer.name,
         fmt::format("output {}: {} of {} elements outside atol={:g} rtol={:g} (first at index {}: got {:g}, "
                     "expected {:g}; max abs error {:g})",
                     buffer.name, error.bad_count, error.elements, error.tolerance.atol, error.tolerance.rtol,
                     error.first_bad_index, error.first_bad_value, error.first_bad_expected, error.max_abs_error)});
  }
  run.outputs.push_back(std::move(error));
}

// What compare_to_reference says of an output equal byte for byte to the reference's: every
// element within tolerance (NaN matches NaN), every error zero.
OutputError identical_output(const spec::BoundBuffer& buffer) {
  return {.name = buffer.name, .elements = buffer.elements, .tolerance = buffer.tolerance};
}

}  // namespace

void compare_with_reference(const spec::BoundCase& bound_case, const std::vector<run::Bytes>& outputs,
                            const fs::path& reference_dir, RunRecord& run) {
  for (std::size_t i = 0; i < bound_case.args.size(); ++i) {
    if (!bound_case.args[i].buffer || !bound_case.args[i].buffer->is_output) continue;
    const spec::BoundBuffer& buffer = *bound_case.args[i].buffer;
    compare_output(buffer, outputs[i], read_npy(reference_dir / (buffer.name + ".npy")).data, run);
  }
  order_findings(run);
}

bool same_bytes_as_reference(const RunRecord& run, const std::vector<std::uint64_t>& reference_digests,
                             std::size_t output) {
  return run.output_digests.size() == reference_digests.size() && output < reference_digests.size() &&
         run.output_digests[output] == reference_digests[output];
}

void compare_dumped_outputs(const spec::BoundCase& bound_case, const fs::path& kernel_dir, const fs::path& reference_dir,
                            const std::vector<std::uint64_t>& reference_digests, RunRecord& run) {
  std::size_t output = 0;
  for (const spec::BoundArg& arg : bound_case.args) {
    if (!arg.buffer || !arg.buffer->is_output) continue;
    const spec::BoundBuffer& buffer = *arg.buffer;
    if (same_bytes_as_reference(run, reference_digests, output++)) {
      run.outputs.push_back(identical_output(buffer));
      continue;
    }
    const NpyArray expected = read_npy(reference_dir / (buffer.name + ".npy"));
    // The kernel's dump was written in its own worker, where the kernel could delete or cut it:
    // one that cannot be read, or is not the output's size, is the kernel's wrong output.
    std::optional<NpyArray> dumped;
    std::string unreadable;
    try {
      dumped = read_npy(kernel_dir / (buffer.name + ".npy"));
    } catch (const Error& e) {
      unreadable = e.what();
    }
    if (dumped && dumped->data.size() != expected.data.size()) {
      unreadable = fmt::format("{} bytes where the reference's has {}", dumped->data.size(), expected.data.size());
    }
    if (!unreadable.empty()) {
      run.findings.push_back({FindingKind::mismatch, buffer.name,
                              fmt::format("output {}: the kernel's worker left no readable output ({})", buffer.name,
                                          unreadable)});
      continue;
    }
    compare_output(buffer, dumped->data, expected.data, run);
  }
  order_findings(run);
}

std::uint64_t combine_output_digests(const std::vector<std::uint64_t>& per_output) {
  std::uint64_t combined = 0;
  for (std::uint64_t digest : per_output) combined = run::mix_digest(combined, digest);
  return combined;
}

}  // namespace kopt::verify
