#pragma once
// The method catalog (data/methods.toml): every optimization kopt knows, with its axis, its
// priority within the axis, what hardware it needs, the evidence that calls for it (trigger),
// what rules it out (skip), what it cannot be combined with, its SASS signature and the macro
// that switches it. Loaded and validated at start; a malformed entry is an input error naming
// the file and the entry.

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "kopt/catalog/sass_signature.hpp"
#include "kopt/catalog/trigger.hpp"
#include "kopt/roofline/roofline.hpp"

namespace kopt::catalog {

struct Feature {
  std::string name;
  int min_arch = 0;
  std::optional<int> max_arch;  // architecture-specific features (wgmma: sm_90a only)
};

struct Method {
  std::string id;  // "memory.tiling_smem"
  roofline::Axis axis = roofline::Axis::compute;
  int priority = 0;  // smaller is tried first
  int min_arch = 0;  // 80 for sm_80
  std::vector<std::string> features;
  Condition trigger;
  std::vector<Condition> skip;
  std::vector<std::string> conflicts;
  std::string signature;  // an id of data/sass_signatures.toml, or "none"
  // The method whose signature this one shares because no SASS tells them apart: its check
  // reports not_distinguishable instead of found. Empty for a signature of its own.
  std::string not_distinguishable_from;
  // For signature "none": why the method leaves no trace in SASS (host-side launch
  // configuration, an index change, a resource that only a comparison shows).
  std::string no_trace;
  std::string macro;      // KOPT_USE_...
  std::vector<std::string> change;  // two lines
  double gain_low = 1, gain_high = 1;  // the speed-up it usually brings where it applies
  std::string risks;    // what it can break or cost
  std::string example;  // a worked example: symptom, change, effect
};

// What a method's SASS check can prove: "verifiable" (a signature of its own),
// "not_distinguishable" (a signature shared with a method it cannot be told apart from) or
// "not_verifiable" (it leaves no reliable trace in machine code).
std::string_view sass_check_of(const Method& method);

struct MethodCatalog {
  std::map<std::string, Feature> features;
  std::vector<Method> methods;  // by axis, then priority

  const Method* find(std::string_view id) const;
  // Whether `method` runs on sm_`arch`; otherwise the reason ("needs sm_90", "needs wgmma").
  std::optional<std::string> arch_obstacle(const Method& method, int arch) const;
  // Both directions of the `conflicts` lists.
  bool conflict(const Method& a, const Method& b) const;
};

// The names a condition may use: every concept of data/metrics.toml plus the roofline and
// spec facts the planner provides.
std::set<std::string> known_condition_names();

// Throws Error(bad_input) naming the file and the entry for a malformed one: unknown keys,
// missing fields, an unknown axis or feature, an axis that is not the id's prefix, a priority
// used twice on one axis, a conflict or signature that does not exist, a macro not of the form
// KOPT_USE_[A-Z0-9_]+, a condition that does not parse or names an unknown concept, a gain
// that is not [low, high] with 1 <= low <= high, a missing risks or example line.
MethodCatalog parse_method_catalog(std::string_view toml_text, std::string_view file_name,
                                   const SignatureTable& signatures, const std::set<std::string>& known_names);
// data/methods.toml against data/sass_signatures.toml and data/metrics.toml.
MethodCatalog load_method_catalog();

// Throws Error(bad_input) for the first id that is not a method of data/methods.toml.
void require_known_methods(const std::vector<std::string>& ids);

}  // namespace kopt::catalog
