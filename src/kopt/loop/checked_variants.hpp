#pragma once
// The checks a GpuLab's measurements passed in this process, one per variant (its source's
// content and its defines), so that the profile step stands on the check the variant's
// measurement just made instead of checking the same library again: the baseline's at init,
// a champion's (a copy of a finalist's source) after the finals (profile/passed_check.hpp;
// docs/measurement.md, "What a loop costs"). Nothing is kept across processes: a resumed run,
// or a measurement the result cache answered, leaves the profile to check as always.

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kopt/loop/lab.hpp"
#include "kopt/loop/variant.hpp"
#include "kopt/profile/passed_check.hpp"
#include "kopt/verify/check.hpp"

namespace kopt::loop {

// A variant's check options: the lab's, with its defines after them. Every measurement of the
// variant and its profile ask exactly these, so that a kept check is one the profile asks for.
verify::CheckOptions variant_check_options(const verify::CheckOptions& base, const Variant& variant);

// content_hash of the variant's source as its file reads now; "" when there is none.
std::string variant_source_hash(const Variant& variant);

class CheckedVariants {
 public:
  // A measurement's passing checks, each beside its variant, kept where the measurement's
  // outcome of that variant (by label) passed: one that failed, faulted or was flagged while
  // timed lends its check to nothing. A variant kept before is replaced.
  void keep_passed(const std::vector<std::pair<Variant, profile::PassedCheck>>& checks,
                   const std::vector<VariantOutcome>& outcomes);
  // The kept check of a variant with this one's source (as its file reads now) and defines,
  // wherever its file lies; none when none passed in this process.
  std::optional<profile::PassedCheck> find(const Variant& variant) const;

 private:
  std::map<std::string, profile::PassedCheck> checks_;  // by identity(source hash, defines)
};

}  // namespace kopt::loop
