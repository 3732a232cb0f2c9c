// bench_job.hpp's documents as JSON: the job the parent writes for the timing worker and the
// result the worker writes back.
#include <string>
#include <vector>

#include "kopt/measure/bench_job.hpp"
#include "kopt/run/problem_codec.hpp"

namespace kopt::measure {
using nlohmann::json;

namespace {

json settings_to_json(const BenchSettings& s) {
  return {{"mode", timing_mode_name(s.mode)},
          {"l2_flush", l2_flush_name(s.l2_flush)},
          {"target_half_width", s.stopping.target_half_width},
          {"min_samples", s.stopping.min_samples},
          {"min_gpu_seconds", s.stopping.min_gpu_seconds},
          {"timeout_seconds", s.stopping.timeout_seconds},
          {"max_samples", s.stopping.max_samples},
          {"throttle_fraction", s.throttle_fraction},
          {"warmup_calls", s.warmup_calls},
          {"max_calls_per_sample", s.max_calls_per_sample}};
}

BenchSettings settings_from_json(const json& in) {
  BenchSettings s;
  s.mode = timing_mode_from_name(in.at("mode").get<std::string>());
  s.l2_flush = l2_flush_from_name(in.at("l2_flush").get<std::string>());
  s.stopping.target_half_width = in.at("target_half_width");
  s.stopping.min_samples = in.at("min_samples");
  s.stopping.min_gpu_seconds = in.at("min_gpu_seconds");
  s.stopping.timeout_seconds = in.at("timeout_seconds");
  s.stopping.max_samples = in.at("max_samples");
  s.throttle_fraction = in.at("throttle_fraction");
  s.warmup_calls = in.at("warmup_calls");
  s.max_calls_per_sample = in.value("max_calls_per_sample", s.max_calls_per_sample);
  return s;
}

}  // namespace

json worker_phases_to_json(const WorkerPhases& phases) {
  return {{"setup", phases.setup}, {"inputs", phases.inputs}, {"warmup", phases.warmup},
          {"sampling", phases.sampling}, {"recheck", phases.recheck},
          {"sampling_inputs", phases.sampling_inputs}, {"sampling_timed", phases.sampling_timed},
          {"sampling_digests", phases.sampling_digests}, {"sampling_readback", phases.sampling_readback}};
}

WorkerPhases worker_phases_from_json(const json& in) {
  return {.setup = in.at("setup"), .inputs = in.at("inputs"), .warmup = in.at("warmup"),
          .sampling = in.at("sampling"), .recheck = in.at("recheck"),
          .sampling_inputs = in.value("sampling_inputs", 0.0), .sampling_timed = in.value("sampling_timed", 0.0),
          .sampling_digests = in.value("sampling_digests", 0.0),
          .sampling_readback = in.value("sampling_readback", 0.0)};
}

json bench_job_to_json(const BenchJob& job) {
  json variants = json::array();
  for (const BenchVariant& v : job.variants) {
    variants.push_back({{"label", v.label}, {"library", v.library.string()}, {"budgeted", v.budgeted},
                        {"retain_outputs", v.retain_outputs}, {"read_back_outputs", v.read_back_outputs}});
  }
  json cases = json::array();
  for (const spec::BoundCase& c : job.cases) cases.push_back(run::case_to_json(c));
  return {{"kind", "bench"},
          {"schema_version", 1},
          {"variants", variants},
          {"signature", run::signature_to_json(job.signature)},
          {"cases", cases},
          {"sample_key", job.sample_key},
          {"order_seed", job.order_seed},
          {"settings", settings_to_json(job.settings)},
          {"device", job.device},
          {"witness_fd", job.witness_fd},
          {"retention_dir", job.retention_dir.string()},
          {"python_hosted", job.python_hosted}};
}

BenchJob bench_job_from_json(const json& in) {
  BenchJob job;
  for (const json& v : in.at("variants")) {
    job.variants.push_back({v.at("label"), v.at("library").get<std::string>(), v.value("budgeted", false),
                            v.value("retain_outputs", false), v.value("read_back_outputs", true)});
  }
  job.signature = run::signature_from_json(in.at("signature"));
  for (const json& c : in.at("cases")) job.cases.push_back(run::case_from_json(c));
  job.sample_key = in.at("sample_key");
  job.order_seed = in.value("order_seed", std::uint64_t{1});
  job.settings = settings_from_json(in.at("settings"));
  job.device = in.at("device");
  job.witness_fd = in.value("witness_fd", -1);
  job.retention_dir = in.value("retention_dir", std::string());
  job.python_hosted = in.value("python_hosted", false);
  return job;
}

json bench_result_to_json(const BenchJobResult& result) {
  json samples = json::array();
  for (const VariantSamples& s : result.samples) {
    samples.push_back({{"label", s.label},
                       {"case", s.case_name},
                       {"gpu_seconds", s.gpu_seconds},
                       {"host_seconds", s.host_seconds},
                       {"sm_clock_mhz", s.sm_clock_mhz},
                       {"throttled_discarded", s.throttled_discarded},
                       {"stop_reason", s.stop_reason},
                       {"first_call_seconds", s.first_call_seconds},
                       {"calls_per_sample", s.calls_per_sample},
                       {"resolution_seconds", s.resolution_seconds},
                       {"timing_note", s.timing_note},
                       {"l2", s.l2},
                       {"sample_seeds", s.sample_seeds},
                       {"sample_digests", s.sample_digests},
                       {"final_seed", s.final_seed},
                       {"final_digest", s.final_digest},
                       {"final_witness_id", s.final_witness_id},
                       {"digests", s.digests},
                       {"witness_ids", s.witness_ids},
                       {"kept_seeds", s.kept_seeds},
                       {"kept_note", s.kept_note},
                       {"agents_left", s.agents_left},
                       {"interceptors_installed", s.interceptors_installed},
                       {"code_pointers_redirected", s.code_pointers_redirected},
                       {"settings_changed", s.settings_changed},
                       {"settings_set_in_warmup", s.settings_set_in_warmup},
                       {"streams_outside", s.streams_outside},
                       {"work_unjoined", s.work_unjoined},
                       {"unbatched_launches", s.unbatched_launches},
                       {"batch_calls_unlike", s.batch_calls_unlike},
                       {"batch_call_spread", s.batch_call_spread},
                       {"streams_unwatched", s.streams_unwatched},
                       {"recheck", s.recheck ? verify::run_record_to_json(*s.recheck) : json(nullptr)}});
  }
  return {{"kind", "bench"}, {"device", result.device}, {"mode", result.mode}, {"samples", samples},
          {"event_tick_seconds", result.event_tick_seconds}, {"wall_seconds", result.wall_seconds},
          {"phase_seconds", worker_phases_to_json(result.phases)}};
}

BenchJobResult bench_result_from_json(const json& in) {
  BenchJobResult result;
  result.device = in.at("device");
  result.mode = in.at("mode");
  result.wall_seconds = in.at("wall_seconds");
  result.event_tick_seconds = in.value("event_tick_seconds", 0.0);
  result.phases = worker_phases_from_json(in.at("phase_seconds"));
  for (const json& s : in.at("samples")) {
    VariantSamples v;
    v.label = s.at("label");
    v.case_name = s.at("case");
    v.gpu_seconds = s.at("gpu_seconds").get<std::vector<double>>();
    v.host_seconds = s.at("host_seconds").get<std::vector<double>>();
    v.sm_clock_mhz = s.at("sm_clock_mhz").get<std::vector<double>>();
    v.throttled_discarded = s.at("throttled_discarded");
    v.stop_reason = s.at("stop_reason");
    v.first_call_seconds = s.at("first_call_seconds");
    v.calls_per_sample = s.value("calls_per_sample", 1);
    v.resolution_seconds = s.value("resolution_seconds", 0.0);
    v.timing_note = s.value("timing_note", "");
    v.l2 = s.value("l2", "");
    v.sample_seeds = s.value("sample_seeds", std::vector<std::uint64_t>{});
    v.sample_digests = s.value("sample_digests", std::vector<std::uint64_t>{});
    v.final_seed = s.value("final_seed", std::uint64_t{0});
    v.final_digest = s.value("final_digest", std::uint64_t{0});
    v.final_witness_id = s.value("final_witness_id", std::uint32_t{0});
    v.digests = s.value("digests", false);
    v.witness_ids = s.value("witness_ids", std::vector<std::uint32_t>{});
    v.kept_seeds = s.value("kept_seeds", std::vector<std::uint64_t>{});
    v.kept_note = s.value("kept_note", "");
    v.agents_left = s.value("agents_left", std::vector<std::string>{});
    v.interceptors_installed = s.value("interceptors_installed", std::vector<std::string>{});
    v.code_pointers_redirected = s.value("code_pointers_redirected", std::vector<std::string>{});
    v.settings_changed = s.value("settings_changed", std::vector<std::string>{});
    v.settings_set_in_warmup = s.value("settings_set_in_warmup", std::vector<std::string>{});
    v.streams_outside = s.value("streams_outside", std::vector<std::string>{});
    v.work_unjoined = s.value("work_unjoined", std::vector<std::string>{});
    v.unbatched_launches = s.value("unbatched_launches", std::vector<std::string>{});
    v.batch_calls_unlike = s.value("batch_calls_unlike", std::vector<std::string>{});
    v.batch_call_spread = s.value("batch_call_spread", std::vector<double>{});
    v.streams_unwatched = s.value("streams_unwatched", "");
    if (!s.at("recheck").is_null()) v.recheck = verify::run_record_from_json(s.at("recheck"));
    result.samples.push_back(std::move(v));
  }
  return result;
}
}  // namespace kopt::measure
