#include "kopt/run/stream_watch.hpp"

#include <cxxabi.h>
#include <dlfcn.h>
#include <fmt/format.h>

#include <atomic>
#include <map>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string_view>
#include <vector>

#if __has_include(<cupti.h>)
#define KOPT_HAVE_CUPTI 1
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>  // with the generated parameter structs of every API call
#else
#define KOPT_HAVE_CUPTI 0
#endif

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

struct CuptiApi {
  void* library = nullptr;
  CUptiResult (*subscribe)(CUpti_SubscriberHandle*, CUpti_CallbackFunc, void*) = nullptr;
  CUptiResult (*enable_domain)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain) = nullptr;
  CUptiResult (*unsubscribe)(CUpti_SubscriberHandle) = nullptr;
  CUptiResult (*callback_state)(uint32_t*, CUpti_SubscriberHandle, CUpti_CallbackDomain, CUpti_CallbackId) = nullptr;
  CUptiResult (*result_string)(CUptiResult, const char**) = nullptr;

  std::string describe(CUptiResult result) const {
    const char* text = nullptr;
    if (result_string != nullptr && result_string(result, &text) == CUPTI_SUCCESS && text != nullptr) return text;
    return fmt::format("CUPTI error {}", static_cast<int>(result));
  }
};

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

// The calling thread is inside a runtime API call: the driver calls the runtime makes for it are
// the same work, already recorded.
thread_local int runtime_depth = 0;
// The calling thread is kopt's callback, asking CUDA about a stream: not solve's work.
thread_local bool inside_watch = false;

// "vector_add" for "_Z10vector_addPKfS0_Pfi": the name a FLAG can be read by (the parameters
// would make a template's line unreadable; the grid and block follow it anyway).
std::string readable_kernel_name(const char* symbol) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(symbol, nullptr, nullptr, &status);
  std::string name = status == 0 && demangled != nullptr ? demangled : symbol;
  std::free(demangled);
  if (const auto paren = name.find('('); paren != std::string::npos && paren > 0) name.resize(paren);
  return name;
}

template <typename Params>
const Params& params_of(const CUpti_CallbackData* call) {
  return *static_cast<const Params*>(call->functionParams);
}

}  // namespace

struct StreamWatch::Impl {
  CuptiApi api;
  CUpti_SubscriberHandle subscriber{};
  std::atomic<bool> armed{false};
  std::atomic<bool> learning_context{false};
  std::uint32_t timed_context = 0;  // the contextUid of kopt's own calls
  std::mutex mutex;
  StreamLedger ledger;
  std::map<const void*, bool> order_of_streams;  // in_order's answers within the current call

  // The legacy default stream, the per-thread one and blocking streams are ordered with the
  // events kopt records on the legacy one; a stream CUDA cannot describe is assumed not to be.
  bool in_order(const void* stream) {
    if (stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread) return true;
    {
      // Asked once per stream and call: a solve that launches many times on its own stream pays
      // for one query (a stream destroyed and made again within a call may reuse its handle).
      const std::lock_guard lock(mutex);
      if (const auto known = order_of_streams.find(stream); known != order_of_streams.end()) return known->second;
    }
    unsigned flags = 0;
    inside_watch = true;
    const cudaError_t status = cudaStreamGetFlags(static_cast<cudaStream_t>(const_cast<void*>(stream)), &flags);
    inside_watch = false;
    if (status != cudaSuccess) cudaGetLastError();
    const bool ordered = status == cudaSuccess && (flags & cudaStreamNonBlocking) == 0;
    const std::lock_guard lock(mutex);
    order_of_streams[stream] = ordered;
    return ordered;
  }

  const void* key(const CUpti_CallbackData* call, const void* stream) const {
    // Streams of another context are outside whatever their flags say; keyed apart.
    return call->contextUid == timed_context ? stream : reinterpret_cast<const void*>(std::uintptr_t{call->contextUid} << 32);
  }

  void work(const CUpti_CallbackData* call, const void* stream, std::array<unsigned, 3> grid,
            std::array<unsigned, 3> block) {
    const bool same_context = call->contextUid == timed_context;
    const bool ordered = same_context && in_order(stream);
    const std::string name = call->symbolName != nullptr ? readable_kernel_name(call->symbolName) : call->functionName;
    const std::lock_guard lock(mutex);
    if (ordered) {
      ledger.launched_in_order({.kernel = name, .grid = grid, .block = block});
    } else {
      ledger.sent_outside(key(call, stream),
                          fmt::format("{} on {}", name, same_context ? "a non-blocking stream" : "another CUDA context"));
    }
  }
  void recorded(const CUpti_CallbackData* call, const void* event, const void* stream) {
    const bool ordered = call->contextUid == timed_context && in_order(stream);
    const std::lock_guard lock(mutex);
    ledger.recorded(event, key(call, stream), ordered);
  }
  void waited(const CUpti_CallbackData* call, const void* stream, const void* event) {
    const bool ordered = call->contextUid == timed_context && in_order(stream);
    const std::lock_guard lock(mutex);
    ledger.waited(key(call, stream), ordered, event);
  }
  void finished_event(const void* event) {
    const std::lock_guard lock(mutex);
    ledger.event_finished(event);
  }
  void finished_stream(const CUpti_CallbackData* call, const void* stream) {
    const std::lock_guard lock(mutex);
    ledger.stream_finished(key(call, stream));
  }
  void finished_device() {
    const std::lock_guard lock(mutex);
    ledger.device_finished();
  }

  void on_runtime(CUpti_CallbackId id, const CUpti_CallbackData* call);
  void on_driver(CUpti_CallbackId id, const CUpti_CallbackData* call);
};

namespace {

std::array<unsigned, 3> dims(dim3 d) { return {d.x, d.y, d.z}; }

template <typename Params>
void kernel_launch(StreamWatch::Impl& watch, const CUpti_CallbackData* call) {
  const Params& p = params_of<Params>(call);
  watch.work(call, p.stream, dims(p.gridDim), dims(p.blockDim));
}

template <typename Params>
void stream_work(StreamWatch::Impl& watch, const CUpti_CallbackData* call) {
  watch.work(call, params_of<Params>(call).stream, {}, {});
}

template <typename Params>
void driver_kernel_launch(StreamWatch::Impl& watch, const CUpti_CallbackData* call) {
  const Params& p = params_of<Params>(call);
  watch.work(call, p.hStream, {p.gridDimX, p.gridDimY, p.gridDimZ}, {p.blockDimX, p.blockDimY, p.blockDimZ});
}

template <typename Params>
void driver_stream_work(StreamWatch::Impl& watch, const CUpti_CallbackData* call) {
  watch.work(call, params_of<Params>(call).hStream, {}, {});
}

template <typename Result>
bool succeeded(const CUpti_CallbackData* call, Result success) {
  return call->functionReturnValue != nullptr && *static_cast<const Result*>(call->functionReturnValue) == success;
}

}  // namespace

// Work is recorded as it is sent (on entry); a wait for the host counts once it returned
// successfully (a query that says "not ready" joined nothing).
void StreamWatch::Impl::on_runtime(CUpti_CallbackId id, const CUpti_CallbackData* call) {
  const bool entering = call->callbackSite == CUPTI_API_ENTER;
  switch (id) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000:
      if (entering) kernel_launch<cudaLaunchKernel_v7000_params>(*this, call);
      return;
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060:
      if (entering) {
        const cudaLaunchConfig_t& config = *params_of<cudaLaunchKernelExC_v11060_params>(call).config;
        work(call, config.stream, dims(config.gridDim), dims(config.blockDim));
      }
      return;
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000:
      if (entering) stream_work<cudaMemcpyAsync_v3020_params>(*this, call);
      return;
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_ptsz_v7000:
      if (entering) stream_work<cudaMemcpy2DAsync_v3020_params>(*this, call);
      return;
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_ptsz_v7000:
      if (entering) stream_work<cudaMemsetAsync_v3020_params>(*this, call);
      return;
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeerAsync_v4000:
      if (entering) stream_work<cudaMemcpyPeerAsync_v4000_params>(*this, call);
      return;
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchHostFunc_v10000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchHostFunc_ptsz_v10000:
      if (entering) stream_work<cudaLaunchHostFunc_v10000_params>(*this, call);
      return;
    case CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000:
      if (entering) stream_work<cudaGraphLaunch_v10000_params>(*this, call);
      return;
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_ptsz_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_v11010:
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_ptsz_v11010:
      if (entering) {
        const auto& p = params_of<cudaEventRecord_v3020_params>(call);
        recorded(call, p.event, p.stream);
      }
      return;
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_ptsz_v7000:
      if (entering) {
        const auto& p = params_of<cudaStreamWaitEvent_v3020_params>(call);
        waited(call, p.stream, p.event);
      }
      return;
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_ptsz_v7000:
      if (!entering && succeeded(call, cudaSuccess)) {
        finished_stream(call, params_of<cudaStreamSynchronize_v3020_params>(call).stream);
      }
      return;
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventQuery_v3020:
      if (!entering && succeeded(call, cudaSuccess)) finished_event(params_of<cudaEventSynchronize_v3020_params>(call).event);
      return;
    case CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020:
      if (!entering && succeeded(call, cudaSuccess)) finished_device();
      return;
    default: return;
  }
}

void StreamWatch::Impl::on_driver(CUpti_CallbackId id, const CUpti_CallbackData* call) {
  const bool entering = call->callbackSite == CUPTI_API_ENTER;
  switch (id) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
      if (entering) driver_kernel_launch<cuLaunchKernel_params>(*this, call);
      return;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
      if (entering) driver_kernel_launch<cuLaunchCooperativeKernel_params>(*this, call);
      return;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
      if (entering) {
        const CUlaunchConfig& c = *params_of<cuLaunchKernelEx_params>(call).config;
        work(call, c.hStream, {c.gridDimX, c.gridDimY, c.gridDimZ}, {c.blockDimX, c.blockDimY, c.blockDimZ});
      }
      return;
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2_ptsz:
      if (entering) driver_stream_work<cuMemcpyHtoDAsync_v2_params>(*this, call);
      return;
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2_ptsz:
      if (entering) driver_stream_work<cuMemcpyDtoHAsync_v2_params>(*this, call);
      return;
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2_ptsz:
      if (entering) driver_stream_work<cuMemcpyDtoDAsync_v2_params>(*this, call);
      return;
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz:
      if (entering) driver_stream_work<cuMemcpyAsync_params>(*this, call);
      return;
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async_ptsz:
      if (entering) driver_stream_work<cuMemsetD8Async_params>(*this, call);
      return;
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async_ptsz:
      if (entering) driver_stream_work<cuMemsetD16Async_params>(*this, call);
      return;
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async_ptsz:
      if (entering) driver_stream_work<cuMemsetD32Async_params>(*this, call);
      return;
    case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz:
      if (entering) driver_stream_work<cuGraphLaunch_params>(*this, call);
      return;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc_ptsz:
      if (entering) driver_stream_work<cuLaunchHostFunc_params>(*this, call);
      return;
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecord:
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecord_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags:
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags_ptsz:
      if (entering) {
        const auto& p = params_of<cuEventRecord_params>(call);
        recorded(call, p.hEvent, p.hStream);
      }
      return;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent_ptsz:
      if (entering) {
        const auto& p = params_of<cuStreamWaitEvent_params>(call);
        waited(call, p.hStream, p.hEvent);
      }
      return;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamQuery:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamQuery_ptsz:
      if (!entering && succeeded(call, CUDA_SUCCESS)) finished_stream(call, params_of<cuStreamSynchronize_params>(call).hStream);
      return;
    case CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize:
    case CUPTI_DRIVER_TRACE_CBID_cuEventQuery:
      if (!entering && succeeded(call, CUDA_SUCCESS)) finished_event(params_of<cuEventSynchronize_params>(call).hEvent);
      return;
    case CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize:
      if (!entering && succeeded(call, CUDA_SUCCESS)) finished_device();
      return;
    default: return;
  }
}

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
