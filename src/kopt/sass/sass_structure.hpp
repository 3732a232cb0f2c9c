#pragma once
// What a function's machine code does beyond which opcodes it holds: its loops and a few
// data-flow facts a method leaves behind (issue 58). Computed from the parsed instructions in
// address order (straight-line data flow, control flow ignored but for loops), so each fact is
// a structural reading, never a text search. The facts, each a count:
//
//   loops                        backward branches (a loop each)
//   grid_size_reads              instructions reading gridDim (c[0x0][0xc], 0x10, 0x14; sm_100: 0x370...)
//   accumulator_chains           the most loop-carried FFMA/FADD/HFMA2 chains in one loop body
//                                (one accumulator per chain however far nvcc unrolls)
//   loads_before_first_use       the longest run of global loads issued before any is used
//   fma_between_load_and_store   the most FP instructions between a global load and the
//                                shared-memory store of its register (a tile held across math)
//   xor_shared_addresses         shared-memory accesses whose address comes from an XOR
//   block_index_remaps           shifts right, masks and divisions of the block index
//   transformed_accumulator_stores  global stores of a value computed from a loop's
//                                accumulator (not the accumulator itself)
//   coalesced_global_loads       global loads whose address steps by the load's own width from
//                                one threadIdx.x to the next
//   coalesced_load_percent       of the global loads whose address varies with threadIdx.x, the
//                                share (%) that are coalesced (a run-time stride is not)
//   repeated_loads               the most loads through one pointer in one loop body (a
//                                function without a loop: the whole function), an unrolled copy each
//   reciprocal_multiplies        the most FMULs by one MUFU.RCP reciprocal (a use in a loop it
//                                was hoisted out of counts twice)

#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kopt/sass/sass_parser.hpp"

namespace kopt::sass {

using StructureFacts = std::map<std::string, int>;
using LoopBody = std::map<std::string, int>;  // opcode with modifiers → instructions

// The names above, in order: every profile lists all of them.
const std::vector<std::string>& structure_fact_names();

struct FunctionStructure {
  StructureFacts facts;
  // Each loop's body (from a backward branch's target to the branch), or, in a function
  // without a loop, the whole function as one body (a loop unrolled completely).
  std::vector<LoopBody> loop_bodies;
};

// `code`: the function's instructions without its trailing padding; `arch` ("sm_90") places
// gridDim in the constant bank.
FunctionStructure analyse_structure(std::span<const Instruction> code, std::string_view arch);

}  // namespace kopt::sass
