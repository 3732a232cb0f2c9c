#include "kopt/measure/worker_streams.hpp"

#include "kopt/measure/stream_judgement.hpp"

namespace kopt::measure {
namespace {

// solve sent work outside the default stream's order: held, that work could start as the
// blocker lets go, before the start event fires (issue 56), so the variant is timed unheld from
// now on: the GPU idle at the start event, everything solve sends comes after it.
void time_unheld_for_streams(VariantState& v) {
  if (!v.blocked) return;
  v.blocked = false;
  add_note(v.samples, "solve sends work outside the default stream's order: timed unheld, so that none of it can "
                      "start before the window opens");
}

}  // namespace

bool judge_streams(VariantState& v, const Sample& sample, const SampleKit& kit, bool held) {
  if (kit.streams == nullptr) return true;
  if (!kit.streams->intact()) {
    keep_finding(v.samples.work_unjoined, "kopt's watch of the streams (CUPTI's callbacks), switched off while solve ran");
  }
  if (!record_call_work(v.samples, sample.work, v.unbatched_launches)) return true;
  time_unheld_for_streams(v);
  return !held;
}

}  // namespace kopt::measure
