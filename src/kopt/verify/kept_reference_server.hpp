#pragma once
// One Python reference runner for a whole loop process (`kopt optimize`, one `kopt close`), not
// one per measurement. Each of a close's measurements (the full check, the finals, the
// ablation, the final audit) started Python, numpy and torch anew: about 3.3 s a start on an
// H100 (issue 59). The first measurement that needs the runner starts it, before its compile;
// the others find it warm.
//
// Nothing changes about when the reference runs: only when asked, and asked only after each
// kernel's worker has exited (reference_server.hpp). Between requests the runner is kopt's own
// idle child, as it already was between a bench's checks and its timing.
//
// The runner imports each reference file once, so a server is replaced when the reference's
// content changes; and when it has ended (a reference that ended its process, a request out of
// time), since an ended server answers nothing.

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

#include "kopt/core/process.hpp"
#include "kopt/spec/problem_spec.hpp"
#include "kopt/verify/reference_server.hpp"

namespace kopt::verify {

class KeptReferenceServer {
 public:
  // Servers run through `runner`; each request within `time_limit`; `observer` hears each
  // request's start and end (PythonReferenceServer::RequestObserver). Their runners set up
  // CUDA at their first request, not ahead: a server the loop starts again may have its first
  // request after a timing, and no context is made beside timed calls.
  KeptReferenceServer(ProcessRunner& runner, std::filesystem::path cache_dir, std::chrono::duration<double> time_limit,
                      PythonReferenceServer::RequestObserver observer = {});

  // The server for `problem`'s .py reference, kept from an earlier call where it still serves
  // the same content; nullptr when the problem's reference is not a .py file.
  PythonReferenceServer* serve(const spec::Problem& problem);

  // How many servers it has started.
  int starts() const { return starts_; }

 private:
  ProcessRunner& runner_;
  std::filesystem::path cache_dir_;
  std::chrono::duration<double> time_limit_;
  PythonReferenceServer::RequestObserver observer_;
  std::string reference_hash_;  // the content the kept server was started for
  std::unique_ptr<PythonReferenceServer> server_;
  int starts_ = 0;
};

}  // namespace kopt::verify
