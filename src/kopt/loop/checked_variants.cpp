#include "kopt/loop/checked_variants.hpp"

#include <algorithm>

#include "kopt/core/file_queries.hpp"
#include "kopt/core/files.hpp"
#include "kopt/core/hash.hpp"

namespace kopt::loop {

verify::CheckOptions variant_check_options(const verify::CheckOptions& base, const Variant& variant) {
  verify::CheckOptions options = base;
  for (const auto& define : variant.defines) options.defines.push_back(define);
  return options;
}

std::string variant_source_hash(const Variant& variant) {
  return path_exists(variant.kernel) ? content_hash(read_file(variant.kernel)) : "";
}

namespace {

// Its file's name is no part of a variant's identity: a champion is a finalist's source copied.
std::string identity(const std::string& source_hash, const Defines& defines) {
  ContentHasher hasher;
  hasher.add(source_hash).add(std::to_string(defines.size()));
  for (const auto& [name, value] : defines) hasher.add(name).add(value);
  return hasher.hex();
}

}  // namespace

void CheckedVariants::keep_passed(const std::vector<std::pair<Variant, profile::PassedCheck>>& checks,
                                  const std::vector<VariantOutcome>& outcomes) {
  for (const auto& [variant, check] : checks) {
    const auto outcome = std::ranges::find(outcomes, variant.label, &VariantOutcome::label);
    if (outcome == outcomes.end() || !outcome->passed || check.source_hash.empty()) continue;
    checks_.insert_or_assign(identity(check.source_hash, variant.defines), check);
  }
}

std::optional<profile::PassedCheck> CheckedVariants::find(const Variant& variant) const {
  const std::string source_hash = variant_source_hash(variant);
  if (source_hash.empty()) return std::nullopt;
  const auto found = checks_.find(identity(source_hash, variant.defines));
  if (found == checks_.end()) return std::nullopt;
  return found->second;
}

}  // namespace kopt::loop
