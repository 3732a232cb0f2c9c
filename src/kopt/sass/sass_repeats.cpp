// repeated_loads and reciprocal_multiplies (sass_dataflow.hpp): what unrolling and a hoisted
// reciprocal leave that a long straight-line body or a division per element does not.
#include <algorithm>
#include <map>
#include <set>

#include "kopt/sass/sass_dataflow.hpp"
#include "kopt/sass/sass_registers.hpp"

namespace kopt::sass::dataflow {
namespace {

bool in(const Body& body, size_t n) { return n >= body.first && n < body.second; }

// The pointer parameters a value is computed from: 64-bit reads of constant bank 0 (LDC.64,
// ULDC.64). Sizes and strides (32-bit) are left out: a copy's address adds k * stride, and the
// next copy's (k + 1) * stride, computed apart but through the same pointer.
using Roots = std::set<std::string>;

Roots pointer_operands(const Instruction& i) {
  Roots roots;
  if (!i.has_modifier("64")) return roots;
  for (const std::string& op : i.operands) {
    if (op.find("c[0x0][") != std::string::npos) roots.insert(op);
  }
  return roots;
}

// Per instruction: the pointer a load reads through, as the parameters its address comes
// from, or, for an address computed from none (a shared-memory tile), its base register's
// definition; empty for anything but a load.
std::vector<std::string> load_pointers(Code code) {
  std::map<std::string, Roots> roots;
  std::map<std::string, int> version;
  std::vector<std::string> pointers(code.size());
  for (size_t n = 0; n < code.size(); ++n) {
    const Instruction& i = code[n];
    const bool load = i.opcode == "LDG" || i.opcode == "LDS" || i.opcode == "LDSM" || i.opcode == "LD";
    const std::optional<std::string> base = load && i.operands.size() >= 2 ? address_register(i.operands[1]) : std::nullopt;
    if (base) {
      const Roots& from = roots[*base];
      std::string key = i.full_opcode() + ":";
      for (const std::string& r : from) key += r;
      pointers[n] = from.empty() ? key + *base + "#" + std::to_string(version[*base]) : key;
    }
    Roots value;  // a loaded value is a new pointer, not the one it was read through
    if (is_integer_arithmetic(i) || i.opcode == "LDC" || i.opcode == "ULDC") {
      value = pointer_operands(i);
      for (const std::string& r : read_registers(i)) value.insert(roots[r].begin(), roots[r].end());
    }
    for (const std::string& d : written_registers(i)) {
      roots[d] = value;
      ++version[d];
    }
  }
  return pointers;
}

}  // namespace

int repeated_loads(Code code, const std::vector<Body>& bodies) {
  const std::vector<std::string> pointers = load_pointers(code);
  int best = 0;
  for (const Body& body : bodies) {
    std::map<std::string, int> per_pointer;
    for (size_t n = body.first; n < body.second; ++n) {
      if (!pointers[n].empty()) best = std::max(best, ++per_pointer[pointers[n]]);
    }
  }
  return best;
}

// A reciprocal is MUFU.RCP's result, refined by Newton steps (FFMA r, e, r: the reciprocal
// the addend); each FMUL reading it is a use, twice where it runs in a loop the reciprocal was
// computed before (a reciprocal hoisted out of a loop nvcc left rolled).
int reciprocal_multiplies(Code code, const std::vector<Body>& loops) {
  std::map<std::string, size_t> reciprocal;  // register → the MUFU.RCP it holds
  std::map<size_t, int> uses;
  int best = 0;
  for (size_t n = 0; n < code.size(); ++n) {
    const Instruction& i = code[n];
    std::optional<size_t> holds;
    if (i.opcode == "MUFU" && i.has_modifier("RCP")) holds = n;
    if (i.opcode == "FFMA" && i.operands.size() >= 4) {
      for (const std::string& r : registers_in(i.operands[3])) {
        if (reciprocal.contains(r)) holds = reciprocal.at(r);
      }
    }
    if (i.opcode == "FMUL") {
      for (const std::string& r : read_registers(i)) {
        if (!reciprocal.contains(r)) continue;
        const size_t rcp = reciprocal.at(r);
        const bool hoisted = std::ranges::any_of(loops, [&](const Body& l) { return in(l, n) && !in(l, rcp); });
        best = std::max(best, uses[rcp] += hoisted ? 2 : 1);
        break;
      }
    }
    for (const std::string& d : written_registers(i)) {
      reciprocal.erase(d);
      if (holds) reciprocal[d] = *holds;
    }
  }
  return best;
}

}  // namespace kopt::sass::dataflow
