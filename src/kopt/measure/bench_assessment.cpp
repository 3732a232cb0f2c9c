#include "kopt/measure/bench_assessment.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>

#include "kopt/core/parallel_for.hpp"
#include "kopt/measure/call_batch.hpp"
#include "kopt/measure/timed_call_audit.hpp"
#include "kopt/measure/tolerance_audit.hpp"
#include "kopt/measure/witness_file.hpp"
#include "kopt/spec/problem_work.hpp"

namespace kopt::measure {
namespace {

// The worker's host clock against its events (data/witness.toml [escape]): what the events did
// not see, per sample. Read once per process; the file is embedded in the binary.
struct EscapeRule {
  double floor_seconds = 0;
  double fraction = 0;
};

const EscapeRule& escape_rule() {
  static const EscapeRule rule = [] {
    const toml::table escape = witness_section("escape");
    return EscapeRule{.floor_seconds = positive_witness_number(escape, "escape", "floor_seconds"),
                      .fraction = positive_witness_number(escape, "escape", "fraction")};
  }();
  return rule;
}

// Datasheet peaks are not exact: only a time this far under the floor is called impossible.
constexpr double kFloorMargin = 0.95;

void assess_recheck(VariantReport& v) {
  if (v.samples.recheck && !v.samples.recheck->passed()) v.recheck_failure = v.samples.recheck->findings.front().message;
  v.timed_calls_unverified = v.samples.recheck && std::ranges::find(v.samples.recheck->notes, kUnverifiableNote) !=
                                                       v.samples.recheck->notes.end();
  if (v.timed_calls_unverified) {
    for (const std::string& note : v.samples.recheck->notes) {
      if (note.starts_with(kToleranceUnverifiedPrefix)) v.unverified_reason = note;
    }
  }
}

}  // namespace

void assess_variant(VariantReport& v, const std::optional<DevicePeaks>& peaks, const spec::PrecisionPolicy& precision,
                    TimingMode mode) {
  // The audit's verdict first: a variant with no sample kept is still wrong when it was wrong.
  assess_recheck(v);
  if (v.samples.gpu_seconds.empty()) return;
  v.summary = summarize(v.samples.gpu_seconds, v.samples.resolution_seconds);
  const double median_time = v.summary.median;
  if (v.flops > 0) v.flops_per_second = v.flops / median_time;
  if (v.bytes > 0) v.bytes_per_second = v.bytes / median_time;
  std::vector<double> gaps;
  for (std::size_t i = 0; i < v.samples.gpu_seconds.size() && i < v.samples.host_seconds.size(); ++i) {
    gaps.push_back(v.samples.host_seconds[i] - v.samples.gpu_seconds[i]);
  }
  if (!gaps.empty()) v.median_host_gap_seconds = median(gaps);
  // The host's costs come once per sample, however many calls it holds: a batch or graph of n
  // calls compares its per-call gap with the floor / n.
  const double floor_per_call = escape_rule().floor_seconds / std::max(1, v.samples.calls_per_sample);
  v.escapes_events = v.median_host_gap_seconds > std::max(floor_per_call, escape_rule().fraction * median_time);
  if (!v.samples.sm_clock_mhz.empty()) v.median_sm_clock_mhz = median(v.samples.sm_clock_mhz);
  if (!v.samples.batch_call_spread.empty()) v.median_batch_call_spread = median(v.samples.batch_call_spread);
  // With the L2 warm, data can legitimately come faster than DRAM allows: no floor then.
  if (peaks && mode == TimingMode::cold) {
    v.floor_seconds = roofline_floor_seconds(*peaks, precision, v.flops, v.bytes);
    v.below_floor = v.floor_seconds > 0 && median_time < kFloorMargin * v.floor_seconds;
  }
}

namespace {

std::vector<std::string> flags_of(const VariantReport& v) {
  std::vector<std::string> flags;
  const std::string who = fmt::format("{} (case {})", v.label, v.case_name);
  if (v.below_floor) {
    flags.push_back(fmt::format("{}: median {:.4g} s is below the roofline floor {:.4g} s: impossible, so the spec's "
                                "[work] is wrong or the kernel skips work",
                                who, v.summary.median, v.floor_seconds));
  }
  if (v.escapes_events) {
    flags.push_back(fmt::format("{}: the host saw {:.4g} s more than the CUDA events per call: solve runs work outside "
                                "the default stream's events (a non-blocking stream?), so the event times undercount it",
                                who, v.median_host_gap_seconds));
  }
  if (!v.recheck_failure.empty()) {
    flags.push_back(fmt::format("{}: timed call outputs differ from the verified outputs on the same inputs ({}): "
                                "work skipped or results reused while timed (solve may cache results across calls)",
                                who, v.recheck_failure));
  }
  return flags;
}

// A host thread or timer that solve left behind can launch work on the samples of the variants
// timed beside it in the same worker (a competitor, the reference), where no clock of theirs
// can tell whose work slowed them: the comparison is flagged (and fails). Timed alone, it can touch
// only its own samples, which the host clock and the parent's witness already watch.
void add_agents_finding(BenchReport& report, const VariantReport& v, std::size_t variants_of_case) {
  const std::vector<std::string>& agents = v.samples.agents_left;
  if (agents.empty()) return;
  constexpr std::size_t kNamed = 4;
  const auto shown = agents.begin() + static_cast<std::ptrdiff_t>(std::min(agents.size(), kNamed));
  std::string named = fmt::format("{}", fmt::join(agents.begin(), shown, ", "));
  if (agents.size() > kNamed) named += fmt::format(" and {} more", agents.size() - kNamed);
  const std::string left =
      fmt::format("{} (case {}): solve left host threads, processes or timers running after it returned ({})", v.label,
                  v.case_name, named);
  if (variants_of_case > 1) {
    report.flags.push_back(left + ": they can launch work on the samples of the variants timed beside it, so their "
                                  "comparison cannot be trusted (docs/integrity.md, \"Agents left behind\")");
  } else {
    report.warnings.push_back(left + ": they can run work outside its calls (its own samples are watched by the "
                                     "host clock and kopt's witness)");
  }
}

// "LABEL (case C): WHAT (found, ...): WHY", where anything was found.
void flag_what_was_found(BenchReport& report, const VariantReport& v, const std::vector<std::string>& found,
                         std::string_view what, std::string_view why) {
  if (found.empty()) return;
  report.flags.push_back(fmt::format("{} (case {}): {} ({}): {}", v.label, v.case_name, what, fmt::join(found, ", "), why));
}

// Where solve's work went, by stream (run/stream_watch.hpp; docs/integrity.md, "Streams").
// Work left running outside the default stream's order when solve returned is work no clock of
// the sample need see; calls of a batch that launch other work than an unbatched call, or take
// unlike times, are calls that did each other's work, with inputs no real caller would have
// had yet. All three are the variant's own doing: FLAGs. A worker that could not watch says so.
void add_streams_finding(BenchReport& report, const VariantReport& v) {
  flag_what_was_found(report, v, v.samples.work_unjoined,
                      "solve left work running outside the default stream's order when it returned",
                      "no clock of the sample need see it; join it into the default stream (cudaStreamWaitEvent) "
                      "before solve returns (docs/integrity.md, \"Streams\")");
  flag_what_was_found(report, v, v.samples.batch_calls_unlike,
                      "calls of a batch launched other work than an unbatched call",
                      "a call may have done another call's work, whose inputs no real caller would have had yet "
                      "(docs/integrity.md, \"Streams\")");
  const double limit = batch_rule().call_spread_limit;
  if (v.median_batch_call_spread > limit) {
    report.flags.push_back(fmt::format(
        "{} (case {}): the calls of its batches took unlike times (the longest {:.2f}x the shortest, median over "
        "batches; at most {:.2f}x is let pass): a call may have done another call's work, whose inputs no real caller "
        "would have had yet (docs/integrity.md, \"Streams\")",
        v.label, v.case_name, v.median_batch_call_spread, limit));
  }
  const std::string unwatched = "solve's streams not watched (" + v.samples.streams_unwatched +
                                "): work outside the default stream is judged by the clocks alone";
  if (!v.samples.streams_unwatched.empty() && std::ranges::find(report.warnings, unwatched) == report.warnings.end()) {
    report.warnings.push_back(unwatched);
  }
}

// A seccomp filter, a SIGSYS handler or a tracer that a variant's library or calls installed
// can answer the worker's own system calls, getrandom among them, which draws each timed call's seed
// (core/secret.hpp): the variant could choose its inputs and time answers it computed ahead.
// Nothing honest needs any of them, and the variant's own verdict is at stake, so it is a FLAG
// whether or not others were timed beside it.
void add_interceptors_finding(BenchReport& report, const VariantReport& v) {
  flag_what_was_found(report, v, v.samples.interceptors_installed,
                      "solve installed what can answer the timing worker's system calls",
                      "the seeds of its timed inputs could be its own choice (docs/integrity.md, \"Agents left behind\")");
}

// A pointer of kopt's own data that now leads into the kernel's code (run/code_pointers.hpp):
// whatever kopt did through it after solve returned (read the timer, launch, digest the
// outputs, write to its parent) ran the kernel's code, out of every clock's sight. Nothing honest
// writes kopt's data, so it is a FLAG whether or not others were timed beside it.
void add_redirection_finding(BenchReport& report, const VariantReport& v) {
  flag_what_was_found(report, v, v.samples.code_pointers_redirected, "solve pointed kopt's own calls at its code",
                      "what kopt did after its calls returned (timers, launches, digests) could be the kernel's "
                      "(docs/integrity.md, \"Outside witnesses\")");
}

// A device-wide setting changed after a variant's calls (run/device_settings.hpp) was put back
// after each of its samples, so no later sample ran under it; still, a kernel that changes the
// defaults every other kernel runs under is working on its neighbours, not on its problem.
void add_settings_finding(BenchReport& report, const VariantReport& v, std::size_t variants_of_case) {
  const VariantSamples& s = v.samples;
  if (!s.settings_changed.empty()) {
    const std::string changed =
        fmt::format("{} (case {}): solve changed device-wide settings and left them changed after it returned ({}); "
                    "kopt put them back after each sample",
                    v.label, v.case_name, fmt::join(s.settings_changed, ", "));
    if (variants_of_case > 1) {
      report.flags.push_back(changed + ": they are the defaults the variants timed beside it run under (docs/integrity.md, "
                                       "\"Agents left behind\")");
    } else {
      report.warnings.push_back(changed);
    }
  }
  if (!s.settings_set_in_warmup.empty()) {
    report.warnings.push_back(fmt::format("{} (case {}): its warm-up changed device-wide settings ({}); kopt put "
                                          "them back where CUDA let it, so its samples ran under the defaults; use "
                                          "per-kernel attributes (cudaFuncSetAttribute) instead",
                                          v.label, v.case_name, fmt::join(s.settings_set_in_warmup, ", ")));
  }
}

}  // namespace

// Summarizes each variant's samples and records what each is flagged for. The summaries run
// side by side: their bootstrap intervals are most of kopt's own time in a bench of many
// variants, and each depends only on its own samples.
void add_variants(BenchReport& report, const spec::Problem& problem, std::vector<VariantSamples> all, TimingMode mode,
                  bool interleaved) {
  std::map<std::string, std::size_t> variants_of_case;
  for (const VariantSamples& samples : all) ++variants_of_case[samples.case_name];
  std::vector<VariantReport> assessed(all.size());
  parallel_for(all.size(), [&](std::size_t i) {
    const spec::BoundCase& bound_case = *problem.find_case(all[i].case_name);  // the worker timed these cases
    VariantReport& v = assessed[i];
    v = {.label = all[i].label, .case_name = all[i].case_name, .samples = std::move(all[i]), .interleaved = interleaved};
    v.flops = spec::work_value(problem.spec.work.flops, bound_case);
    v.bytes = spec::work_value(problem.spec.work.bytes, bound_case);
    assess_variant(v, report.peaks, problem.precision_policy(), mode);
  });
  for (VariantReport& v : assessed) {
    for (std::string& flag : flags_of(v)) report.flags.push_back(std::move(flag));
    add_agents_finding(report, v, variants_of_case[v.case_name]);
    add_interceptors_finding(report, v);
    add_redirection_finding(report, v);
    add_streams_finding(report, v);
    add_settings_finding(report, v, variants_of_case[v.case_name]);
    if (v.timed_calls_unverified) {
      std::string unverified = fmt::format(
          "{} (case {}): its timed calls are not verified: its outputs are not bitwise reproducible, so they cannot be "
          "compared by digest{} (docs/integrity.md)",
          v.label, v.case_name, v.unverified_reason.empty() ? "" : ", and " + v.unverified_reason);
      // With a reference to compare with, what keeps the timed calls from being verified is the
      // kernel's doing (its outputs vary and do not fit, or it starved the memory they are kept
      // in): a verdict that cannot be checked is not given. Without one, the spec is the cause.
      if (problem.spec.reference) report.flags.push_back(std::move(unverified));
      else report.warnings.push_back(std::move(unverified));
    }
    // After the last variant of its case, so the table and the JSON keep cases together.
    auto after = std::find_if(report.variants.rbegin(), report.variants.rend(),
                              [&](const VariantReport& other) { return other.case_name == v.case_name; });
    if (after == report.variants.rend()) report.variants.push_back(std::move(v));
    else report.variants.insert(after.base(), std::move(v));
  }
}

// The parent's witness of the timing worker's samples (sample_witness.hpp): its flags, before
// the samples move into the report.
void add_witness_flags(BenchReport& report, const std::vector<VariantSamples>& samples, const WitnessedSpans& spans,
                       SolveHost host) {
  if (!spans.listened) {
    report.warnings.push_back("kopt could not witness the timing worker's samples (no pipe): its times rest on the "
                              "worker's clocks alone");
    return;
  }
  for (std::string& flag : witness_flags(samples, spans, sample_witness_rule(host))) report.flags.push_back(std::move(flag));
}

// The witness's numbers for each variant the timing worker sampled (bench.json "witness").
void add_witness_numbers(BenchReport& report, const WitnessedSpans& spans, SolveHost host) {
  if (!spans.listened) return;
  for (VariantReport& v : report.variants) {
    if (v.interleaved) v.witness = witness_variant(v.samples, spans, sample_witness_rule(host));
  }
}

std::vector<std::string> variants_named_by(const std::string& flag, const BenchReport& bench) {
  std::vector<std::string> named;
  for (const VariantReport& v : bench.variants) {
    if (flag.starts_with(fmt::format("{} (case {})", v.label, v.case_name))) named.push_back(v.label);
  }
  return named;
}

bool verdict_is_flagged(const BenchReport& bench, const PairVerdict& pair) {
  return std::ranges::any_of(bench.flags, [&](const std::string& flag) {
    const std::vector<std::string> named = variants_named_by(flag, bench);
    return named.empty() || std::ranges::find(named, pair.label) != named.end() ||
           std::ranges::find(named, pair.baseline) != named.end();
  });
}

// Every variant against `baseline_label`, case by case; the bootstrap ratios side by side.
void add_verdicts(BenchReport& report, const std::string& baseline_label, const ComparisonSettings& settings) {
  std::vector<std::pair<const VariantReport*, const VariantReport*>> pairs;
  for (const VariantReport& baseline : report.variants) {
    if (baseline.label != baseline_label) continue;
    for (const VariantReport& other : report.variants) {
      if (other.case_name == baseline.case_name && other.label != baseline.label) pairs.emplace_back(&baseline, &other);
    }
  }
  std::vector<Comparison> comparisons(pairs.size());
  parallel_for(pairs.size(), [&](std::size_t i) {
    const VariantSamples& a = pairs[i].first->samples;
    const VariantSamples& b = pairs[i].second->samples;
    comparisons[i] = compare_samples(a.gpu_seconds, b.gpu_seconds, settings, {a.resolution_seconds, b.resolution_seconds});
  });
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const auto& [baseline, other] = pairs[i];
    report.verdicts.push_back({baseline->case_name, baseline->label, other->label, comparisons[i],
                               baseline->interleaved && other->interleaved});
  }
}

}  // namespace kopt::measure
