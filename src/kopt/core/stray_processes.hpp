#pragma once
// No process a child of kopt starts outlives that child. A kernel's library can fork a
// daemon that leaves its process group (setsid) and would live on after its worker: to read
// later workers' job files, compute answers ahead on the GPU, or load the GPU while another
// variant is timed (docs/integrity.md). kopt therefore adopts every orphan of its
// descendants (PR_SET_CHILD_SUBREAPER) and, when one of its children has ended, ends every
// adopted process that is not a child it is running.

#include <sys/types.h>

#include <functional>

namespace kopt {

// Makes this process the reaper of its descendants' orphans. Idempotent.
void adopt_orphans();

// SIGKILLs and reaps every child of this process for which `is_running_child` is false,
// again until none is left (a killed daemon's own children are adopted in turn). Returns how
// many it ended.
int end_stray_children(const std::function<bool(pid_t)>& is_running_child);

}  // namespace kopt
