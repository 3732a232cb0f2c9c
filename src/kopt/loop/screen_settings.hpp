#pragma once
// The staged screen's settings (data/screen.toml): how cheap the first look is, which branches
// it promotes to the full check, and the rate `--strategy auto` plans a budget with.

#include <cstdint>

namespace kopt::loop {

struct ScreenSettings {
  std::uint64_t first_look_seed = 1;
  int first_look_min_samples = 5;
  double first_look_half_width = 0.05;
  double first_look_max_seconds = 3;
  int first_look_max_calls_per_sample = 16;
  double promote_within = 0.10;
  int promote_finalists_factor = 2;
  double branches_per_minute = 30;
};

// data/screen.toml, read once; input_error naming the file and key when malformed.
const ScreenSettings& screen_settings();

}  // namespace kopt::loop
