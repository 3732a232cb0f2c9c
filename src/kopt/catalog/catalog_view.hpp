#pragma once
// `kopt catalog list` and `kopt catalog show ID`: the method catalog (data/methods.toml) as a
// person or an agent reads it, in text or as one JSON document (schema kopt.catalog/1).

#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "kopt/catalog/method_catalog.hpp"
#include "kopt/catalog/sass_signature.hpp"

namespace kopt::catalog {

// One line per method, by axis and priority: id, gain range, min arch, signature.
std::string format_catalog_list(const MethodCatalog& catalog);
nlohmann::json catalog_list_json(const MethodCatalog& catalog);

// Everything the catalog says about one method, its SASS signature's opcodes spelled out.
// Throws input_error for an id that is not in the catalog, naming the nearest ids.
std::string format_method(const MethodCatalog& catalog, const SignatureTable& signatures, std::string_view id);
nlohmann::json method_json(const MethodCatalog& catalog, const SignatureTable& signatures, std::string_view id);

}  // namespace kopt::catalog
