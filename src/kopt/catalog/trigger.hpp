#pragma once
// The condition language of the method catalog (data/methods.toml): triggers and skip
// conditions over the metric map's concepts and a few roofline and spec facts.
//
//   stall_long_scoreboard > 0.3 and (l1_hit_rate > 0.5 or gap.memory < 0.2)
//   not spec.fp32_exact and arch >= 80
//   bound == "memory" and high_throughput
//
// Comparisons (< <= > >= == !=) between a name and a number, a name and a quoted word, or two
// names; `and`, `or`, `not`, parentheses; a bare name is a yes/no fact. Evaluation is
// three-valued: a comparison on a missing concept is *unknown*, never read as 0, and a
// condition holds only when it is true — so an absent counter can neither trigger a method
// nor rule one out, and the names it lacked are reported.

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace kopt::catalog {

using FactValue = std::variant<double, bool, std::string>;

// What the planner knows about one kernel: concept values (SI ratios), roofline facts
// (`gap.memory`, `bound`), spec facts (`spec.fp32_exact`), `arch` (90 for sm_90). A name that
// is present with no value is missing (a concept the profile could not resolve).
struct Facts {
  std::map<std::string, std::optional<FactValue>> values;

  void set(const std::string& name, std::optional<FactValue> value) { values[name] = std::move(value); }
  const FactValue* find(const std::string& name) const;
};

enum class Truth { no, yes, unknown };

struct Evaluation {
  Truth truth = Truth::unknown;
  std::map<std::string, FactValue> used;  // the values the condition read
  std::set<std::string> missing;          // names it needed and did not have
};

struct ConditionNode;

class Condition {
 public:
  // Throws Error(bad_input) with the reason and the position when `text` does not parse.
  static Condition parse(std::string_view text);

  const std::string& text() const { return text_; }
  std::set<std::string> names() const;
  Evaluation evaluate(const Facts& facts) const;

 private:
  std::string text_;
  std::shared_ptr<const ConditionNode> root_;
};

std::string_view to_string(Truth truth);
std::string format_fact(const FactValue& value);

}  // namespace kopt::catalog
