#pragma once
// What the calls of a sample sent, by stream (run/stream_ledger.hpp), kept in the variant's
// record for the verdict (issue 56; docs/integrity.md, "Streams"). Pure: the timing worker
// calls it after each sample, the tests without a GPU.

#include <string>
#include <vector>

#include "kopt/measure/bench_job.hpp"
#include "kopt/run/stream_ledger.hpp"

namespace kopt::measure {

// At most this many lines of each kind are kept: a kernel that does it once does it each call.
inline constexpr std::size_t kStreamFindingsKept = 4;

// Adds `line` to `kept` unless it is there already or kept is full.
void keep_finding(std::vector<std::string>& kept, const std::string& line);

// Records in `samples` what the calls of one sample sent: work outside the default stream's
// order (streams_outside), what of it solve left unjoined (work_unjoined) and, in a batch,
// every call whose launches in the order differ from `unbatched`, what an unbatched call of
// the same variant launched (batch_calls_unlike). Returns whether any call sent work outside.
bool record_call_work(VariantSamples& samples, const std::vector<run::CallWork>& calls,
                      const std::vector<run::TimedLaunch>& unbatched);

}  // namespace kopt::measure
