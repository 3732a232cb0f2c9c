// coalesced_global_loads (sass_dataflow.hpp): each register's value as an affine function of
// threadIdx.x, its coefficient known (k bytes or elements per thread, 0 for a warp-uniform
// value), a run-time multiple of it (kRunTime: a thread's row times a run-time width) or not
// affine at all (a value loaded, a shuffle).
#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <optional>

#include "kopt/sass/sass_dataflow.hpp"
#include "kopt/sass/sass_registers.hpp"

namespace kopt::sass::dataflow {
namespace {

using Stride = std::optional<std::int64_t>;  // nothing: not affine in threadIdx.x
constexpr std::int64_t kRunTime = std::numeric_limits<std::int64_t>::min();

Stride scaled(Stride x, std::int64_t by) {
  if (!x || *x == 0 || by == 0) return x ? Stride(0) : std::nullopt;
  return *x == kRunTime ? kRunTime : *x * by;
}

struct Affine {
  std::map<std::string, Stride> registers;

  // Uniform registers (UR), RZ, immediates and constants do not vary across the warp.
  Stride of(std::string_view operand) const {
    const bool negated = operand.starts_with("-");
    if (negated) operand.remove_prefix(1);
    if (operand.starts_with("|")) return std::nullopt;
    if (operand.starts_with("SR_TID.X") || operand.starts_with("SR_LANEID")) return 1;
    const std::vector<std::string> regs = registers_in(operand);
    const auto varying = std::ranges::find_if(regs, [](const std::string& r) { return r.starts_with("R"); });
    if (varying == regs.end()) return 0;
    const auto it = registers.find(*varying);
    if (it == registers.end() || !it->second) return std::nullopt;
    return negated ? scaled(it->second, -1) : it->second;
  }
};

// The operands that carry values: predicates (P0, !PT) and the LUT of LOP3 left out.
std::vector<std::string> value_operands(const Instruction& i) {
  std::vector<std::string> values;
  for (size_t n = written_registers(i).empty() ? 0 : 1; n < i.operands.size(); ++n) {
    const std::string& op = i.operands[n];
    const std::string bare = op.starts_with("!") ? op.substr(1) : op;
    if (bare == "PT" || (bare.size() == 2 && bare[0] == 'P' && std::isdigit(static_cast<unsigned char>(bare[1])))) continue;
    values.push_back(op);
  }
  return values;
}

// a * b where one side is an immediate m: the other's stride times m; uniform times uniform:
// 0; a varying value times a run-time uniform one: a run-time stride.
Stride product(const Affine& a, const std::string& x, const std::string& y) {
  const Stride sx = a.of(x), sy = a.of(y);
  if (sx == 0 && sy == 0) return 0;
  if (const auto m = immediate_value(y); m && sx) return scaled(sx, *m);
  if (const auto m = immediate_value(x); m && sy) return scaled(sy, *m);
  if ((sx == 0 && sy) || (sy == 0 && sx)) return kRunTime;
  return std::nullopt;
}

Stride sum(Stride x, Stride y) {
  if (!x || !y) return std::nullopt;
  return *x == kRunTime || *y == kRunTime ? kRunTime : *x + *y;
}

Stride shifted(Stride x, const std::string& amount) {
  const auto s = immediate_value(amount);
  return s && *s >= 0 && *s < 32 ? scaled(x, std::int64_t{1} << *s) : std::nullopt;
}

Stride all_uniform(const Affine& a, const std::vector<std::string>& ops) {
  for (const std::string& op : ops) {
    if (a.of(op) != 0) return std::nullopt;
  }
  return 0;
}

Stride evaluate(const Affine& a, const Instruction& i) {
  const std::vector<std::string> v = value_operands(i);
  const std::string& op = i.opcode;
  const bool high = i.has_modifier("HI") || i.has_modifier("X");
  if (op.starts_with("LD") && op != "LDC") return std::nullopt;  // a loaded value
  if (op.starts_with("ATOM") || op == "SHFL" || op == "POPC") return std::nullopt;
  if (op == "S2R" && !v.empty()) return v[0].starts_with("SR_TID.X") || v[0].starts_with("SR_LANEID") ? 1 : 0;
  if ((op == "MOV" || op == "IMAD") && i.has_modifier("MOV")) return v.empty() ? Stride() : a.of(v.back());
  if (op == "MOV" && v.size() == 1) return a.of(v[0]);
  if (high) return all_uniform(a, v);
  if (op == "IMAD" && v.size() == 3) return sum(product(a, v[0], v[1]), a.of(v[2]));
  if ((op == "IADD3" || op == "IADD") && !v.empty()) {
    Stride total = 0;
    for (const std::string& x : v) total = sum(total, a.of(x));
    return total;
  }
  if (op == "VIADD" && v.size() == 2) return sum(a.of(v[0]), a.of(v[1]));
  if (op == "LEA" && v.size() == 3) return sum(shifted(a.of(v[0]), v[2]), a.of(v[1]));
  if (op == "SHF" && i.has_modifier("L") && v.size() >= 2) return shifted(a.of(v[0]), v[1]);
  return all_uniform(a, v);
}

int load_width_bytes(const Instruction& i) {
  for (const std::string& m : i.modifiers) {
    if (m == "U8" || m == "S8") return 1;
    if (m == "U16" || m == "S16") return 2;
    if (m == "64") return 8;
    if (m == "128") return 16;
  }
  return 4;
}

struct LoadStrides {
  int coalesced = 0, strided = 0;
};

LoadStrides global_load_strides(Code code) {
  Affine affine;
  LoadStrides loads;
  for (const Instruction& i : code) {
    if (i.opcode == "LDG" && i.operands.size() >= 2) {
      const auto base = address_register(i.operands[1]);
      const Stride stride = base ? affine.of(*base) : std::nullopt;
      if (stride == load_width_bytes(i)) {
        ++loads.coalesced;
      } else if (stride && *stride != 0) {
        ++loads.strided;
      }
    }
    const std::vector<std::string> dests = written_registers(i);
    const Stride value = evaluate(affine, i);
    for (size_t n = 0; n < dests.size(); ++n) affine.registers[dests[n]] = n == 0 ? value : all_uniform(affine, value_operands(i));
  }
  return loads;
}

}  // namespace

int coalesced_global_loads(Code code) { return global_load_strides(code).coalesced; }

int coalesced_load_percent(Code code) {
  const LoadStrides loads = global_load_strides(code);
  return loads.coalesced == 0 ? 0 : 100 * loads.coalesced / (loads.coalesced + loads.strided);
}

}  // namespace kopt::sass::dataflow
