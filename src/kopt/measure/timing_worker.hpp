#pragma once
// The timing worker of a bench, started before the checks so that its CUDA set-up overlaps
// theirs: it loads no kernel and knows no seed before its job comes, once every check has
// passed (run::PrestartedWorker). The sample witness (its pipe) and the code witness (its
// memory maps) watch it from its start.

#include <chrono>
#include <filesystem>
#include <optional>

#include "kopt/core/files.hpp"
#include "kopt/measure/bench_job.hpp"
#include "kopt/measure/code_witness.hpp"
#include "kopt/measure/sample_witness.hpp"
#include "kopt/run/worker_launcher.hpp"
#include "kopt/verify/check.hpp"

namespace kopt::measure {

struct TimingOutcome {
  run::WorkerOutcome worker;
  WitnessedSpans spans;
  CodeWitnessReport code;
};

class TimingWorker {
 public:
  TimingWorker(verify::CheckContext& context, std::chrono::duration<double> time_limit);

  // Runs `job` (its witness descriptor and retention folder set here), once. The timed
  // outputs it kept are moved to `kept_dir`, and its own folder is gone before this returns:
  // no later worker (the audit's) finds a trace of a bench. `confine_writes` is the checks'
  // finding (verify::CheckContext), known only once they ran.
  TimingOutcome run(BenchJob job, const std::filesystem::path& kept_dir, bool confine_writes);

 private:
  SampleWitness witness_;
  CodeWitness code_witness_;
  std::optional<TempDir> work_;
  std::optional<run::PrestartedWorker> process_;  // declared last: cancelled before work_ goes
};

}  // namespace kopt::measure
