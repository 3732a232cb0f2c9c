#include "kopt/verify/kept_reference_server.hpp"

#include "kopt/core/files.hpp"
#include "kopt/core/hash.hpp"
#include "kopt/verify/reference.hpp"

namespace kopt::verify {

KeptReferenceServer::KeptReferenceServer(ProcessRunner& runner, std::filesystem::path cache_dir,
                                         std::chrono::duration<double> time_limit,
                                         PythonReferenceServer::RequestObserver observer)
    : runner_(runner), cache_dir_(std::move(cache_dir)), time_limit_(time_limit), observer_(std::move(observer)) {}

PythonReferenceServer* KeptReferenceServer::serve(const spec::Problem& problem) {
  if (!problem.spec.reference || !is_python_reference(*problem.spec.reference)) return nullptr;
  const std::string content = content_hash(read_file(*problem.spec.reference));
  if (server_ && server_->serving() && content == reference_hash_) return server_.get();
  server_.reset();  // the old one ends before the new one starts
  server_ = serve_python_reference(problem, runner_, cache_dir_, time_limit_, std::nullopt, observer_);
  reference_hash_ = content;
  ++starts_;
  return server_.get();
}

}  // namespace kopt::verify
