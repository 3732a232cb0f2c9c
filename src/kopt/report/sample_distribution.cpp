#include "kopt/report/sample_distribution.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>

#include "kopt/core/file_queries.hpp"
#include "kopt/measure/statistics.hpp"
#include "kopt/report/roofline_svg.hpp"
#include "kopt/report/run_summary.hpp"

namespace kopt::report {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// The layout, in pixels: the labels on the left as in the bar charts, one band per variant.
constexpr double kLabelWidth = 260;
constexpr double kPlotWidth = 620;
constexpr double kChartWidth = kLabelWidth + kPlotWidth + 40;
constexpr double kChartTop = 36;
constexpr double kBandHeight = 64;
constexpr const char* kSampleColour = "#4a7ab5";  // the bar charts' blue
constexpr const char* kMedianColour = "#b00";     // the bar charts' reference line
constexpr const char* kIntervalColour = "#f4b860";

// Where one variant's samples are: the outcome that carries its median (a bench.json) and
// the kopt.bench report of the same measurement, which keeps every sample.
struct SampleSource {
  fs::path outcome;
  fs::path report;
};

SampleDistribution from_summary(std::string label, const json& median, const json& ci) {
  SampleDistribution d{.label = std::move(label), .median_s = median.get<double>()};
  if (ci.is_array()) {
    d.ci_low_s = ci.at(0).get<double>();
    d.ci_high_s = ci.at(1).get<double>();
  }
  return d;
}

// The samples of the measurement that gave the median (the first source whose outcome holds
// it), or why there are none. Samples whose median is not the one the summary shows are not
// drawn: the chart would contradict it.
void load_samples(SampleDistribution& d, const loop::RunFolder& run, const std::vector<SampleSource>& sources) {
  try {
    for (const SampleSource& source : sources) {
      const std::optional<json> outcome = outcome_with_median(source.outcome, d.median_s);
      if (!outcome || !outcome->contains("label")) continue;
      const std::string label = outcome->at("label").get<std::string>();
      const std::string report_name = run.relative(source.report).string();
      if (!path_exists(source.report)) {
        d.missing = "no " + report_name;
        return;
      }
      for (const json& variant : loop::read_json(source.report).value("variants", json::array())) {
        if (variant.value("label", "") != label) continue;
        std::vector<double> samples = variant.at("samples_seconds").get<std::vector<double>>();
        if (samples.empty() || std::abs(measure::median(samples) - d.median_s) > 1e-9 * d.median_s) {
          d.missing = fmt::format("the samples of {} in {} do not give the summary's median", label, report_name);
          return;
        }
        d.samples_s = std::move(samples);
        return;
      }
      d.missing = fmt::format("{} holds no samples of {}", report_name, label);
      return;
    }
    std::vector<std::string> names;
    for (const SampleSource& source : sources) names.push_back(run.relative(source.outcome).string());
    d.missing = fmt::format("no measurement in {} gives the summary's median", fmt::join(names, " or "));
  } catch (const std::exception&) {
    d.missing = "a measurement file of the run is unreadable";
  }
}

}  // namespace

std::vector<SampleDistribution> kept_sample_distributions(const loop::RunFolder& run, const json& summary) {
  std::vector<SampleDistribution> out;
  out.push_back(from_summary("baseline", summary.at("baseline_median_s"), summary.at("baseline_median_ci_s")));
  load_samples(out.back(), run, {{run.baseline() / "bench.json", run.baseline() / "baseline_bench.json"}});
  const int best_iteration = summary.at("best_iteration").get<int>();
  if (best_iteration > 0) {
    out.push_back(from_summary(fmt::format("best ({})", summary.at("best").at("label").get<std::string>()),
                               summary.at("best_median_s"), summary.at("best_median_ci_s")));
    // The champion's finals crowned it; a best with a harmful method switched off was timed
    // in its iteration's ablation.
    load_samples(out.back(), run,
                 {{run.champion(best_iteration) / "bench.json", run.iteration(best_iteration) / "finals_bench.json"},
                  {run.iteration(best_iteration) / "ablation.json", run.iteration(best_iteration) / "ablation_bench.json"}});
  }
  return out;
}

std::vector<double> linear_ticks(double low, double high, int count) {
  if (!(high > low) || count < 1) return {low};
  const double raw = (high - low) / count;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double normalized = raw / magnitude;
  const double step = (normalized <= 1 ? 1 : normalized <= 2 ? 2 : normalized <= 5 ? 5 : 10) * magnitude;
  std::vector<double> ticks;
  const double first = std::ceil(low / step);
  for (double k = first; k * step <= high + step * 1e-9; ++k) ticks.push_back(k == 0 ? 0.0 : k * step);
  return ticks;
}

namespace {

// A linear axis across the plot, in its panel's unit (µs, or % from the median).
struct LinearAxis {
  double low = 0, high = 1;
  double x(double value) const { return kLabelWidth + kPlotWidth * (value - low) / (high - low); }
};

// One band's marks, in its panel's unit.
struct BandMarks {
  std::vector<double> samples;
  double median = 0;
  bool interval = false;  // the median's 95 % interval is known
  double low = 0, high = 0;
};

bool has_interval(const SampleDistribution& d) { return d.ci_low_s != 0 || d.ci_high_s != 0; }

BandMarks in_microseconds(const SampleDistribution& d) {
  BandMarks marks{.median = d.median_s * 1e6, .interval = has_interval(d), .low = d.ci_low_s * 1e6, .high = d.ci_high_s * 1e6};
  for (double s : d.samples_s) marks.samples.push_back(s * 1e6);
  return marks;
}

// Each sample's distance from its own median, in %: when the times are far apart (a 10×
// speedup), their spreads are still seen side by side, on one scale.
BandMarks relative_to_median(const SampleDistribution& d) {
  auto percent = [&](double seconds) { return 100 * (seconds / d.median_s - 1); };
  BandMarks marks{.median = 0, .interval = has_interval(d), .low = percent(d.ci_low_s), .high = percent(d.ci_high_s)};
  for (double s : d.samples_s) marks.samples.push_back(percent(s));
  return marks;
}

// Every mark of every band, with 5 % to spare each side; `centred` puts 0 in the middle.
LinearAxis axis_over(const std::vector<BandMarks>& bands, bool centred) {
  std::vector<double> values;
  for (const BandMarks& b : bands) {
    values.push_back(b.median);
    values.insert(values.end(), b.samples.begin(), b.samples.end());
    if (b.interval) values.insert(values.end(), {b.low, b.high});
  }
  double low = std::ranges::min(values), high = std::ranges::max(values);
  if (centred) {
    high = std::max(std::abs(low), std::abs(high));
    low = -high;
  }
  const double span = high > low ? high - low : std::max(std::abs(high) * 0.01, 1e-3);
  return {.low = low - 0.05 * span, .high = high + 0.05 * span};
}

// Decimals enough to tell neighbouring ticks apart.
std::string tick_label(double value, double step) {
  const int decimals = std::max(0, -static_cast<int>(std::floor(std::log10(step))));
  return fmt::format("{:.{}f}", value, decimals);
}

std::string draw_axis(const LinearAxis& axis, double top, double bottom, const std::string& title) {
  std::string svg = "<g class=\"grid\" stroke=\"#dddddd\">\n";
  const std::vector<double> ticks = linear_ticks(axis.low, axis.high, 6);
  std::string labels;
  const double step = ticks.size() > 1 ? ticks[1] - ticks[0] : 1;
  for (double t : ticks) {
    svg += fmt::format("<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\"/>\n", axis.x(t), top, bottom);
    labels += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", axis.x(t), bottom + 16,
                          tick_label(t, step));
  }
  svg += "</g>\n" + labels;
  svg += fmt::format("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" stroke=\"#000\"/>\n", kLabelWidth,
                     kLabelWidth + kPlotWidth, bottom);
  return svg + fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", kLabelWidth + kPlotWidth / 2,
                           bottom + 36, escape_xml(title));
}

// A band's label on the left: the first line bold, the second plain, the rest grey.
std::string draw_label(const std::vector<std::string>& lines, double top) {
  std::string svg;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const char* style = i == 0 ? " font-weight=\"bold\"" : i == 1 ? "" : " fill=\"#555\"";
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\"{}>{}</text>\n", kLabelWidth - 8,
                       top + 18 + 16 * static_cast<double>(i), style, escape_xml(lines[i]));
  }
  return svg;
}

// The interval (shaded), the samples (dots) and the median (a red line) of one band; `kind`
// suffixes their classes, `median_attributes` goes on the median's line.
std::string draw_marks(const BandMarks& marks, const LinearAxis& axis, double top, const std::string& kind,
                       const std::string& median_attributes) {
  std::string svg;
  if (marks.interval) {
    // At least two pixels wide: a tight interval is still seen to be there.
    const double x_low = axis.x(marks.low), x_high = axis.x(marks.high);
    const double width = std::max(x_high - x_low, 2.0);
    svg += fmt::format("<rect class=\"interval{}\" x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\" "
                       "fill-opacity=\"0.6\"/>\n",
                       kind, (x_low + x_high - width) / 2, top + 5, width, kBandHeight - 10, kIntervalColour);
  }
  // Dots spread over the band's height by the golden-ratio sequence: deterministic, and
  // evenly spread whatever the number of samples, so that dense clusters stay readable.
  for (std::size_t i = 0; i < marks.samples.size(); ++i) {
    const double spread = std::fmod(0.5 + 0.6180339887498949 * static_cast<double>(i), 1.0) - 0.5;
    svg += fmt::format("<circle class=\"sample{}\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2.5\" fill=\"{}\" fill-opacity=\"0.5\"/>\n",
                       kind, axis.x(marks.samples[i]), top + kBandHeight / 2 + spread * (kBandHeight - 20), kSampleColour);
  }
  return svg + fmt::format("<line class=\"median{}\" x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{}\" y2=\"{}\" stroke=\"{}\" "
                           "stroke-width=\"2\"{}/>\n",
                           kind, axis.x(marks.median), axis.x(marks.median), top + 2, top + kBandHeight - 2, kMedianColour,
                           median_attributes);
}

// The upper panel's band: times in µs, the median as summary.md writes it.
std::string draw_time_band(const SampleDistribution& d, const LinearAxis& axis, double top) {
  const std::string count = d.samples_s.empty() ? "samples not kept" : fmt::format("{} samples", d.samples_s.size());
  const std::string detail = has_interval(d) ? fmt::format("95 % [{:.2f}, {:.2f}] · {}", d.ci_low_s * 1e6, d.ci_high_s * 1e6, count)
                                             : count;
  std::string svg = draw_label({d.label, "median " + format_us(d.median_s), detail}, top);
  svg += draw_marks(in_microseconds(d), axis, top, "", fmt::format(" data-value=\"{}\"", d.median_s));
  if (d.samples_s.empty()) {
    svg += fmt::format("<text class=\"note\" x=\"{}\" y=\"{}\" fill=\"#555\">samples not available: {}</text>\n",
                       kLabelWidth + 8, top + kBandHeight / 2 + 4, escape_xml(d.missing));
  }
  return svg;
}

// The lower panel's band: each sample's distance from the median, and where most of them lie.
std::string draw_spread_band(const SampleDistribution& d, const LinearAxis& axis, double top) {
  const BandMarks marks = relative_to_median(d);
  const std::string middle = fmt::format("p10 to p90: {:+.2f} % to {:+.2f} %", measure::quantile(marks.samples, 0.1),
                                         measure::quantile(marks.samples, 0.9));
  return draw_label({d.label, middle}, top) + draw_marks(marks, axis, top, "-relative", "");
}

std::string svg_open(double height, const std::string& title) {
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n<text x=\"10\" y=\"20\" font-size=\"14\" font-weight=\"bold\">{2}</text>\n",
      kChartWidth, height, escape_xml(title));
}

// One line naming, per variant, why its samples are missing.
std::string missing_line(const std::vector<SampleDistribution>& distributions) {
  std::string reasons;
  for (const SampleDistribution& d : distributions) {
    reasons += fmt::format("{}{}: {}", reasons.empty() ? "" : "; ", d.label, d.missing);
  }
  return "Samples not available — " + reasons;
}

double band_top(double panel_top, std::size_t band) { return panel_top + kBandHeight * static_cast<double>(band); }

}  // namespace

std::string render_distribution_svg(const std::vector<SampleDistribution>& distributions) {
  const std::string title = "Every timing sample of the baseline and the best: on one time axis, and around each median";
  std::vector<BandMarks> times, spreads;
  std::vector<const SampleDistribution*> kept;
  for (const SampleDistribution& d : distributions) {
    times.push_back(in_microseconds(d));
    if (d.samples_s.empty()) continue;
    spreads.push_back(relative_to_median(d));
    kept.push_back(&d);
  }
  if (kept.empty()) {
    return svg_open(70, title) + fmt::format("<text class=\"note\" x=\"10\" y=\"50\" fill=\"#555\">{}</text>\n</svg>\n",
                                             escape_xml(distributions.empty() ? "No variant to show" : missing_line(distributions)));
  }
  const LinearAxis time_axis = axis_over(times, false), spread_axis = axis_over(spreads, true);
  const double time_bottom = band_top(kChartTop, distributions.size()) + 4;
  const double spread_top = time_bottom + 60;  // below the time axis' ticks and title
  const double spread_bottom = band_top(spread_top, kept.size()) + 4;
  std::string svg = svg_open(spread_bottom + 48, title);
  svg += draw_axis(time_axis, kChartTop, time_bottom,
                   "time per solve call (µs): every sample (dot), the median (red) and its 95 % interval (shaded)");
  for (std::size_t i = 0; i < distributions.size(); ++i) svg += draw_time_band(distributions[i], time_axis, band_top(kChartTop, i));
  svg += draw_axis(spread_axis, spread_top, spread_bottom, "each sample's distance from its own median (%)");
  for (std::size_t i = 0; i < kept.size(); ++i) svg += draw_spread_band(*kept[i], spread_axis, band_top(spread_top, i));
  return svg + "</svg>\n";
}

}  // namespace kopt::report
