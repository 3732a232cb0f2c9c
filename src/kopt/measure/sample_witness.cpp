#include "kopt/measure/sample_witness.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <set>

#include "kopt/core/error.hpp"
#include "kopt/measure/statistics.hpp"
#include "kopt/measure/witness_file.hpp"
#include "kopt/spec/toml.hpp"

namespace kopt::measure {
using nlohmann::json;

// ---- The rules --------------------------------------------------------------------------

namespace {

// A hold this close to the blocker's timeout ended by it: the host cannot be that late by
// chance, and the blocker's own clock may run a little ahead of the host's.
constexpr double kTimedOutShare = 0.9;

double positive(const toml::table& sample, std::string_view key) {
  return positive_witness_number(sample, "sample", key);
}

SampleWitnessRule load_sample_rule(SolveHost host) {
  const toml::table sample = witness_section("sample");
  const char* held_key = host == SolveHost::python ? "held_seconds_per_python_call" : "held_seconds_per_call";
  return {.slack_seconds = positive(sample, "slack_seconds"),
          .slack_fraction = positive(sample, "slack_fraction"),
          .flag_share = positive(sample, "flag_share"),
          .sum_slack_seconds = positive(sample, "sum_slack_seconds"),
          .baseline_limit_seconds = positive(sample, "baseline_limit_seconds"),
          .held_seconds_per_call = positive(sample, held_key),
          .held_fraction = positive(sample, "held_fraction"),
          .blocker_timeout_seconds = positive(sample, "blocker_timeout_seconds")};
}

double reported_seconds(const VariantSamples& s, std::size_t i) {
  return s.gpu_seconds[i] * std::max(s.calls_per_sample, 1);
}

std::string who(const VariantSamples& s) { return fmt::format("{} (case {})", s.label, s.case_name); }

double micro(double seconds) { return seconds * 1e6; }

std::optional<std::string> unseen_flag(const VariantSamples& s, const VariantWitness& w) {
  if (w.witnessed == w.samples) return std::nullopt;
  return fmt::format("{}: {} of its {} samples were never seen by kopt's own clock (no begin and end signal from the "
                     "timing worker): samples forged, or the witness's channel silenced",
                     who(s), w.samples - w.witnessed, w.samples);
}

std::optional<std::string> short_flag(const VariantSamples& s, const VariantWitness& w,
                                      const SampleWitnessRule& rule) {
  if (!mostly_short(w, rule)) return std::nullopt;
  return fmt::format("{}: samples report less time than kopt's own clock saw (median {:.1f} µs reported, {:.1f} µs "
                     "seen from kopt's process, {:.1f} µs of it kopt's own overhead as {} empty samples showed; {} of "
                     "{} samples short beyond it by more than max({:.0f} µs, {:.0f} %)): the timing worker's clocks "
                     "were patched or its samples forged",
                     who(s), micro(w.median_reported_seconds), micro(w.median_span_seconds), micro(w.baseline_seconds),
                     w.empty_samples, w.short_samples, w.witnessed, micro(rule.slack_seconds),
                     100 * rule.slack_fraction);
}

std::optional<std::string> held_flag(const VariantSamples& s, const VariantWitness& w,
                                     const SampleWitnessRule& rule) {
  if (!mostly_held_too_long(w, rule)) return std::nullopt;
  return fmt::format("{}: solve kept the host {:.1f} µs per sample (median) while kopt held the GPU, more than queueing "
                     "{} call(s) takes ({} of {} held samples beyond max({:.0f} µs a call, {:.0f} % of the reported "
                     "time)): work done before the timed window opened (a side stream or host thread waited for inside "
                     "solve?), which no clock of the sample sees",
                     who(s), micro(w.median_held_seconds), std::max(s.calls_per_sample, 1), w.long_held_samples,
                     w.held_samples, micro(rule.held_seconds_per_call), 100 * rule.held_fraction);
}

// The worker stops holding a variant whose warm-up waited for the GPU while held, so a timed
// sample that reached the blocker's timeout comes from a solve that waits only when timed.
std::optional<std::string> timed_out_flag(const VariantSamples& s, const VariantWitness& w,
                                          const SampleWitnessRule& rule) {
  if (w.timed_out_holds == 0) return std::nullopt;
  return fmt::format("{}: solve waited for the GPU while kopt held it in {} timed sample(s) (held until the blocker "
                     "let go by itself after {:.0f} ms), though its warm-up had not: work it waits for only when "
                     "timed (a stream of its own?), done before the timed window opened",
                     who(s), w.timed_out_holds, 1e3 * rule.blocker_timeout_seconds);
}

// Outputs that changed between the sample's end and kopt's digests: work done when kopt next
// called into the kernel's library (the digest's launch), after every clock of the sample.
std::optional<std::string> readback_flag(const VariantSamples& s, const VariantWitness& w) {
  if (w.readback_mismatches == 0) return std::nullopt;
  return fmt::format("{}: its outputs changed after the sample had ended, before kopt's digests ({} of {} samples "
                     "read back by kopt's own runtime differ from their digests): work done when kopt next called "
                     "into the kernel's library, out of every clock's sight (docs/integrity.md, \"Outputs read back "
                     "before the digests\")",
                     who(s), w.readback_mismatches, w.readback_samples);
}

std::optional<std::string> sum_flag(const std::vector<VariantSamples>& samples, const WitnessedSpans& spans,
                                    const SampleWitnessRule& rule) {
  double claimed = 0;
  for (const VariantSamples& s : samples) {
    for (std::size_t i = 0; i < s.gpu_seconds.size(); ++i) claimed += reported_seconds(s, i);
  }
  const double seen = spans.first_begin && spans.last_end ? std::max(0.0, *spans.last_end - *spans.first_begin) : 0;
  if (claimed <= seen + rule.sum_slack_seconds) return std::nullopt;
  return fmt::format("the samples claim {:.4g} s of GPU time, but kopt's own clock saw the whole sampling take {:.4g} "
                     "s: samples written faster than they could have been taken (forged)",
                     claimed, seen);
}

}  // namespace

const SampleWitnessRule& sample_witness_rule(SolveHost host) {
  static const SampleWitnessRule native = load_sample_rule(SolveHost::native);
  static const SampleWitnessRule python = load_sample_rule(SolveHost::python);
  return host == SolveHost::python ? python : native;
}

bool short_of_span(double reported_seconds, double span_seconds, const SampleWitnessRule& rule,
                   double baseline_seconds) {
  return span_seconds - baseline_seconds - reported_seconds >
         std::max(rule.slack_seconds, rule.slack_fraction * span_seconds);
}

bool held_too_long(double held_seconds, double reported_seconds, int calls, const SampleWitnessRule& rule) {
  return held_seconds > std::max(rule.held_seconds_per_call * std::max(calls, 1), rule.held_fraction * reported_seconds);
}

bool mostly_held_too_long(const VariantWitness& w, const SampleWitnessRule& rule) {
  return w.held_samples > 0 &&
         static_cast<double>(w.long_held_samples) > rule.flag_share * static_cast<double>(w.held_samples);
}

bool mostly_short(const VariantWitness& w, const SampleWitnessRule& rule) {
  return w.witnessed > 0 && static_cast<double>(w.short_samples) > rule.flag_share * static_cast<double>(w.witnessed);
}

bool witness_fails(const VariantWitness& w, const SampleWitnessRule& rule) {
  return w.witnessed != w.samples || mostly_short(w, rule) || mostly_held_too_long(w, rule) || w.timed_out_holds > 0 ||
         w.readback_mismatches > 0;
}

namespace {

// Whether the outputs kopt read back of sample `id` differ from its device digests, where both
// were told (a digest of 0 is one the GPU could not take); nullopt where there is nothing to hold.
std::optional<bool> readback_differs(const WitnessedSpans& spans, std::uint32_t id) {
  const auto found = spans.spans.find(id);
  if (found == spans.spans.end() || !found->second.readback_told || !found->second.digests_told) return std::nullopt;
  const WitnessedSpans::Span& span = found->second;
  if (span.readback.size() != span.digests.size()) return true;
  bool compared = false;
  for (std::size_t i = 0; i < span.digests.size(); ++i) {
    if (span.digests[i] == 0) continue;
    compared = true;
    if (span.readback[i] != span.digests[i]) return true;
  }
  return compared ? std::optional<bool>(false) : std::nullopt;
}

void count_readbacks(const VariantSamples& s, const WitnessedSpans& spans, VariantWitness& w) {
  std::vector<std::uint32_t> ids = s.witness_ids;
  if (s.final_witness_id != 0) ids.push_back(s.final_witness_id);
  for (std::uint32_t id : ids) {
    const std::optional<bool> differs = readback_differs(spans, id);
    if (!differs) continue;
    ++w.readback_samples;
    if (*differs) ++w.readback_mismatches;
  }
}

}  // namespace

VariantWitness witness_variant(const VariantSamples& s, const WitnessedSpans& spans, const SampleWitnessRule& rule) {
  VariantWitness w{.samples = s.gpu_seconds.size()};
  std::vector<double> reported, seen, held, digesting, empty;
  for (std::size_t i = 0; i < s.gpu_seconds.size() && i < s.witness_ids.size(); ++i) {
    const std::optional<double> span = spans.seconds(s.witness_ids[i]);
    if (!span) continue;
    if (const std::optional<double> overhead = spans.empty_span_before(s.witness_ids[i])) empty.push_back(*overhead);
    if (const std::optional<double> hold = spans.held_seconds(s.witness_ids[i])) {
      ++w.held_samples;
      held.push_back(*hold);
      if (held_too_long(*hold, reported_seconds(s, i), s.calls_per_sample, rule)) ++w.long_held_samples;
      if (*hold >= kTimedOutShare * rule.blocker_timeout_seconds) ++w.timed_out_holds;
    }
    ++w.witnessed;
    reported.push_back(reported_seconds(s, i));
    seen.push_back(*span);
    if (const std::optional<double> digest = spans.digest_seconds(s.witness_ids[i])) digesting.push_back(*digest);
  }
  w.empty_samples = empty.size();
  if (!empty.empty()) w.baseline_seconds = std::min(median(empty), rule.baseline_limit_seconds);
  for (std::size_t i = 0; i < reported.size(); ++i) {
    if (short_of_span(reported[i], seen[i], rule, w.baseline_seconds)) ++w.short_samples;
  }
  if (!reported.empty()) {
    w.median_reported_seconds = median(reported);
    w.median_span_seconds = median(seen);
  }
  if (!held.empty()) w.median_held_seconds = median(held);
  if (!digesting.empty()) w.median_digest_seconds = median(digesting);
  count_readbacks(s, spans, w);
  return w;
}

std::vector<std::string> record_differences(const VariantSamples& s, const WitnessedSpans& spans) {
  std::vector<std::string> differences;
  std::vector<std::uint64_t> seeds, digests;
  std::size_t untold = 0;
  for (std::uint32_t id : s.witness_ids) {
    const auto found = spans.spans.find(id);
    if (found == spans.spans.end() || !found->second.seeds_told || !found->second.digests_told) {
      ++untold;
      continue;
    }
    seeds.insert(seeds.end(), found->second.seeds.begin(), found->second.seeds.end());
    digests.insert(digests.end(), found->second.digests.begin(), found->second.digests.end());
  }
  if (untold > 0) {
    differences.push_back(fmt::format("{} sample(s) whose seeds and digests kopt never heard", untold));
  } else {
    if (seeds != s.sample_seeds) differences.push_back("the timed calls' seeds");
    if (digests != s.sample_digests) differences.push_back("the timed calls' digests");
  }
  if (s.final_witness_id != 0) {
    const auto found = spans.spans.find(s.final_witness_id);
    const bool told = found != spans.spans.end() && !found->second.seeds.empty() && !found->second.digests.empty();
    if (!told || found->second.seeds.back() != s.final_seed || found->second.digests.back() != s.final_digest) {
      differences.push_back("the last call's seed or digest");
    }
  }
  // Outputs are kept from any sample, a discarded one (throttled) too: their seeds must be
  // among those told at all.
  std::set<std::uint64_t> told_seeds;
  for (const auto& [id, span] : spans.spans) told_seeds.insert(span.seeds.begin(), span.seeds.end());
  const auto kept_untold = std::ranges::count_if(s.kept_seeds, [&](std::uint64_t seed) { return !told_seeds.contains(seed); });
  if (kept_untold > 0) differences.push_back(fmt::format("the seeds of {} kept output(s)", kept_untold));
  return differences;
}

namespace {

std::optional<std::string> record_flag(const VariantSamples& s, const WitnessedSpans& spans) {
  if (s.witness_ids.empty() && s.final_witness_id == 0) return std::nullopt;  // not signalled: nothing to hold
  const std::vector<std::string> differences = record_differences(s, spans);
  if (differences.empty()) return std::nullopt;
  return fmt::format("{} (case {}): the worker's record of its timed calls is not what it told kopt as they were "
                     "made ({}): rewritten in the worker's memory after the fact (docs/integrity.md, \"Outside "
                     "witnesses\")",
                     s.label, s.case_name, fmt::join(differences, "; "));
}

}  // namespace

std::vector<std::string> witness_flags(const std::vector<VariantSamples>& samples, const WitnessedSpans& spans,
                                       const SampleWitnessRule& rule) {
  std::vector<std::string> flags;
  if (!spans.listened) return flags;
  if (spans.tampered()) {
    flags.push_back(fmt::format("the witness's channel carried {} line(s) kopt's worker never writes and {} repeated "
                                "signal(s): code in the timing worker wrote to it (the kernel?)",
                                spans.malformed_lines, spans.repeated_signals));
  }
  for (const VariantSamples& s : samples) {
    const VariantWitness w = witness_variant(s, spans, rule);
    if (auto flag = unseen_flag(s, w)) flags.push_back(std::move(*flag));
    if (auto flag = short_flag(s, w, rule)) flags.push_back(std::move(*flag));
    if (auto flag = held_flag(s, w, rule)) flags.push_back(std::move(*flag));
    if (auto flag = timed_out_flag(s, w, rule)) flags.push_back(std::move(*flag));
    if (auto flag = readback_flag(s, w)) flags.push_back(std::move(*flag));
    if (auto flag = record_flag(s, spans)) flags.push_back(std::move(*flag));
  }
  if (auto flag = sum_flag(samples, spans, rule)) flags.push_back(std::move(*flag));
  return flags;
}

json variant_witness_to_json(const VariantWitness& w) {
  return {{"samples", w.samples},
          {"witnessed", w.witnessed},
          {"short_samples", w.short_samples},
          {"median_reported_seconds", w.median_reported_seconds},
          {"median_span_seconds", w.median_span_seconds},
          {"empty_samples", w.empty_samples},
          {"baseline_seconds", w.baseline_seconds},
          {"held_samples", w.held_samples},
          {"long_held_samples", w.long_held_samples},
          {"timed_out_holds", w.timed_out_holds},
          {"median_held_seconds", w.median_held_seconds},
          {"median_digest_seconds", w.median_digest_seconds},
          {"readback_samples", w.readback_samples},
          {"readback_mismatches", w.readback_mismatches}};
}

}  // namespace kopt::measure
