#pragma once
// JSON forms of the bound problem, for worker jobs: a worker rebuilds exactly the case the
// parent bound, without re-reading kopt.toml.

#include <nlohmann/json.hpp>

#include "kopt/spec/kernel_signature.hpp"
#include "kopt/spec/problem_spec.hpp"

namespace kopt::run {

nlohmann::json signature_to_json(const spec::KernelSignature& signature);
spec::KernelSignature signature_from_json(const nlohmann::json& in);

nlohmann::json case_to_json(const spec::BoundCase& bound_case);
spec::BoundCase case_from_json(const nlohmann::json& in);

nlohmann::json number_to_json(const spec::Number& value);
spec::Number number_from_json(const nlohmann::json& in);

}  // namespace kopt::run
