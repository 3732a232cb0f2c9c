#include "kopt/loop/variant.hpp"

namespace kopt::loop {

std::string describe_defines(const Defines& defines) {
  if (defines.empty()) return "(defaults)";
  std::string text;
  for (const auto& [name, value] : defines) text += (text.empty() ? "" : " ") + name + "=" + value;
  return text;
}

void to_json(nlohmann::json& out, const Variant& variant) {
  out = {{"label", variant.label}, {"kernel", variant.kernel.string()}, {"defines", variant.defines}};
}

void from_json(const nlohmann::json& in, Variant& variant) {
  variant.label = in.value("label", "");
  variant.kernel = in.at("kernel").get<std::string>();
  variant.defines = in.value("defines", Defines{});
}

}  // namespace kopt::loop
