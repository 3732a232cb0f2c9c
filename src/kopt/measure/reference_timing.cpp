#include "kopt/measure/reference_timing.hpp"

#include "kopt/core/error.hpp"

namespace kopt::measure {
using nlohmann::json;

json reference_time_request(const BenchSettings& settings, std::int64_t l2_bytes, double resolution_seconds,
                            double budget_seconds) {
  const StoppingSettings& s = settings.stopping;
  return {{"mode", timing_mode_name(settings.mode)},
          {"target_half_width", s.target_half_width},
          {"resolution_seconds", resolution_seconds},
          {"budget_seconds", budget_seconds},
          {"min_samples", s.min_samples},
          {"min_gpu_seconds", s.min_gpu_seconds},
          {"timeout_seconds", s.timeout_seconds},
          {"max_samples", s.max_samples},
          {"l2_bytes", l2_flush_bytes(settings.l2_flush, l2_bytes)},  // the flush buffer's size
          {"l2_flush", l2_flush_name(settings.l2_flush)},
          {"warmup_calls", settings.warmup_calls}};
}

namespace {

VariantSamples samples_from_json(const json& timing, const std::string& case_name) {
  VariantSamples samples{.label = "reference", .case_name = case_name};
  samples.gpu_seconds = timing.at("samples_seconds").get<std::vector<double>>();
  samples.host_seconds = timing.at("host_seconds").get<std::vector<double>>();
  samples.stop_reason = timing.at("stop_reason").get<std::string>();
  samples.first_call_seconds = timing.value("first_call_seconds", 0.0);
  if (samples.gpu_seconds.empty() || samples.host_seconds.size() != samples.gpu_seconds.size()) {
    throw input_error("{} event times and {} host times", samples.gpu_seconds.size(), samples.host_seconds.size());
  }
  return samples;
}

}  // namespace

ReferenceTiming reference_timing_from_json(const json& timing, const std::string& case_name) {
  try {
    if (!timing.at("timed").get<bool>()) {
      return {.timed = false, .reason = timing.value("reason", std::string("not timed")),
              .samples = {.label = "reference", .case_name = case_name}};
    }
    return {.timed = true, .samples = samples_from_json(timing, case_name)};
  } catch (const json::exception& e) {
    throw input_error("the reference runner's timing for case {} is malformed: {}", case_name, e.what());
  } catch (const Error& e) {
    throw input_error("the reference runner's timing for case {} is malformed: {}", case_name, e.what());
  }
}

}  // namespace kopt::measure
