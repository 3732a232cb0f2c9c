#include "kopt/catalog/plan_inputs.hpp"

#include "kopt/catalog/evidence.hpp"
#include "kopt/core/error.hpp"

namespace kopt::catalog {

PlanInputs read_plan_inputs(const PlanEvidenceFiles& files, const PlanOverrides& overrides) {
  PlanInputs inputs;
  try {
    inputs.profile = parse_profile_json(read_json_file(files.profile), files.profile.string());
    inputs.roofline = parse_roofline_json(read_json_file(files.roofline), files.roofline.string());
    if (files.history_document) {
      inputs.history = parse_history_json(*files.history_document, "history.json");
      inputs.retries_per_method = files.history_document->value(kRetriesField, kDefaultRetriesPerMethod);
    } else if (files.history) {
      const nlohmann::json history = read_json_file(*files.history);
      inputs.history = parse_history_json(history, files.history->string());
      inputs.retries_per_method = history.value(kRetriesField, kDefaultRetriesPerMethod);
    }
  } catch (const nlohmann::json::exception& e) {
    throw input_error("malformed plan input: {}", e.what());
  }
  const std::string arch = !overrides.arch.empty() ? overrides.arch : inputs.profile.arch;
  if (arch.empty()) {
    throw input_error("{} names no architecture; give --arch sm_XX", files.profile.string());
  }
  inputs.arch = arch_number(arch);
  inputs.dtype = !overrides.dtype.empty() ? overrides.dtype : !inputs.profile.dtype.empty() ? inputs.profile.dtype : "fp32";
  // Exact FP32 unless told otherwise: TF32 tensor cores and fast math change FP32 results.
  inputs.fp32_exact = overrides.fp32_exact ? overrides.fp32_exact : std::optional(inputs.dtype == "fp32");
  return inputs;
}

}  // namespace kopt::catalog
