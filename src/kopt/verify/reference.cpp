#include "kopt/verify/reference.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "kopt/core/embedded_files.hpp"
#include "kopt/core/clock.hpp"
#include "kopt/core/context.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/file_queries.hpp"
#include "kopt/core/files.hpp"
#include "kopt/core/hash.hpp"
#include "kopt/run/host_data.hpp"
#include "kopt/run/device_probe.hpp"
#include "kopt/run/problem_codec.hpp"
#include "kopt/verify/check_job.hpp"
#include "kopt/verify/npy.hpp"

namespace kopt::verify {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr std::string_view kReferenceCacheVersion = "kopt-reference-1";
constexpr std::string_view kCompleteMarker = "complete.json";

// The folder for one (reference, case, seed); `reference_identity` is the hash of what
// determines the reference's behaviour (its source, or its build key).
fs::path cache_dir_for(const fs::path& cache_dir, const std::string& reference_identity, const spec::Problem& problem,
                       const spec::BoundCase& bound_case, std::uint64_t seed) {
  std::string key = ContentHasher()
                        .add(kReferenceCacheVersion)
                        .add(std::to_string(run::kInputGeneratorVersion))
                        .add(reference_identity)
                        .add(run::signature_to_json(problem.signature).dump())
                        .add(run::case_to_json(bound_case).dump())
                        .add(std::to_string(seed))
                        .hex();
  return cache_dir / "reference" / key;
}

bool is_complete(const fs::path& dir) { return path_exists(dir / kCompleteMarker); }

void mark_complete(const fs::path& dir, const json& about) { write_file_atomic(dir / kCompleteMarker, about.dump(2)); }

// The output digests a complete folder's marker records; empty for entries of older builds.
std::vector<std::uint64_t> cached_digests(const fs::path& dir) {
  const json about = json::parse(read_file(dir / kCompleteMarker), nullptr, false);
  if (!about.is_object()) return {};
  return about.value("output_digests", std::vector<std::uint64_t>{});
}

std::string reference_name(const spec::Problem& problem) { return problem.spec.reference->filename().string(); }

fs::path runner_script(const fs::path& cache_dir) {
  const std::string script = data_file("python/kopt_reference_runner.py");
  fs::path path = cache_dir / "python" / ("kopt_reference_runner-" + content_hash(script).substr(0, 12) + ".py");
  if (!path_exists(path)) write_file_atomic(path, script);
  return path;
}

// Writes the inputs of one (case, seed) as .npy files and returns the runner's manifest.
json write_manifest(const spec::Problem& problem, const spec::BoundCase& bound_case, std::uint64_t seed,
                    const fs::path& input_dir, const fs::path& output_dir) {
  json params = json::array();
  for (const spec::BoundArg& arg : bound_case.args) {
    if (arg.scalar) {
      params.push_back({{"name", arg.scalar->name}, {"kind", "scalar"}, {"dtype", arg.scalar->dtype->name},
                        {"value", run::number_to_json(arg.scalar->value)}});
      continue;
    }
    const spec::BoundBuffer& b = *arg.buffer;
    json param = {{"name", b.name}, {"kind", "buffer"}, {"dtype", b.dtype->name}, {"shape", b.shape}};
    param["role"] = !b.is_output ? "input" : (b.init && !b.starts_at_zero() ? "inout" : "output");
    if (b.starts_at_zero()) {
      param["init"] = "zeros";  // the runner makes the zeros; no .npy of an output's size
    } else if (b.init) {
      fs::path path = input_dir / (b.name + ".npy");
      // Read once by the runner this command starts, from a temporary folder: generated straight
      // into the file (no buffer of its size, no copy), and no wait for the disk.
      write_npy_in_place(path, b.dtype->numpy_descr, b.elements, static_cast<std::size_t>(b.bytes()),
                         [&](std::span<std::byte> data) { run::fill_buffer(data, *b.dtype, *b.init, seed, b.name); });
      param["path"] = path.string();
    }
    if (b.is_output) param["output_path"] = (output_dir / (b.name + ".npy")).string();
    params.push_back(param);
  }
  return {{"reference", problem.spec.reference->string()}, {"device", "auto"}, {"params", params}};
}

// The runner's last stderr line says what went wrong with the reference itself.
std::string runner_error(const ProcessResult& result) {
  std::istringstream in(result.err);
  std::string reason;
  for (std::string line; std::getline(in, line);) {
    if (auto at = line.find("REFERENCE_ERROR: "); at != std::string::npos) reason = line.substr(at + 17);
  }
  return reason.empty() ? fmt::format("the reference runner {}: {}", result.outcome(), result.output_tail(3)) : reason;
}

void check_outputs_exist(const spec::Problem& problem, const spec::BoundCase& bound_case, const fs::path& dir) {
  for (const spec::BoundArg& arg : bound_case.args) {
    if (!arg.buffer || !arg.buffer->is_output) continue;
    NpyArray array = read_npy(dir / (arg.buffer->name + ".npy"));
    if (array.elements != arg.buffer->elements) {
      throw input_error("reference {} produced {} elements for output {}, the spec says {}", reference_name(problem),
                        array.elements, arg.buffer->name, arg.buffer->elements);
    }
  }
}

// What a one-shot runner's process said, as the server says it.
RunnerAnswer one_shot_answer(const ProcessResult& result) {
  RunnerAnswer answer{.timed_out = result.timed_out, .seconds = result.seconds};
  if (result.timed_out) return answer;
  if (!result.ok()) {
    answer.error = runner_error(result);
    answer.exit_code = result.exit_status;
    return answer;
  }
  std::istringstream out(result.out);
  for (std::string line; std::getline(out, line);) {
    if (line.starts_with("{")) answer.lines.push_back(json::parse(line));
  }
  return answer;
}

// The runner's answer as JSON lines, one per manifest; throws, naming the reference, when it
// failed or ran out of time.
std::vector<json> answer_lines(const spec::Problem& problem, const RunnerAnswer& answer, std::size_t manifests) {
  if (answer.timed_out) {
    throw input_error("reference {} did not finish within {:.0f} s", reference_name(problem), answer.seconds);
  }
  if (answer.error) {
    throw Error(answer.exit_code == 3 ? ExitCode::environment : ExitCode::bad_input,
                fmt::format("reference {} failed: {}", reference_name(problem), *answer.error));
  }
  if (answer.lines.size() != manifests) {
    throw input_error("the reference runner gave {} result lines for {} manifests", answer.lines.size(), manifests);
  }
  return answer.lines;
}

// Runs `manifests` on the command's runner (reference_server.hpp) when it has one and it still
// serves, else on a runner process of their own.
std::vector<json> run_python_runner(const spec::Problem& problem, const std::vector<fs::path>& manifests,
                                    ReferenceContext& context, std::chrono::duration<double> time_limit) {
  if (context.python_server != nullptr) {
    if (std::optional<RunnerAnswer> answer = context.python_server->run(manifests)) {
      return answer_lines(problem, *answer, manifests.size());
    }
  }
  std::vector<std::string> argv{find_python().string(), runner_script(context.cache_dir).string()};
  for (const fs::path& manifest : manifests) argv.push_back(manifest.string());
  return answer_lines(problem, one_shot_answer(context.runner.run({.argv = argv, .time_limit = time_limit})),
                      manifests.size());
}

}  // namespace

std::chrono::duration<double> python_reference_time_limit(const run::WorkerSettings& worker) {
  return std::chrono::duration<double>(worker.time_limit) * 4;
}

bool is_python_reference(const fs::path& reference) { return reference.extension() == ".py"; }

std::unique_ptr<PythonReferenceServer> serve_python_reference(const spec::Problem& problem, ProcessRunner& runner,
                                                              const fs::path& cache_dir,
                                                              std::chrono::duration<double> time_limit,
                                                              std::optional<int> warm_cuda_device,
                                                              PythonReferenceServer::RequestObserver observer) {
  if (!problem.spec.reference || !is_python_reference(*problem.spec.reference)) return nullptr;
  create_folders(cache_dir / "tmp");
  return std::make_unique<PythonReferenceServer>(runner, find_python(), runner_script(cache_dir), cache_dir, time_limit,
                                                 std::move(observer), warm_cuda_device);
}

bool python_references_cached(const spec::Problem& problem, const std::vector<std::uint64_t>& seeds,
                              const fs::path& cache_dir) {
  const std::string identity = content_hash(read_file(*problem.spec.reference));
  return std::ranges::all_of(problem.cases, [&](const spec::BoundCase& c) {
    return std::ranges::all_of(seeds, [&](std::uint64_t seed) {
      return is_complete(cache_dir_for(cache_dir, identity, problem, c, seed));
    });
  });
}

ReferenceOutputs python_reference_outputs(const spec::Problem& problem, const std::vector<std::uint64_t>& seeds,
                                          ReferenceContext& context) {
  const std::string identity = content_hash(read_file(*problem.spec.reference));
  ReferenceOutputs outputs{.kind = "python"};
  PythonReferenceSeconds seconds;
  Stopwatch clock;
  std::vector<fs::path> manifests;
  std::vector<std::pair<fs::path, json>> pending;  // output dir, what it was made from
  TempDir inputs("reference-inputs", context.cache_dir / "tmp");
  for (std::size_t c = 0; c < problem.cases.size(); ++c) {
    outputs.dirs.emplace_back();
    for (std::uint64_t seed : seeds) {
      fs::path dir = cache_dir_for(context.cache_dir, identity, problem, problem.cases[c], seed);
      outputs.dirs.back().push_back(dir);
      if (is_complete(dir)) {
        ++outputs.cached;
        continue;
      }
      fs::path input_dir = inputs.path() / fmt::format("case{}-seed{}", c, seed);
      create_folders(input_dir);
      create_folders(dir);
      json manifest = write_manifest(problem, problem.cases[c], seed, input_dir, dir);
      manifests.push_back(input_dir / "manifest.json");
      write_file_atomic(manifests.back(), manifest.dump(2));
      pending.push_back({dir, {{"reference", problem.spec.reference->string()}, {"case", problem.cases[c].name},
                               {"seed", seed}}});
    }
  }
  if (manifests.empty()) return outputs;
  seconds.inputs = clock.lap();

  // The runner prints one JSON line per manifest saying what ran it and how long each part took.
  for (const json& line : run_python_runner(problem, manifests, context, python_reference_time_limit(context.worker))) {
    outputs.backend = line.value("backend", "") + " on " + line.value("device", "");
    seconds.runner_load += line.value("load_seconds", 0.0);
    seconds.runner_compute += line.value("seconds", 0.0);
    seconds.runner_save += line.value("save_seconds", 0.0);
  }
  seconds.runner = clock.lap();
  for (std::size_t c = 0, p = 0; c < problem.cases.size(); ++c) {
    for (std::size_t s = 0; s < seeds.size(); ++s) {
      if (p < pending.size() && pending[p].first == outputs.dirs[c][s]) {
        check_outputs_exist(problem, problem.cases[c], pending[p].first);
        mark_complete(pending[p].first, pending[p].second);
        ++outputs.computed;
        ++p;
      }
    }
  }
  seconds.outputs = clock.lap();
  outputs.python_seconds = seconds;
  return outputs;
}

std::vector<json> python_reference_timings(const spec::Problem& problem, std::uint64_t seed, const json& time,
                                           ReferenceContext& context) {
  TempDir work("reference-timing", context.cache_dir / "tmp");
  std::vector<fs::path> manifests;
  for (std::size_t c = 0; c < problem.cases.size(); ++c) {
    fs::path dir = work.path() / fmt::format("case{}", c);
    create_folders(dir / "out");
    json manifest = write_manifest(problem, problem.cases[c], seed, dir, dir / "out");
    manifest["time"] = time;
    manifest["cuda_device"] = context.worker.device;  // the GPU the kernels were timed on
    manifests.push_back(dir / "manifest.json");
    write_file_atomic(manifests.back(), manifest.dump(2));
  }
  std::vector<json> timings;
  for (const json& line : run_python_runner(problem, manifests, context, context.worker.time_limit)) {
    timings.push_back(line.value("timing", json::object()));
  }
  return timings;
}

ReferenceOutputs cuda_reference_outputs(const spec::Problem& problem, const std::vector<std::uint64_t>& seeds,
                                        ReferenceContext& context, build::Compiler& compiler, const std::string& arch) {
  build::BuildOutcome build = compiler.compile({.source = *problem.spec.reference, .arch = arch,
                                                .flags = problem.spec.build.flags});
  if (!build.ok()) {
    throw input_error("reference {} does not compile: {}", reference_name(problem), build.failure->first_error);
  }
  ReferenceOutputs outputs{.kind = "cuda", .backend = "compiled for " + arch};
  CheckJob job{.library = build.artifact->library,
               .signature = problem.signature,
               .scratch_dumps = context.private_cache,
               .device = context.worker.device};
  std::vector<std::size_t> case_of_job;
  for (std::size_t c = 0; c < problem.cases.size(); ++c) {
    outputs.dirs.emplace_back();
    bool all_cached = true;
    for (std::uint64_t seed : seeds) {
      outputs.dirs.back().push_back(cache_dir_for(context.cache_dir, build.artifact->key, problem, problem.cases[c], seed));
      all_cached = all_cached && is_complete(outputs.dirs.back().back());
    }
    outputs.digests.emplace_back(seeds.size());
    if (all_cached) {
      outputs.cached += static_cast<int>(seeds.size());
      for (std::size_t s = 0; s < seeds.size(); ++s) outputs.digests.back()[s] = cached_digests(outputs.dirs.back()[s]);
      continue;
    }
    job.cases.push_back(problem.cases[c]);
    job.dump_dirs.push_back(outputs.dirs.back());
    if (context.private_cache && c < context.kernel_digests.size()) {
      job.dump_unless_digests.push_back(context.kernel_digests[c]);
    }
    case_of_job.push_back(c);
  }
  if (job.cases.empty()) return outputs;
  job.seeds = seeds;
  if (job.dump_unless_digests.size() != job.cases.size()) job.dump_unless_digests.clear();

  run::WorkerOutcome outcome = [&] {
    if (context.prestarted != nullptr) return context.prestarted->run(check_job_to_json(job));
    TempDir work("reference-job", context.cache_dir / "tmp");
    return run::run_worker(context.runner, context.worker, check_job_to_json(job), work.path());
  }();
  if (!outcome.result) {
    throw input_error("reference {} failed: {}{}", reference_name(problem), outcome.failure,
                      outcome.last_progress.empty() ? "" : " during " + outcome.last_progress);
  }
  run::rethrow_worker_error(*outcome.result);
  CheckJobResult result = check_result_from_json(*outcome.result);
  if (result.fatal) throw input_error("reference {} failed: {}", reference_name(problem), result.fatal->message);
  for (const RunRecord& run : result.runs) {
    if (!run.passed()) {
      throw input_error("reference {} is not usable (case {}, seed {}): {}", reference_name(problem), run.case_name,
                        run.seed, run.findings.front().message);
    }
  }
  for (const RunRecord& run : result.runs) {
    const auto j = static_cast<std::size_t>(run.case_index);
    const auto s = static_cast<std::size_t>(std::ranges::find(seeds, run.seed) - seeds.begin());
    outputs.digests[case_of_job[j]][s] = run.output_digests;
    mark_complete(job.dump_dirs[j][s], {{"reference", problem.spec.reference->string()},
                                        {"case", job.cases[j].name}, {"seed", run.seed},
                                        {"output_digests", run.output_digests}});
    ++outputs.computed;
  }
  return outputs;
}

ReferenceOutputs reference_outputs(const spec::Problem& problem, const std::vector<std::uint64_t>& seeds,
                                   ReferenceContext& context, build::Compiler* compiler, const std::string& arch) {
  if (is_python_reference(*problem.spec.reference)) return python_reference_outputs(problem, seeds, context);
  return cuda_reference_outputs(problem, seeds, context, *compiler, arch);
}

}  // namespace kopt::verify
