#include "kopt/verify/check_job.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <span>

#include "kopt/core/clock.hpp"
#include "kopt/core/error.hpp"
#include "kopt/run/device_buffer.hpp"
#include "kopt/run/device_digest.hpp"
#include "kopt/run/device_info.hpp"
#include "kopt/run/first_call_outputs.hpp"
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
  const Stopwatch wall;
  library.call(call);
  launch_error = library.take_launch_error();
  run::check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  return wall.seconds();
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

std::vector<std::uint64_t> output_digests_of(const std::vector<ArgumentData>& arguments,
                                             const std::vector<Bytes>& outputs) {
  std::vector<std::uint64_t> per_output;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    if (arguments[i].buffer != nullptr && arguments[i].buffer->is_output) per_output.push_back(run::output_digest(outputs[i]));
  }
  return per_output;
}

// Writes each first-call output as <name>.npy in `dir`, but those whose digest in `run`
// equals the one at their place in `known` (nobody will read them:
// CheckJob::dump_unless_digests).
void dump_outputs(const std::vector<ArgumentData>& arguments, run::FirstCallOutputs& first, const fs::path& dir,
                  Durability durability, const RunRecord& run, const std::vector<std::uint64_t>& known) {
  std::size_t output = 0;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const spec::BoundBuffer* buffer = arguments[i].buffer;
    if (buffer == nullptr || !buffer->is_output) continue;
    if (same_bytes_as_reference(run, known, output++)) continue;
    write_npy_streamed(dir / (buffer->name + ".npy"), buffer->dtype->numpy_descr, buffer->elements,
                       static_cast<std::size_t>(buffer->bytes()),
                       [&](const ByteSink& sink) { first.stream(i, sink); }, durability);
  }
}

// What one (case, seed) of a check job works with.
struct SeedRun {
  const CheckJob& job;
  const run::KernelLibrary& library;
  std::size_t case_index;
  std::size_t seed_index;
  run::KernelArguments& arguments;
  CheckWorkerPhases& phases;
  run::FirstCallOutputs& first;  // the first call's outputs; their memory kept from seed to seed

  const spec::BoundCase& bound_case() const { return job.cases[case_index]; }
  std::uint64_t seed() const { return job.seeds_of_case(case_index)[seed_index]; }
  RunRecord record() const {
    return {.case_name = bound_case().name, .case_index = static_cast<int>(case_index), .seed = seed()};
  }
};

void note_launch_error(const std::optional<std::string>& launch_error, RunRecord& run) {
  if (launch_error) {
    run.findings.push_back({FindingKind::launch_error, "", "a kernel launch in solve failed: " + *launch_error});
  }
}

void finish_seed(const SeedRun& s, RunRecord& run, Stopwatch& clock) {
  if (!s.job.reference_dirs.empty()) {
    compare_with_reference(s.bound_case(), s.first.host(), s.job.reference_dirs[s.case_index][s.seed_index], run);
  }
  if (!s.job.dump_dirs.empty()) {
    const auto& known = s.job.dump_unless_digests;
    dump_outputs(s.arguments.data(), s.first, s.job.dump_dirs[s.case_index][s.seed_index],
                 s.job.scratch_dumps ? Durability::scratch : Durability::synced, run,
                 known.empty() ? std::vector<std::uint64_t>{} : known[s.case_index][s.seed_index]);
    clock.lap(s.phases.dumps);
  }
  order_findings(run);
}

// Libraries without kopt's device generator and digest: inputs made on the host and
// uploaded, every output downloaded after both calls and compared element by element.
RunRecord run_one_seed_on_host(const SeedRun& s) {
  std::vector<ArgumentData>& arguments = s.arguments.data();
  RunRecord run = s.record();
  Stopwatch clock;
  run::report_progress(fmt::format("case {} seed {}: first call", s.bound_case().name, s.seed()));
  s.arguments.generate_inputs(s.seed());
  const std::vector<run::KernelArgument>& call = s.arguments.call();

  std::optional<std::string> launch_error;
  s.arguments.prepare_call(kFirstPoison);
  clock.lap(s.phases.generate);
  run.solve_wall_seconds = call_solve(s.library, call, launch_error);
  clock.lap(s.phases.calls);
  note_launch_error(launch_error, run);
  s.first.capture();
  const std::vector<Bytes>& first = s.first.host();
  clock.lap(s.phases.transfer);
  run.output_digests = output_digests_of(arguments, first);
  run.output_digest = combine_output_digests(run.output_digests);
  check_inputs_unchanged(arguments, run);
  check_guards(arguments, run);
  clock.lap(s.phases.checks);

  run::report_progress(fmt::format("case {} seed {}: second call", s.bound_case().name, s.seed()));
  s.arguments.prepare_call(kSecondPoison);
  clock.lap(s.phases.generate);
  call_solve(s.library, call, launch_error);
  clock.lap(s.phases.calls);
  std::vector<Bytes> second = s.arguments.download_outputs();
  clock.lap(s.phases.transfer);
  check_reruns(arguments, first, second, run);
  clock.lap(s.phases.checks);
  finish_seed(s, run, clock);
  return run;
}

std::vector<const run::GuardedDeviceBuffer*> device_buffers(const std::vector<ArgumentData>& arguments, bool outputs) {
  std::vector<const run::GuardedDeviceBuffer*> buffers;
  for (const ArgumentData& arg : arguments) {
    if (arg.buffer == nullptr || arg.buffer->is_output != outputs) continue;
    if (!outputs && !arg.buffer->init) continue;
    buffers.push_back(&*arg.device);
  }
  return buffers;
}

// Each digest a kernel library with kopt's shim can take; the job checks for it up front.
std::vector<std::uint64_t> digests_of(run::DeviceDigester& digester, const run::KernelLibrary& library,
                                      const std::vector<const run::GuardedDeviceBuffer*>& buffers) {
  std::optional<std::vector<std::uint64_t>> digests = digester.digest(library, buffers);
  if (!digests) throw std::logic_error("the kernel library lost its digest kernel");
  return *digests;
}

// The same checks as run_one_seed_on_host, asked of GPU digests first: inputs generated on the
// GPU (the same bits the host generator writes), the inputs' digests before and after the
// first call, the outputs' digests after each call. Only where two digests differ are the
// elements looked at, by the host path's own code, so a finding and its message are what
// they always were. The first call's outputs are kept (on the GPU where they fit) and reach
// the host only where something reads them: a dump for the reference, a rerun that differs.
RunRecord run_one_seed_on_device(const SeedRun& s, run::DeviceDigester& digester, int blocks) {
  std::vector<ArgumentData>& arguments = s.arguments.data();
  RunRecord run = s.record();
  Stopwatch clock;
  const auto inputs = device_buffers(arguments, false);
  const auto outputs = device_buffers(arguments, true);
  run::report_progress(fmt::format("case {} seed {}: first call", s.bound_case().name, s.seed()));
  s.arguments.regenerate_on_device(s.library, s.seed(), kFirstPoison, blocks);
  run::check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  clock.lap(s.phases.generate);
  const std::vector<std::uint64_t> inputs_before = digests_of(digester, s.library, inputs);
  clock.lap(s.phases.checks);

  std::optional<std::string> launch_error;
  run.solve_wall_seconds = call_solve(s.library, s.arguments.call(), launch_error);
  clock.lap(s.phases.calls);
  note_launch_error(launch_error, run);
  // Kept before the digests are taken, and the copies digested where they are on the GPU:
  // what is dumped for the reference is what the digests describe, even for a kernel whose
  // work lands late.
  s.first.capture();
  clock.lap(s.phases.transfer);
  run.output_digests = digests_of(digester, s.library, s.first.digest_buffers());
  run.output_digest = combine_output_digests(run.output_digests);
  if (digests_of(digester, s.library, inputs) != inputs_before) {
    s.arguments.generate_inputs(s.seed());  // the host's copy, to say which element changed
    check_inputs_unchanged(arguments, run);
  }
  check_guards(arguments, run);
  clock.lap(s.phases.checks);

  run::report_progress(fmt::format("case {} seed {}: second call", s.bound_case().name, s.seed()));
  s.arguments.regenerate_on_device(s.library, s.seed(), kSecondPoison, blocks);
  run::check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  clock.lap(s.phases.generate);
  call_solve(s.library, s.arguments.call(), launch_error);
  clock.lap(s.phases.calls);
  // Equal digests after differently poisoned calls: every byte written, and written the same.
  if (digests_of(digester, s.library, outputs) != run.output_digests) {
    std::vector<Bytes> second = s.arguments.download_outputs();
    check_reruns(arguments, s.first.host(), second, run);
  }
  clock.lap(s.phases.checks);
  finish_seed(s, run, clock);
  return run;
}

// The audit's call (CheckJob::single_calls): made as a timed call is, digested on the GPU.
RunRecord run_single_call(const SeedRun& s, run::DeviceDigester& digester, int blocks) {
  RunRecord run = s.record();
  Stopwatch clock;
  run::report_progress(fmt::format("case {} seed {}: first call", s.bound_case().name, s.seed()));
  s.arguments.regenerate_on_device(s.library, s.seed(), kFirstPoison, blocks);
  run::check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  clock.lap(s.phases.generate);
  std::optional<std::string> launch_error;
  run.solve_wall_seconds = call_solve(s.library, s.arguments.call(), launch_error);
  clock.lap(s.phases.calls);
  note_launch_error(launch_error, run);
  run.output_digests = digests_of(digester, s.library, device_buffers(s.arguments.data(), true));
  run.output_digest = combine_output_digests(run.output_digests);
  check_guards(s.arguments.data(), run);
  clock.lap(s.phases.checks);
  order_findings(run);
  return run;
}

}  // namespace

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

namespace {

// Whether `library` has kopt's device generator and digest (every library kopt builds links
// runtime/kopt_shim.cu): tried on a small scratch buffer.
bool has_device_inputs(const run::KernelLibrary& library, run::DeviceDigester& digester) {
  run::GuardedDeviceBuffer probe(64);
  return library.launch_fill(probe.data(), 16, static_cast<int>(run::ElementType::float32),
                             static_cast<int>(spec::InitKind::ones), 0, 0, 1, 1) &&
         digester.digest(library, {&probe}).has_value();
}

}  // namespace

CheckJobResult execute_check_job(const CheckJob& job) {
  CheckJobResult result;
  Stopwatch clock;
  const run::DeviceInfo device = run::query_device(job.device);
  result.device = device;
  run::check_cuda(cudaSetDevice(job.device), "cudaSetDevice");
  run::KernelLibrary library(job.library, job.signature);
  const int blocks = 4 * std::max(device.sm_count, 1);
  run::DeviceDigester digester(blocks);
  const bool on_device = has_device_inputs(library, digester);
  clock.lap(result.phases.setup);
  for (std::size_t c = 0; c < job.cases.size(); ++c) {
    clock.lap();  // the last case's seeds: counted in their own phases, not again as this set-up
    try {
      run::report_progress(fmt::format("case {}: allocating", job.cases[c].name));
      run::KernelArguments arguments(job.cases[c]);
      run::FirstCallOutputs first(arguments);
      clock.lap(result.phases.setup);
      for (std::size_t s = 0; s < job.seeds_of_case(c).size(); ++s) {
        const SeedRun seed_run{job, library, c, s, arguments, result.phases, first};
        if (on_device && job.single_calls) result.runs.push_back(run_single_call(seed_run, digester, blocks));
        else if (on_device) result.runs.push_back(run_one_seed_on_device(seed_run, digester, blocks));
        else result.runs.push_back(run_one_seed_on_host(seed_run));
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

}  // namespace kopt::verify
