#include "kopt/sass/sass_structure.hpp"

#include <algorithm>
#include <charconv>
#include <set>

#include "kopt/sass/sass_dataflow.hpp"
#include "kopt/sass/sass_registers.hpp"

namespace kopt::sass {
namespace {

using Code = std::span<const Instruction>;

struct Loop {
  size_t begin = 0, end = 0;  // instruction indices, the branch at end - 1
};

std::vector<Loop> find_loops(Code code) {
  std::vector<Loop> loops;
  for (size_t j = 0; j < code.size(); ++j) {
    const auto target = branch_target(code[j]);
    if (!target || *target >= code[j].address) continue;
    size_t begin = j;
    while (begin > 0 && code[begin - 1].address >= *target) --begin;
    loops.push_back({begin, j + 1});
  }
  return loops;
}

bool is_copy(const Instruction& i) {
  return (i.opcode == "MOV" || (i.opcode == "IMAD" && i.has_modifier("MOV"))) && read_registers(i).size() == 1;
}

// The registers an accumulating instruction adds into: FFMA's c, either source of FADD.
std::vector<std::string> addends(const Instruction& i) {
  if ((i.opcode == "FFMA" || i.opcode == "HFMA2" || i.opcode == "DFMA") && i.operands.size() >= 4) {
    return registers_in(i.operands[3]);
  }
  if ((i.opcode == "FADD" || i.opcode == "HADD2" || i.opcode == "DADD") && i.operands.size() >= 3) {
    std::vector<std::string> both = registers_in(i.operands[1]);
    for (std::string& r : registers_in(i.operands[2])) both.push_back(std::move(r));
    return both;
  }
  return {};
}

// Chains of accumulation through a loop body, kept only when loop-carried: the chain's last
// register is one its first instruction read from before the body (an accumulator).
struct Chains {
  std::map<std::string, size_t> live;          // register → the chain whose value it holds
  std::vector<std::set<std::string>> inputs;   // per chain: registers its head read from outside
  std::vector<std::string> last;               // per chain: the register it ends in
};

void extend_chains(Chains& chains, const Instruction& i, const std::set<std::string>& written) {
  const std::vector<std::string> dests = written_registers(i);
  const std::vector<std::string> into = addends(i);
  std::optional<size_t> chain;
  for (const std::string& r : into) {
    if (chains.live.contains(r)) chain = chains.live.at(r);
    if (chain) break;
  }
  const std::vector<std::string> read = read_registers(i);
  if (!chain && is_copy(i) && chains.live.contains(read.front())) chain = chains.live.at(read.front());
  if (!chain && !into.empty()) {
    chain = chains.inputs.size();
    chains.inputs.emplace_back();
    chains.last.emplace_back();
    for (const std::string& r : into) {
      if (!written.contains(r)) chains.inputs.back().insert(r);
    }
  }
  for (const std::string& d : dests) chains.live.erase(d);
  if (chain && !dests.empty()) {
    chains.live[dests.front()] = *chain;
    chains.last[*chain] = dests.front();
  }
}

// The accumulators of one loop: the registers loop-carried chains end in.
std::set<std::string> loop_accumulators(Code body) {
  Chains chains;
  std::set<std::string> written;
  for (const Instruction& i : body) {
    extend_chains(chains, i, written);
    for (const std::string& d : written_registers(i)) written.insert(d);
  }
  std::set<std::string> accumulators;
  for (size_t c = 0; c < chains.last.size(); ++c) {
    const std::string& reg = chains.last[c];
    const auto live = chains.live.find(reg);
    if (chains.inputs[c].contains(reg) && live != chains.live.end() && live->second == c) accumulators.insert(reg);
  }
  return accumulators;
}

int loads_before_first_use(Code code) {
  std::set<std::string> pending;
  int run = 0, best = 0;
  for (const Instruction& i : code) {
    const std::vector<std::string> read = read_registers(i);
    if (std::ranges::any_of(read, [&](const std::string& r) { return pending.contains(r); })) {
      best = std::max(best, run);
      pending.clear();
      run = 0;
    }
    for (const std::string& d : written_registers(i)) {
      if (i.opcode == "LDG") {
        pending.insert(d);
      } else {
        pending.erase(d);
      }
    }
    if (i.opcode == "LDG") ++run;
  }
  return std::max(best, run);
}

bool is_fp_math(const Instruction& i) {
  static const std::set<std::string, std::less<>> math = {"FFMA", "FMUL", "FADD", "HFMA2", "HMUL2", "HADD2",
                                                          "DFMA", "HMMA", "IMMA", "HGMMA"};
  return math.contains(i.opcode) && !i.has_modifier("MMA");
}

// `passes` = 2 reads a loop body twice over, so that a load at the body's end and its store at
// the top (the next iteration) are seen in order.
int fma_between_load_and_store(Code code, int passes = 1) {
  std::map<std::string, int> loaded_at;  // register → FP instructions issued before its load
  int math = 0, best = 0;
  for (int n = 0; n < passes * static_cast<int>(code.size()); ++n) {
    const Instruction& i = code[n % code.size()];
    if (i.opcode == "STS" && i.operands.size() >= 2) {
      for (const std::string& r : registers_in(i.operands[1])) {
        if (loaded_at.contains(r)) best = std::max(best, math - loaded_at.at(r));
      }
    }
    const std::vector<std::string> read = read_registers(i);
    const auto copied = is_copy(i) ? loaded_at.find(read.front()) : loaded_at.end();
    const std::optional<int> carried = copied == loaded_at.end() ? std::nullopt : std::optional<int>(copied->second);
    for (const std::string& d : written_registers(i)) {
      if (i.opcode == "LDG") {
        loaded_at[d] = math;
      } else if (carried) {
        loaded_at[d] = *carried;  // a copy of a loaded register is still the load
      } else {
        loaded_at.erase(d);
      }
    }
    if (is_fp_math(i)) ++math;
  }
  return best;
}

// gridDim.x, .y, .z in constant bank 0: at 0xc on sm_70 to sm_90, at 0x370 from sm_100 on.
std::vector<std::string> grid_size_operands(std::string_view arch) {
  int number = 0;
  if (arch.starts_with("sm_")) std::from_chars(arch.data() + 3, arch.data() + arch.size(), number);
  if (number >= 100) return {"c[0x0][0x370]", "c[0x0][0x374]", "c[0x0][0x378]"};
  return {"c[0x0][0xc]", "c[0x0][0x10]", "c[0x0][0x14]"};
}

int grid_size_reads(Code code, std::string_view arch) {
  const std::vector<std::string> grid = grid_size_operands(arch);
  return static_cast<int>(std::ranges::count_if(code, [&](const Instruction& i) {
    return std::ranges::any_of(i.operands, [&](const std::string& op) {
      return std::ranges::any_of(grid, [&](const std::string& g) { return op.find(g) != std::string::npos; });
    });
  }));
}

LoopBody histogram(Code body) {
  LoopBody counts;
  for (const Instruction& i : body) ++counts[i.full_opcode()];
  return counts;
}

}  // namespace

const std::vector<std::string>& structure_fact_names() {
  static const std::vector<std::string> names = {
      "loops", "grid_size_reads", "accumulator_chains", "loads_before_first_use", "fma_between_load_and_store",
      "xor_shared_addresses", "block_index_remaps", "transformed_accumulator_stores", "coalesced_global_loads",
      "coalesced_load_percent", "repeated_loads", "reciprocal_multiplies"};
  return names;
}

FunctionStructure analyse_structure(Code code, std::string_view arch) {
  const std::vector<Loop> loops = find_loops(code);
  FunctionStructure structure;
  int chains = 0, held = fma_between_load_and_store(code);
  size_t after_loops = 0;
  std::set<std::string> accumulators;
  for (const Loop& loop : loops) {
    const std::set<std::string> own = loop_accumulators(code.subspan(loop.begin, loop.end - loop.begin));
    chains = std::max(chains, static_cast<int>(own.size()));
    accumulators.insert(own.begin(), own.end());
    after_loops = std::max(after_loops, loop.end);
    held = std::max(held, fma_between_load_and_store(code.subspan(loop.begin, loop.end - loop.begin), 2));
    structure.loop_bodies.push_back(histogram(code.subspan(loop.begin, loop.end - loop.begin)));
  }
  if (loops.empty()) structure.loop_bodies.push_back(histogram(code));
  std::vector<dataflow::Body> bodies;
  for (const Loop& loop : loops) bodies.emplace_back(loop.begin, loop.end);
  const std::vector<dataflow::Body> loop_free = {{0, code.size()}};
  structure.facts = {{"loops", static_cast<int>(loops.size())},
                     {"grid_size_reads", grid_size_reads(code, arch)},
                     {"accumulator_chains", chains},
                     {"loads_before_first_use", loads_before_first_use(code)},
                     {"fma_between_load_and_store", held},
                     {"xor_shared_addresses", dataflow::xor_shared_addresses(code)},
                     {"block_index_remaps", dataflow::block_index_remaps(code)},
                     {"transformed_accumulator_stores",
                      dataflow::transformed_accumulator_stores(code, after_loops, accumulators)},
                     {"coalesced_global_loads", dataflow::coalesced_global_loads(code)},
                     {"coalesced_load_percent", dataflow::coalesced_load_percent(code)},
                     {"repeated_loads", dataflow::repeated_loads(code, loops.empty() ? loop_free : bodies)},
                     {"reciprocal_multiplies", dataflow::reciprocal_multiplies(code, bodies)}};
  return structure;
}

}  // namespace kopt::sass
