#pragma once
// Checks a methods.json written by a person or an agent (the methods chosen for an
// iteration) against the rules the planner follows: known method ids, each once; what the
// architecture can run; not already tried; no skip condition holding; no two conflicting
// methods, nor one conflicting with a method kept from an earlier iteration; and the axis
// budget (an axis may exceed its own share only by budget the other axes leave unspent, and
// only on the axis that binds the kernel).
//
// methods.json: {"methods": [{"id": "memory.tiling_smem", "why": "..."}, ...]} (or ids as strings).

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "kopt/catalog/planner.hpp"

namespace kopt::catalog {

struct Violation {
  std::string id;    // the method, or empty for the whole file
  std::string rule;  // unknown_id | duplicate | arch | tried | skip | conflict | budget
  std::string message;
};

// The method ids of a methods.json; an input_error names the file when it is malformed.
std::vector<std::string> parse_methods_json(const nlohmann::json& document, const std::string& file);

std::vector<Violation> validate_methods(const MethodCatalog& catalog, const std::vector<std::string>& ids,
                                        const PlanInputs& inputs);

void to_json(nlohmann::json& out, const Violation& violation);

}  // namespace kopt::catalog
