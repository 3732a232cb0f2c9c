#pragma once
// A variant: one kernel source built with one set of -D defines. The loop's baseline,
// branches, champions and ablations are all variants; most branches of a tunable kernel
// share its source and differ only in their defines.

#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace kopt::loop {

using Defines = std::map<std::string, std::string>;

struct Variant {
  std::string label;              // "baseline", "iter1/b3", "iter2/champion-KOPT_USE_SMEM_TILING=0"
  std::filesystem::path kernel;   // the .cu file
  Defines defines;

  std::vector<std::pair<std::string, std::string>> define_list() const { return {defines.begin(), defines.end()}; }
};

// "BM=128 BN=64", or "(defaults)" without defines.
std::string describe_defines(const Defines& defines);

void to_json(nlohmann::json& out, const Variant& variant);
void from_json(const nlohmann::json& in, Variant& variant);

}  // namespace kopt::loop
