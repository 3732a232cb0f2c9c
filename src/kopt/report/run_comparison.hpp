#pragma once
// Two runs side by side (`kopt report --compare RUN_A RUN_B`): each run's kernel, device,
// baseline and final medians with their intervals, speedups, iterations and champion's
// configuration, as one JSON document (kopt.compare/1), compare.md and a self-contained
// compare.html with two charts (the speedup after each iteration of both runs; the baseline
// and final medians of both, with their intervals). Each side is the run's kopt.summary/1
// (run_summary), computed afresh from its files: the numbers are those its summary.md shows.
//
// The runs were measured separately, never interleaved, so the ratio of their final times is
// shown as a ratio, never as a verdict: for one, the two best kernels go to `kopt compare`.

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "kopt/loop/run_state.hpp"

namespace kopt::report {

inline constexpr std::string_view kCompareSchema = "kopt.compare/1";

// Throws input_error naming the folder when it is not a run, or when no iteration of it has
// closed yet (nothing but a baseline: no final time to compare).
nlohmann::json compare_runs(const loop::RunFolder& a, const loop::RunFolder& b);

// One line per run and one for their ratio: what `kopt report --compare` prints.
std::string format_comparison_headline(const nlohmann::json& comparison);

std::string format_run_comparison(const nlohmann::json& comparison);   // compare.md
std::string render_comparison_html(const nlohmann::json& comparison);  // compare.html

// Writes compare.json, compare.md and compare.html into `out_dir` (created when missing;
// earlier ones replaced) and returns the comparison.
nlohmann::json write_run_comparison(const loop::RunFolder& a, const loop::RunFolder& b,
                                    const std::filesystem::path& out_dir);

}  // namespace kopt::report
