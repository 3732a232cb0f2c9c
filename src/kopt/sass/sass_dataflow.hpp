#pragma once
// The data-flow facts of sass_structure.hpp that follow values from register to register in
// address order: which registers carry an XOR, the block index, a loop's accumulator, or an
// address that is affine in threadIdx.x. Straight-line: a branch is read as falling through.

#include <set>
#include <span>
#include <string>

#include "kopt/sass/sass_parser.hpp"

namespace kopt::sass::dataflow {

using Code = std::span<const Instruction>;

// Shared-memory accesses (LDS, STS, LDSM, STSM, ATOMS, LDGSTS) whose address register comes,
// through integer arithmetic, from a LOP3.LUT whose table is an XOR of its inputs, one of them
// thread-dependent (a stage index toggled by `stage ^ 1` is no swizzle).
int xor_shared_addresses(Code code);

// Right shifts (not a sign's 31), masks (LOP3 AND), high multiplies, LEA.HI and integer
// divisions (I2F.RP) applied to a value that comes from the block index (SR_CTAID) and not
// from the thread index.
int block_index_remaps(Code code);

// Global loads whose address, as an affine function of threadIdx.x, steps by the load's own
// width from one thread to the next (4 bytes for LDG.E, 16 for LDG.E.128).
int coalesced_global_loads(Code code);

// Global stores, from `from` on, of a value computed from `accumulators` by anything but
// further accumulation (FFMA into them, FADD of two of them) or a copy.
int transformed_accumulator_stores(Code code, size_t from, const std::set<std::string>& accumulators);

}  // namespace kopt::sass::dataflow
