#include "kopt/verify/check_job.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <chrono>

#include "kopt/core/error.hpp"
#include "kopt/run/device_buffer.hpp"
#include "kopt/run/device_info.hpp"
#include "kopt/run/host_data.hpp"
#include "kopt/run/kernel_arguments.hpp"
#include "kopt/run/kernel_library.hpp"
#include "kopt/run/problem_codec.hpp"
#include "kopt/run/worker_launcher.hpp"
#include "kopt/verify/npy.hpp"

namespace kopt::verify {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Poison for the two runs: 0xFF makes every floating element NaN; 0x7F makes a large
// finite float32 or a NaN half. Different bytes tell "never written" from "written the same".
constexpr unsigned char kFirstPoison = 0xFF;
constexpr unsigned char kSecondPoison = 0x7F;

using run::ArgumentData;
using run::Bytes;

// Calls solve and waits for everything it launched. Returns the wall time; a launch error
// seen by the library's own runtime is returned through `launch_error`.
double call_solve(const run::KernelLibrary& library, const std::vector<run::KernelArgument>& call,
                  std::optional<std::string>& launch_error) {
  const auto start = std::chrono::steady_clock::now();
  library.call(call);
  launch_error = library.take_launch_error();
  run::check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void check_inputs_unchanged(const std::vector<ArgumentData>& arguments, RunRecord& run) {
  for (const ArgumentData& arg : arguments) {
    if (arg.buffer == nullptr || arg.buffer->is_output) continue;
    Bytes after(arg.device->size());
    arg.device->download(after);
    std::int64_t changed = first_changed_element(arg.initial, after, arg.buffer->dtype->bytes);
    if (changed >= 0) {
      const std::string& name = arg.buffer->name;
      run.findings.push_back({FindingKind::input_modified, name,
                              fmt::format("solve wrote its input {} (first changed element {})", name, changed)});
    }
  }
}

void check_guards(const std::vector<ArgumentData>& arguments, RunRecord& run) {
  for (const ArgumentData& arg : arguments) {
    if (arg.buffer == nullptr) continue;
    auto [before, after] = arg.device->damaged_guard_bytes();
    if (before > 0 || after > 0) {
      std::string where = after > 0 ? fmt::format("{} bytes past the end", after) : "";
      if (before > 0) where += fmt::format("{}{} bytes before the start", where.empty() ? "" : " and ", before);
      run.findings.push_back({FindingKind::out_of_bounds_write, arg.buffer->name,
                              fmt::format("solve wrote out of bounds: {} of {}", where, arg.buffer->name)});
    }
  }
}

void check_reruns(const std::vector<ArgumentData>& arguments, const std::vector<Bytes>& first,
                  const std::vector<Bytes>& second, RunRecord& run) {
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const spec::BoundBuffer* buffer = arguments[i].buffer;
    if (buffer == nullptr || !buffer->is_output) continue;
    RerunComparison rerun = compare_reruns(first[i], second[i], kFirstPoison, kSecondPoison, arguments[i].type,
                                           buffer->dtype->bytes, buffer->tolerance);
    if (buffer->init) rerun.unwritten_count = 0;  // an in-out buffer is never poisoned
    if (rerun.unwritten_count > 0) {
      run.findings.push_back(
          {FindingKind::unwritten_output, buffer->name,
           fmt::format("output {}: {} of {} elements were never written (first at index {})", buffer->name,
                       rerun.unwritten_count, buffer->elements, rerun.first_unwritten_index)});
    }
    if (rerun.beyond_tolerance_count > 0) {
      run.findings.push_back(
          {FindingKind::race, buffer->name,
           fmt::format("output {} changes between two runs on the same inputs at {} elements (first at index {}: "
                       "{:g} then {:g}): a race or a read of uninitialized memory",
                       buffer->name, rerun.beyond_tolerance_count, rerun.first_beyond_tolerance_index,
                       rerun.first_beyond_values[0], rerun.first_beyond_values[1])});
    }
    if (rerun.differing_count > 0) {
      run.bitwise_reproducible = false;
      if (rerun.beyond_tolerance_count == 0) {
        run.notes.push_back(fmt::format(
            "output {} is not bitwise reproducible: {} elements differ between runs, all within tolerance "
            "(atomics or a varying reduction order)",
            buffer->name, rerun.differing_count));
      }
    }
  }
}

std::uint64_t digest_of(const std::vector<ArgumentData>& arguments, const std::vector<Bytes>& outputs) {
  std::vector<std::uint64_t> per_output;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    if (arguments[i].buffer != nullptr && arguments[i].buffer->is_output) per_output.push_back(run::output_digest(outputs[i]));
  }
  return combine_output_digests(per_output);
}

void dump_outputs(const std::vector<ArgumentData>& arguments, const std::vector<Bytes>& outputs, const fs::path& dir,
                  Durability durability) {
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const spec::BoundBuffer* buffer = arguments[i].buffer;
    if (buffer == nullptr || !buffer->is_output) continue;
    write_npy(dir / (buffer->name + ".npy"), buffer->dtype->numpy_descr, buffer->elements, outputs[i], durability);
  }
}

// Findings are listed most fundamental first, so that findings[0] is the cause.
void order_findings(RunRecord& run) {
  std::stable_sort(run.findings.begin(), run.findings.end(),
                   [](const Finding& a, const Finding& b) { return a.kind < b.kind; });
}

RunRecord run_one_seed(const CheckJob& job, const run::KernelLibrary& library, std::size_t case_index,
                       std::size_t seed_index, run::KernelArguments& kernel_arguments) {
  std::vector<ArgumentData>& arguments = kernel_arguments.data();
  const spec::BoundCase& bound_case = job.cases[case_index];
  const std::uint64_t seed = job.seeds_of_case(case_index)[seed_index];
  RunRecord run{.case_name = bound_case.name, .case_index = static_cast<int>(case_index), .seed = seed};
  run::report_progress(fmt::format("case {} seed {}: first call", bound_case.name, seed));
  kernel_arguments.generate_inputs(seed);
  const std::vector<run::KernelArgument>& call = kernel_arguments.call();

  std::optional<std::string> launch_error;
  kernel_arguments.prepare_call(kFirstPoison);
  run.solve_wall_seconds = call_solve(library, call, launch_error);
  if (launch_error) {
    run.findings.push_back({FindingKind::launch_error, "", "a kernel launch in solve failed: " + *launch_error});
  }
  std::vector<Bytes> first = kernel_arguments.download_outputs();
  run.output_digest = digest_of(arguments, first);
  check_inputs_unchanged(arguments, run);
  check_guards(arguments, run);

  run::report_progress(fmt::format("case {} seed {}: second call", bound_case.name, seed));
  kernel_arguments.prepare_call(kSecondPoison);
  call_solve(library, call, launch_error);
  std::vector<Bytes> second = kernel_arguments.download_outputs();
  check_reruns(arguments, first, second, run);

  if (!job.reference_dirs.empty()) {
    compare_with_reference(bound_case, first, job.reference_dirs[case_index][seed_index], run);
  }
  if (!job.dump_dirs.empty()) dump_outputs(arguments, first, job.dump_dirs[case_index][seed_index],
                                            job.scratch_dumps ? Durability::scratch : Durability::synced);
  order_findings(run);
  return run;
}

}  // namespace

void compare_with_reference(const spec::BoundCase& bound_case, const std::vector<run::Bytes>& outputs,
                            const fs::path& reference_dir, RunRecord& run) {
  for (std::size_t i = 0; i < bound_case.args.size(); ++i) {
    if (!bound_case.args[i].buffer || !bound_case.args[i].buffer->is_output) continue;
    const spec::BoundBuffer& buffer = *bound_case.args[i].buffer;
    NpyArray expected = read_npy(reference_dir / (buffer.name + ".npy"));
    if (expected.data.size() != outputs[i].size()) {
      throw input_error("reference output {} has {} bytes, the kernel's has {}", buffer.name, expected.data.size(),
                        outputs[i].size());
    }
    OutputError error = compare_to_reference(buffer.name, outputs[i], expected.data, run::element_type(*buffer.dtype),
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
  order_findings(run);
}

void compare_dumped_outputs(const spec::BoundCase& bound_case, const fs::path& kernel_dir, const fs::path& reference_dir,
                            RunRecord& run) {
  std::vector<run::Bytes> outputs(bound_case.args.size());
  for (std::size_t i = 0; i < bound_case.args.size(); ++i) {
    if (!bound_case.args[i].buffer || !bound_case.args[i].buffer->is_output) continue;
    outputs[i] = read_npy(kernel_dir / (bound_case.args[i].buffer->name + ".npy")).data;
  }
  compare_with_reference(bound_case, outputs, reference_dir, run);
}

std::uint64_t combine_output_digests(const std::vector<std::uint64_t>& per_output) {
  std::uint64_t combined = 0;
  for (std::uint64_t digest : per_output) combined = run::mix_digest(combined, digest);
  return combined;
}

RunRecord verify_single_call(const run::KernelLibrary& library, run::KernelArguments& kernel_arguments,
                             std::uint64_t seed, const fs::path& reference_dir) {
  RunRecord run{.case_name = kernel_arguments.bound_case().name, .seed = seed};
  kernel_arguments.generate_inputs(seed);
  kernel_arguments.prepare_call(kFirstPoison);
  std::optional<std::string> launch_error;
  call_solve(library, kernel_arguments.call(), launch_error);
  if (launch_error) {
    run.findings.push_back({FindingKind::launch_error, "", "a kernel launch in solve failed: " + *launch_error});
  }
  check_guards(kernel_arguments.data(), run);
  compare_with_reference(kernel_arguments.bound_case(), kernel_arguments.download_outputs(), reference_dir, run);
  order_findings(run);
  return run;
}

namespace {

Finding finding_from_cuda(const run::CudaFailure& failure) {
  if (failure.out_of_memory) {
    return {FindingKind::out_of_memory, "", fmt::format("out of device memory ({})", failure.call)};
  }
  return {FindingKind::fault, "", fmt::format("solve faulted: {} (reported by {})", failure.message, failure.call)};
}

}  // namespace

CheckJobResult execute_check_job(const CheckJob& job) {
  CheckJobResult result;
  result.device = run::query_device(job.device);
  run::check_cuda(cudaSetDevice(job.device), "cudaSetDevice");
  run::KernelLibrary library(job.library, job.signature);
  for (std::size_t c = 0; c < job.cases.size(); ++c) {
    try {
      run::report_progress(fmt::format("case {}: allocating", job.cases[c].name));
      run::KernelArguments arguments(job.cases[c]);
      for (std::size_t s = 0; s < job.seeds_of_case(c).size(); ++s) {
        result.runs.push_back(run_one_seed(job, library, c, s, arguments));
      }
    } catch (const run::CudaFailure& failure) {
      // After a fault the context is unusable: every later call would fail the same way.
      result.fatal = finding_from_cuda(failure);
      result.fatal->message = fmt::format("case {}: {}", job.cases[c].name, result.fatal->message);
      return result;
    }
  }
  return result;
}

std::string_view finding_kind_name(FindingKind kind) {
  switch (kind) {
    case FindingKind::out_of_memory: return "out_of_memory";
    case FindingKind::fault: return "fault";
    case FindingKind::launch_error: return "launch_error";
    case FindingKind::unwritten_output: return "unwritten_output";
    case FindingKind::input_modified: return "input_modified";
    case FindingKind::out_of_bounds_write: return "out_of_bounds_write";
    case FindingKind::race: return "race";
    case FindingKind::mismatch: return "mismatch";
  }
  return "unknown";
}

namespace {

FindingKind finding_kind_from_name(const std::string& name) {
  for (int k = 0; k <= static_cast<int>(FindingKind::mismatch); ++k) {
    if (finding_kind_name(static_cast<FindingKind>(k)) == name) return static_cast<FindingKind>(k);
  }
  throw input_error("unknown finding kind \"{}\" in a worker result", name);
}

json finding_to_json(const Finding& f) {
  return {{"kind", finding_kind_name(f.kind)}, {"buffer", f.buffer}, {"message", f.message}};
}

Finding finding_from_json(const json& in) {
  return {finding_kind_from_name(in.at("kind")), in.at("buffer"), in.at("message")};
}

json paths_to_json(const std::vector<std::vector<fs::path>>& paths) {
  json out = json::array();
  for (const auto& row : paths) {
    json r = json::array();
    for (const fs::path& p : row) r.push_back(p.string());
    out.push_back(r);
  }
  return out;
}

std::vector<std::vector<fs::path>> paths_from_json(const json& in) {
  std::vector<std::vector<fs::path>> paths;
  for (const json& row : in) {
    std::vector<fs::path> r;
    for (const json& p : row) r.emplace_back(p.get<std::string>());
    paths.push_back(std::move(r));
  }
  return paths;
}

}  // namespace

RunRecord run_record_from_json(const json& in) {
  RunRecord run{.case_name = in.at("case"), .case_index = in.at("case_index"), .seed = in.at("seed")};
  for (const json& f : in.at("findings")) run.findings.push_back(finding_from_json(f));
  run.outputs = in.at("outputs").get<std::vector<OutputError>>();
  run.bitwise_reproducible = in.at("bitwise_reproducible");
  run.notes = in.at("notes").get<std::vector<std::string>>();
  run.solve_wall_seconds = in.at("solve_wall_seconds");
  run.output_digest = in.value("output_digest", std::uint64_t{0});
  return run;
}

json run_record_to_json(const RunRecord& run) {
  json findings = json::array();
  for (const Finding& f : run.findings) findings.push_back(finding_to_json(f));
  return {{"case", run.case_name},
          {"case_index", run.case_index},
          {"seed", run.seed},
          {"passed", run.passed()},
          {"findings", findings},
          {"outputs", run.outputs},
          {"bitwise_reproducible", run.bitwise_reproducible},
          {"notes", run.notes},
          {"solve_wall_seconds", run.solve_wall_seconds},
          {"output_digest", run.output_digest}};
}

json check_job_to_json(const CheckJob& job) {
  json cases = json::array();
  for (const spec::BoundCase& c : job.cases) cases.push_back(run::case_to_json(c));
  return {{"kind", "check"},
          {"schema_version", 1},
          {"library", job.library.string()},
          {"signature", run::signature_to_json(job.signature)},
          {"cases", cases},
          {"seeds", job.seeds},
          {"seeds_per_case", job.seeds_per_case},
          {"reference_dirs", paths_to_json(job.reference_dirs)},
          {"dump_dirs", paths_to_json(job.dump_dirs)},
          {"scratch_dumps", job.scratch_dumps},
          {"device", job.device}};
}

CheckJob check_job_from_json(const json& in) {
  CheckJob job;
  job.library = in.at("library").get<std::string>();
  job.signature = run::signature_from_json(in.at("signature"));
  for (const json& c : in.at("cases")) job.cases.push_back(run::case_from_json(c));
  job.seeds = in.at("seeds").get<std::vector<std::uint64_t>>();
  job.seeds_per_case = in.value("seeds_per_case", std::vector<std::vector<std::uint64_t>>{});
  job.reference_dirs = paths_from_json(in.at("reference_dirs"));
  job.dump_dirs = paths_from_json(in.at("dump_dirs"));
  job.scratch_dumps = in.value("scratch_dumps", false);
  job.device = in.at("device");
  return job;
}

json check_result_to_json(const CheckJobResult& result) {
  json runs = json::array();
  for (const RunRecord& run : result.runs) runs.push_back(run_record_to_json(run));
  return {{"kind", "check"},
          {"device", result.device},
          {"runs", runs},
          {"fatal", result.fatal ? finding_to_json(*result.fatal) : json(nullptr)}};
}

CheckJobResult check_result_from_json(const json& in) {
  CheckJobResult result;
  result.device = in.at("device");
  for (const json& run : in.at("runs")) result.runs.push_back(run_record_from_json(run));
  if (!in.at("fatal").is_null()) result.fatal = finding_from_json(in.at("fatal"));
  return result;
}

}  // namespace kopt::verify
