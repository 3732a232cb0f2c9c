#include "kopt/run/stream_watch.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <optional>
#include <string_view>
#include <vector>

#include "kopt/run/stream_watch_impl.hpp"

namespace kopt::run {

#if KOPT_HAVE_CUPTI

namespace {

// Where the CUDA toolkit keeps libcupti: the loader's path first, then the layouts of NVIDIA's
// packages (extras/CUPTI) and of Debian's (lib).
std::vector<std::string> cupti_candidates() {
  std::vector<std::string> candidates{"libcupti.so", "libcupti.so.13", "libcupti.so.12"};
  std::vector<std::string> roots;
  if (const char* home = std::getenv("CUDA_HOME")) roots.emplace_back(home);
  roots.emplace_back("/usr/local/cuda");
  for (const std::string& root : roots) {
    for (const char* dir : {"/extras/CUPTI/lib64/", "/lib64/", "/lib/", "/targets/x86_64-linux/lib/"}) {
      candidates.push_back(root + dir + "libcupti.so");
    }
  }
  return candidates;
}


template <typename F>
bool bind(void* library, const char* name, F& function) {
  function = reinterpret_cast<F>(dlsym(library, name));
  return function != nullptr;
}

std::optional<CuptiApi> load_cupti(std::string& why_not) {
  CuptiApi api;
  for (const std::string& candidate : cupti_candidates()) {
    api.library = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (api.library != nullptr) break;
  }
  if (api.library == nullptr) {
    why_not = "libcupti not found (set CUDA_HOME to the CUDA toolkit)";
    return std::nullopt;
  }
  if (!bind(api.library, "cuptiSubscribe", api.subscribe) || !bind(api.library, "cuptiEnableDomain", api.enable_domain) ||
      !bind(api.library, "cuptiUnsubscribe", api.unsubscribe) ||
      !bind(api.library, "cuptiGetCallbackState", api.callback_state) ||
      !bind(api.library, "cuptiGetResultString", api.result_string)) {
    why_not = "libcupti lacks the callback API";
    return std::nullopt;
  }
  return api;
}

}  // namespace

namespace {

void CUPTIAPI on_api(void* userdata, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void* data) {
  if (inside_watch) return;
  auto& watch = *static_cast<StreamWatch::Impl*>(userdata);
  const auto* call = static_cast<const CUpti_CallbackData*>(data);
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
    if (call->callbackSite == CUPTI_API_ENTER) ++runtime_depth;
    if (watch.learning_context.load()) watch.timed_context = call->contextUid;
    if (watch.armed.load(std::memory_order_acquire)) watch.on_runtime(id, call);
    if (call->callbackSite == CUPTI_API_EXIT) --runtime_depth;
  } else if (domain == CUPTI_CB_DOMAIN_DRIVER_API && runtime_depth <= 0 && watch.armed.load(std::memory_order_acquire)) {
    watch.on_driver(id, call);
  }
}

}  // namespace

std::unique_ptr<StreamWatch> StreamWatch::start(std::string& why_not) {
  // KOPT_STREAM_WATCH=off leaves CUPTI alone (a driver where its callbacks misbehave).
  if (const char* setting = std::getenv("KOPT_STREAM_WATCH"); setting != nullptr && std::string_view(setting) == "off") {
    why_not = "KOPT_STREAM_WATCH=off";
    return nullptr;
  }
  std::optional<CuptiApi> api = load_cupti(why_not);
  if (!api) return nullptr;
  auto impl = std::make_unique<Impl>();
  impl->api = *api;
  if (const CUptiResult r = api->subscribe(&impl->subscriber, on_api, impl.get()); r != CUPTI_SUCCESS) {
    why_not = "CUPTI refused a subscriber (" + api->describe(r) + "; a profiler or sanitizer may hold it)";
    return nullptr;
  }
  for (CUpti_CallbackDomain domain : {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_CB_DOMAIN_DRIVER_API}) {
    if (const CUptiResult r = api->enable_domain(1, impl->subscriber, domain); r != CUPTI_SUCCESS) {
      why_not = "CUPTI would not enable its API callbacks (" + api->describe(r) + ")";
      api->unsubscribe(impl->subscriber);
      return nullptr;
    }
  }
  // kopt's own runtime call names the context kopt times in.
  impl->learning_context = true;
  cudaStreamQuery(nullptr);
  impl->learning_context = false;
  return std::unique_ptr<StreamWatch>(new StreamWatch(std::move(impl)));
}

StreamWatch::StreamWatch(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

StreamWatch::~StreamWatch() {
  impl_->armed = false;
  impl_->api.unsubscribe(impl_->subscriber);
}

void StreamWatch::begin_call() {
  const std::lock_guard lock(impl_->mutex);
  impl_->ledger = StreamLedger{};
  impl_->order_of_streams.clear();
  impl_->armed.store(true, std::memory_order_release);
}

CallWork StreamWatch::end_call() {
  impl_->armed.store(false, std::memory_order_release);
  const std::lock_guard lock(impl_->mutex);
  return impl_->ledger.finish();
}

bool StreamWatch::intact() const {
  for (CUpti_CallbackId id : {CUpti_CallbackId{CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000},
                              CUpti_CallbackId{CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020}}) {
    uint32_t enabled = 0;
    if (impl_->api.callback_state(&enabled, impl_->subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, id) != CUPTI_SUCCESS ||
        enabled == 0) {
      return false;
    }
  }
  for (CUpti_CallbackId id : {CUpti_CallbackId{CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel},
                              CUpti_CallbackId{CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent}}) {
    uint32_t enabled = 0;
    if (impl_->api.callback_state(&enabled, impl_->subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id) != CUPTI_SUCCESS ||
        enabled == 0) {
      return false;
    }
  }
  return true;
}

#else  // built without CUPTI's headers

struct StreamWatch::Impl {};

std::unique_ptr<StreamWatch> StreamWatch::start(std::string& why_not) {
  why_not = "this kopt was built without CUPTI's headers";
  return nullptr;
}
StreamWatch::StreamWatch(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
StreamWatch::~StreamWatch() = default;
void StreamWatch::begin_call() {}
CallWork StreamWatch::end_call() { return {}; }
bool StreamWatch::intact() const { return true; }

#endif

}  // namespace kopt::run
