#include <cxxabi.h>

#include <cstdlib>

#include "kopt/run/stream_watch_impl.hpp"

#if KOPT_HAVE_CUPTI

namespace kopt::run {

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

namespace {

template <typename Params>
const Params& params_of(const CUpti_CallbackData* call) {
  return *static_cast<const Params*>(call->functionParams);
}

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

// The driver calls that send work to a stream; false for any other.
bool StreamWatch::Impl::on_driver_work(CUpti_CallbackId id, const CUpti_CallbackData* call) {
  const bool entering = call->callbackSite == CUPTI_API_ENTER;
  switch (id) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
      if (entering) driver_kernel_launch<cuLaunchKernel_params>(*this, call);
      return true;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
      if (entering) driver_kernel_launch<cuLaunchCooperativeKernel_params>(*this, call);
      return true;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
      if (entering) {
        const CUlaunchConfig& c = *params_of<cuLaunchKernelEx_params>(call).config;
        work(call, c.hStream, {c.gridDimX, c.gridDimY, c.gridDimZ}, {c.blockDimX, c.blockDimY, c.blockDimZ});
      }
      return true;
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2_ptsz:
      if (entering) driver_stream_work<cuMemcpyHtoDAsync_v2_params>(*this, call);
      return true;
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2_ptsz:
      if (entering) driver_stream_work<cuMemcpyDtoHAsync_v2_params>(*this, call);
      return true;
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2_ptsz:
      if (entering) driver_stream_work<cuMemcpyDtoDAsync_v2_params>(*this, call);
      return true;
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz:
      if (entering) driver_stream_work<cuMemcpyAsync_params>(*this, call);
      return true;
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async_ptsz:
      if (entering) driver_stream_work<cuMemsetD8Async_params>(*this, call);
      return true;
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async_ptsz:
      if (entering) driver_stream_work<cuMemsetD16Async_params>(*this, call);
      return true;
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async_ptsz:
      if (entering) driver_stream_work<cuMemsetD32Async_params>(*this, call);
      return true;
    case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz:
      if (entering) driver_stream_work<cuGraphLaunch_params>(*this, call);
      return true;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc_ptsz:
      if (entering) driver_stream_work<cuLaunchHostFunc_params>(*this, call);
      return true;
    default: return false;
  }
}

// The driver calls that order streams or wait for them.
void StreamWatch::Impl::on_driver_order(CUpti_CallbackId id, const CUpti_CallbackData* call) {
  const bool entering = call->callbackSite == CUPTI_API_ENTER;
  switch (id) {
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

void StreamWatch::Impl::on_driver(CUpti_CallbackId id, const CUpti_CallbackData* call) {
  if (!on_driver_work(id, call)) on_driver_order(id, call);
}

}  // namespace kopt::run

#endif
