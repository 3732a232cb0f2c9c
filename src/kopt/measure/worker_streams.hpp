#pragma once
// The bench worker's use of the stream watch (run/stream_watch.hpp; docs/integrity.md,
// "Streams"): after each sample, what its calls sent by stream goes into the variant's record,
// and a variant that sends work outside the default stream's order is timed unheld. Worker side.

#include "kopt/measure/bench_worker_state.hpp"
#include "kopt/measure/timed_sample.hpp"

namespace kopt::measure {

// What the calls of `sample` sent, by stream, into the variant's record (stream_judgement.hpp);
// whether the sample may be kept: not when it was `held` while solve sent work outside the
// order, which may have started before the start event.
bool judge_streams(VariantState& v, const Sample& sample, const SampleKit& kit, bool held);

}  // namespace kopt::measure
