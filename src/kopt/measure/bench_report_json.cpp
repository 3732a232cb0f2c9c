// bench.json: the report of run_bench as kopt writes it (schemas/bench.schema.json).
#include "kopt/measure/bench.hpp"

#include <fmt/format.h>

#include "kopt/measure/code_witness.hpp"
#include "kopt/measure/sample_witness.hpp"

namespace kopt::measure {
using nlohmann::json;

namespace {

json variant_to_json(const VariantReport& v) {
  return {{"label", v.label},
          {"case", v.case_name},
          {"summary", v.summary},
          {"samples_seconds", v.samples.gpu_seconds},
          {"host_seconds", v.samples.host_seconds},
          {"sm_clock_mhz", v.samples.sm_clock_mhz},
          {"median_sm_clock_mhz", v.median_sm_clock_mhz},
          {"throttled_discarded", v.samples.throttled_discarded},
          {"stop_reason", v.samples.stop_reason},
          {"first_call_seconds", v.samples.first_call_seconds},
          {"calls_per_sample", v.samples.calls_per_sample},
          {"resolution_seconds", v.samples.resolution_seconds},
          {"timing_note", v.samples.timing_note},
          {"l2", v.samples.l2},
          {"flops", v.flops},
          {"bytes", v.bytes},
          {"flops_per_second", v.flops_per_second},
          {"bytes_per_second", v.bytes_per_second},
          {"floor_seconds", v.floor_seconds},
          {"below_floor", v.below_floor},
          {"median_host_gap_seconds", v.median_host_gap_seconds},
          {"escapes_events", v.escapes_events},
          {"recheck_failure", v.recheck_failure},
          {"agents_left", v.samples.agents_left},
          {"interceptors_installed", v.samples.interceptors_installed},
          {"code_pointers_redirected", v.samples.code_pointers_redirected},
          {"settings_changed", v.samples.settings_changed},
          {"settings_set_in_warmup", v.samples.settings_set_in_warmup},
          {"streams", {{"outside", v.samples.streams_outside},
                       {"unjoined", v.samples.work_unjoined},
                       {"unbatched_launches", v.samples.unbatched_launches},
                       {"batch_calls_unlike", v.samples.batch_calls_unlike},
                       {"median_batch_call_spread", v.median_batch_call_spread},
                       {"probes_judged", v.samples.batch_call_spread.size()},
                       {"unwatched", v.samples.streams_unwatched}}},
          {"witness", v.witness ? variant_witness_to_json(*v.witness) : json(nullptr)},
          {"interleaved", v.interleaved}};
}

json verdict_to_json(const PairVerdict& p) {
  return {{"case", p.case_name},
          {"baseline", p.baseline},
          {"variant", p.label},
          {"verdict", verdict_name(p.comparison.verdict)},
          {"time_ratio", p.comparison.ratio.ratio},
          {"time_ratio_ci", p.comparison.ratio.ci},
          {"speedup", p.comparison.speedup},
          {"min_effect", p.comparison.min_effect},
          {"interleaved", p.interleaved}};
}

json untimed_to_json(const UntimedVariant& u) {
  return {{"label", u.label}, {"case", u.case_name}, {"reason", u.reason}};
}

}  // namespace

json bench_report_to_json(const BenchReport& report) {
  json checks = json::array();
  for (const verify::CheckReport& check : report.checks) checks.push_back(verify::check_report_to_json(check));
  json variants = json::array();
  for (const VariantReport& v : report.variants) variants.push_back(variant_to_json(v));
  json verdicts = json::array();
  for (const PairVerdict& p : report.verdicts) verdicts.push_back(verdict_to_json(p));
  json untimed = json::array();
  for (const UntimedVariant& u : report.untimed) untimed.push_back(untimed_to_json(u));
  json peaks = nullptr;
  if (report.peaks) {
    peaks = {{"name", report.peaks->name}, {"source", report.peaks->source},
             {"dram_bytes_per_second", report.peaks->dram_bytes_per_second}, {"flops", report.peaks->flops},
             {"measured", report.peaks->measured}};
  }
  const StoppingSettings& s = report.settings.stopping;
  return {{"schema", "kopt.bench/1"},
          {"kopt_version", KOPT_VERSION},
          {"device", report.device},
          {"settings",
           {{"mode", report.mode},
            {"l2_flush", report.mode == "cold" ? measure::l2_flush_name(report.settings.l2_flush) : "none"},
            {"target_half_width", s.target_half_width},
            {"min_samples", s.min_samples},
            {"min_gpu_seconds", s.min_gpu_seconds},
            {"timeout_seconds", s.timeout_seconds},
            {"throttle_fraction", report.settings.throttle_fraction},
            {"max_calls_per_sample", report.settings.max_calls_per_sample},
            {"order_seed", report.order_seed},
            {"timed_calls_audited", report.timed_calls_audited}}},
          {"event_tick_seconds", report.event_tick_seconds},
          {"nvcc_version", report.checks.empty() ? "" : report.checks.front().nvcc_version},
          {"peaks", peaks},
          {"checks", checks},
          {"variants", variants},
          {"verdicts", verdicts},
          {"untimed", untimed},
          {"flags", report.flags},
          {"warnings", report.warnings},
          {"notes", report.notes},
          {"ncu_witness", report.ncu_witness},
          {"code_witness", code_witness_to_json(report.code_witness)},
          {"idle_check", run::idle_check_to_json(report.idle)},
          {"wall_seconds", report.wall_seconds},
          {"worker_phase_seconds", worker_phases_to_json(report.worker_phases)},
          {"phase_seconds", {{"checks", report.phase_seconds.checks},
                             {"timing", report.phase_seconds.timing},
                             {"audit", report.phase_seconds.audit},
                             {"python_reference", report.phase_seconds.python_reference},
                             {"total", report.phase_seconds.total}}},
          {"passed", report.passed()}};
}

}  // namespace kopt::measure
