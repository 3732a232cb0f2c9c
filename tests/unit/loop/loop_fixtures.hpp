#pragma once
// What most loop tests run on: the simulated lab's model of examples/sgemm_tiled, and that example.

#include <filesystem>

namespace kopt::loop {

inline const std::filesystem::path kModel =
    std::filesystem::path(KOPT_FIXTURES_DIR) / "loop" / "sgemm_tiled_model.json";
inline const std::filesystem::path kKernel = std::filesystem::path(KOPT_SOURCE_DIR) / "examples" / "sgemm_tiled";

}  // namespace kopt::loop
