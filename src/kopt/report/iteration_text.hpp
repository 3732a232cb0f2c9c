#pragma once
// What `kopt close` prints of the iteration it closed: the verdict, the champion against the
// best with its interval, and each method's class and time without it.

#include <string>

#include <nlohmann/json.hpp>

namespace kopt::report {

// From close_iteration's verdict (iteration.json's summary of it).
std::string format_iteration_verdict(const nlohmann::json& verdict);

}  // namespace kopt::report
