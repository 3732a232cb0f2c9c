#pragma once
// What `kopt close` prints of the iteration it closed: the verdict, the champion against the
// best with its interval, each method's class and time without it, and what each stage cost.

#include <string>

#include <nlohmann/json.hpp>

namespace kopt::report {

// From close_iteration's verdict (iteration.json's summary of it), with the cost of its stages
// when it recorded them.
std::string format_iteration_verdict(const nlohmann::json& verdict);

// iteration.json's time.stages, in the order the stages ran: "first look 16 in 9.8 s (compile
// 3.1 s, 12.4 at once, GPU 8.9 s), 108 per GPU-minute; full check 6 in ...".
std::string format_stage_costs(const nlohmann::json& stages);

// Whether any of the stages compiled or ran a GPU worker: a simulated close runs neither, and
// its costs, all zero, are not printed.
bool stages_ran_processes(const nlohmann::json& stages);

}  // namespace kopt::report
