#pragma once
// Checks a methods.json written by a person or an agent (the methods chosen for an
// iteration) against the rules the planner follows: known method ids, each once; what the
// architecture can run; not already tried; no skip condition holding; no two conflicting
// methods, nor one conflicting with a method kept from an earlier iteration; and the axis
// budget (an axis may exceed its own share only by budget the other axes leave unspent, and
// only on the axis that binds the kernel).
//
// methods.json: {"methods": [{"id": "memory.tiling_smem", "why": "..."}, ...]} (or ids as strings).
// A method already tried may be claimed again only with "retry": what changed since (a new
// implementation, a signature now present), at most `retries_per_method` times in a run, and
// never one kept as effective (it is in the best already).

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "kopt/catalog/planner.hpp"

namespace kopt::catalog {

struct Violation {
  std::string id;    // the method, or empty for the whole file
  std::string rule;  // unknown_id | duplicate | arch | tried | retry_limit | skip | conflict | budget
  std::string message;
};

// The method ids of a methods.json; an input_error names the file when it is malformed.
std::vector<std::string> parse_methods_json(const nlohmann::json& document, const std::string& file);
// Its retries: method id → what changed, for each entry that gives a non-empty "retry".
std::map<std::string, std::string> parse_retries(const nlohmann::json& document, const std::string& file);

std::vector<Violation> validate_methods(const MethodCatalog& catalog, const std::vector<std::string>& ids,
                                        const PlanInputs& inputs, const std::map<std::string, std::string>& retries = {});

void to_json(nlohmann::json& out, const Violation& violation);

}  // namespace kopt::catalog
