#include "kopt/workload/accuracy_gate.hpp"

#include <span>

#include <fmt/format.h>

#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/run/host_data.hpp"
#include "kopt/spec/dtype.hpp"
#include "kopt/verify/npy.hpp"
#include "kopt/verify/output_comparison.hpp"

namespace kopt::workload {
namespace {

struct LoadedOutput {
  const spec::DType* dtype = nullptr;
  std::vector<std::byte> bytes;
};

const spec::DType* dtype_of_descr(const std::string& descr) {
  for (const spec::DType& dtype : spec::all_dtypes()) {
    if (dtype.numpy_descr == descr) return &dtype;
  }
  return nullptr;
}

LoadedOutput load_output(const std::filesystem::path& path, const std::string& raw_dtype) {
  LoadedOutput out;
  if (path.extension() == ".npy") {
    verify::NpyArray array = verify::read_npy(path);
    out.dtype = dtype_of_descr(array.descr);
    if (out.dtype == nullptr) throw input_error("{}: an array of {}, which the gate cannot compare", path.string(), array.descr);
    out.bytes = std::move(array.data);
    return out;
  }
  out.dtype = spec::dtype_named(raw_dtype);
  const std::string text = read_file(path);
  const auto* begin = reinterpret_cast<const std::byte*>(text.data());
  out.bytes.assign(begin, begin + text.size());
  if (out.bytes.size() % out.dtype->bytes != 0) {
    throw input_error("{}: {} bytes are not a whole number of {} elements", path.string(), out.bytes.size(), raw_dtype);
  }
  return out;
}

GateResult compare_files(const AccuracyGate& gate, const std::filesystem::path& original,
                         const std::filesystem::path& candidate) {
  LoadedOutput o, c;
  try {
    o = load_output(original, gate.dtype);
    c = load_output(candidate, gate.dtype);
  } catch (const Error& error) {
    return {false, error.what()};
  }
  if (o.dtype != c.dtype) return {false, fmt::format("its output is {}, the original's {}", c.dtype->name, o.dtype->name)};
  const std::size_t size = o.dtype->bytes;
  if (o.bytes.size() != c.bytes.size()) {
    return {false, fmt::format("its output holds {} elements, the original's {}", c.bytes.size() / size, o.bytes.size() / size)};
  }
  const verify::OutputError error = verify::compare_to_reference("output", c.bytes, o.bytes, run::element_type(*o.dtype),
                                                                 size, {gate.atol, gate.rtol});
  if (error.passed()) {
    return {true, fmt::format("largest difference {:.3g} over {} elements (atol {:g}, rtol {:g})", error.max_abs_error,
                              error.elements, gate.atol, gate.rtol)};
  }
  return {false, fmt::format("{} of {} output elements beyond atol {:g} + rtol {:g} (first at {}: {:g}, the original's "
                             "{:g}; largest difference {:.3g})",
                             error.bad_count, error.elements, gate.atol, gate.rtol, error.first_bad_index,
                             error.first_bad_value, error.first_bad_expected, error.max_abs_error)};
}

GateResult run_gate_command(const AccuracyGate& gate, const std::filesystem::path& folder,
                            const std::filesystem::path& original, const std::filesystem::path& candidate,
                            ProcessRunner& runner, double timeout_seconds) {
  ProcessSpec process;
  process.argv = gate.command;
  process.working_dir = folder;
  process.time_limit = std::chrono::duration<double>(timeout_seconds);
  process.env = {{"KOPT_WORKLOAD_ORIGINAL_OUTPUT", std::filesystem::absolute(original).string()},
                 {"KOPT_WORKLOAD_CANDIDATE_OUTPUT", std::filesystem::absolute(candidate).string()}};
  const ProcessResult result = runner.run(process);
  const std::string said = result.output_tail(1);
  if (result.ok()) return {true, said.empty() ? "the gate command passed it" : "the gate command passed it: " + said};
  return {false, fmt::format("the gate command {}{}", result.outcome(), said.empty() ? "" : ": " + said)};
}

}  // namespace

GateResult judge_output(const AccuracyGate& gate, const std::filesystem::path& folder,
                        const std::filesystem::path& original_output, const std::filesystem::path& candidate_output,
                        ProcessRunner& runner, double timeout_seconds) {
  if (!gate.command.empty()) {
    return run_gate_command(gate, folder, original_output, candidate_output, runner, timeout_seconds);
  }
  return compare_files(gate, original_output, candidate_output);
}

}  // namespace kopt::workload
