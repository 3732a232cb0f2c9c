#pragma once
// The data-flow facts of sass_structure.hpp that follow values from register to register in
// address order: which registers carry an XOR, the block index, a loop's accumulator, or an
// address that is affine in threadIdx.x. Straight-line: a branch is read as falling through.

#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "kopt/sass/sass_parser.hpp"

namespace kopt::sass::dataflow {

using Code = std::span<const Instruction>;
using Body = std::pair<size_t, size_t>;  // instruction indices [first, second): a loop body

// Integer arithmetic carries a value's lineage on; loads, stores and floating-point math end it.
bool is_integer_arithmetic(const Instruction& i);

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

// The share of global loads that vary with threadIdx.x (neither coalesced nor warp-uniform
// loads count against it: a stride of another width, a run-time stride) that are coalesced, in
// percent; 0 without any such load. One coalesced load among strided ones is not coalescing.
int coalesced_load_percent(Code code);

// The most loads in one of `bodies` through one pointer (the same kernel parameters, or one
// shared-memory base register): an unrolled loop's copies; distinct arrays do not add up.
int repeated_loads(Code code, const std::vector<Body>& bodies);

// The most FMULs reading one reciprocal (MUFU.RCP, with its Newton refinement), counting a use
// inside a loop the reciprocal was computed before as two; a division per element has one.
int reciprocal_multiplies(Code code, const std::vector<Body>& loops);

// Global stores, from `from` on, of a value computed from `accumulators` by anything but
// further accumulation (FFMA into them, FADD of two of them) or a copy.
int transformed_accumulator_stores(Code code, size_t from, const std::set<std::string>& accumulators);

}  // namespace kopt::sass::dataflow
