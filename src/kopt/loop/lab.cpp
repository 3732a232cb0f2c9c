#include "kopt/loop/lab.hpp"

namespace kopt::loop {

nlohmann::json gpu_identity(const nlohmann::json& device) {
  if (!device.is_object()) return nullptr;
  return {{"uuid", device.value("uuid", "")},
          {"name", device.value("name", "")},
          {"sm_clock_khz", device.value("sm_clock_khz", 0)},
          {"clocks", "as_found"}};
}

void to_json(nlohmann::json& out, const VersusFirst& v) {
  out = {{"verdict", v.verdict}, {"ratio", v.ratio}, {"ci", {v.low, v.high}}};
}

void from_json(const nlohmann::json& in, VersusFirst& v) {
  v.verdict = in.at("verdict").get<std::string>();
  v.ratio = in.at("ratio").get<double>();
  v.low = in.at("ci").at(0).get<double>();
  v.high = in.at("ci").at(1).get<double>();
}

void to_json(nlohmann::json& out, const VariantOutcome& o) {
  out = {{"label", o.label}, {"passed", o.passed}};
  if (!o.stage.empty()) out["stage"] = o.stage;
  if (o.first_look_median) out["first_look_s"] = *o.first_look_median;
  if (!o.passed) {
    out["failure"] = o.failure;
    return;
  }
  out["median_s"] = o.median;
  out["median_ci_s"] = {o.median_low, o.median_high};
  out["relative_stdev"] = o.relative_stdev;
  out["samples"] = o.samples;
  if (o.versus_first) out["versus_first"] = *o.versus_first;
}

void from_json(const nlohmann::json& in, VariantOutcome& o) {
  o.label = in.at("label").get<std::string>();
  o.passed = in.at("passed").get<bool>();
  o.failure = in.value("failure", "");
  o.stage = in.value("stage", "");
  if (in.contains("first_look_s")) o.first_look_median = in["first_look_s"].get<double>();
  if (!o.passed) return;
  o.median = in.at("median_s").get<double>();
  o.median_low = in.at("median_ci_s").at(0).get<double>();
  o.median_high = in.at("median_ci_s").at(1).get<double>();
  o.relative_stdev = in.value("relative_stdev", 0.0);
  o.samples = in.value("samples", std::size_t{0});
  if (in.contains("versus_first")) o.versus_first = in["versus_first"].get<VersusFirst>();
}

void to_json(nlohmann::json& out, const MethodSass& s) {
  out = {{"method", s.method}, {"status", s.status}, {"detail", s.detail}};
}

void from_json(const nlohmann::json& in, MethodSass& s) {
  s.method = in.at("method").get<std::string>();
  s.status = in.at("status").get<std::string>();
  s.detail = in.value("detail", "");
}

}  // namespace kopt::loop
