#pragma once
// The planner's inputs from a real H200 run: the vector add's profile and roofline.

#include <filesystem>

namespace kopt::catalog {

inline const std::filesystem::path kEvidence =
    std::filesystem::path(KOPT_SOURCE_DIR) / "tests/fixtures/evidence/h200_vector_add";

}  // namespace kopt::catalog
