#include "kopt/run/kernel_library.hpp"

#include <dlfcn.h>
#include <ffi.h>

#include <cstdint>
#include <variant>

#include "kopt/core/error.hpp"

namespace kopt::run {
namespace {

ffi_type* ffi_type_of(const spec::KernelParam& param) {
  if (param.is_pointer) return &ffi_type_pointer;
  const spec::DType& d = *param.dtype;
  if (d.is_floating()) {
    if (d.bytes == 8) return &ffi_type_double;
    if (d.bytes == 4) return &ffi_type_float;
    throw input_error("scalar parameter {} has type {}, which cannot be passed by value", param.name, d.name);
  }
  bool is_signed = d.kind == spec::DTypeKind::signed_integer;
  switch (d.bytes) {
    case 1: return is_signed ? &ffi_type_sint8 : &ffi_type_uint8;
    case 2: return is_signed ? &ffi_type_sint16 : &ffi_type_uint16;
    case 4: return is_signed ? &ffi_type_sint32 : &ffi_type_uint32;
    case 8: return is_signed ? &ffi_type_sint64 : &ffi_type_uint64;
  }
  throw input_error("scalar parameter {} has an unsupported size", param.name);
}

// Storage for one argument's value, in the representation the callee expects.
union ArgumentSlot {
  void* pointer;
  double f64;
  float f32;
  std::int64_t i64;
  std::int32_t i32;
  std::int16_t i16;
  std::int8_t i8;
};

ArgumentSlot slot_for(const spec::KernelParam& param, const KernelArgument& argument) {
  ArgumentSlot slot{};
  if (param.is_pointer) {
    slot.pointer = argument.pointer;
    return slot;
  }
  const spec::DType& d = *param.dtype;
  if (d.is_floating()) {
    double value = spec::to_double(argument.scalar);
    if (d.bytes == 8) slot.f64 = value;
    else slot.f32 = static_cast<float>(value);
    return slot;
  }
  std::int64_t value = std::holds_alternative<std::int64_t>(argument.scalar)
                           ? std::get<std::int64_t>(argument.scalar)
                           : static_cast<std::int64_t>(std::get<double>(argument.scalar));
  switch (d.bytes) {
    case 1: slot.i8 = static_cast<std::int8_t>(value); break;
    case 2: slot.i16 = static_cast<std::int16_t>(value); break;
    case 4: slot.i32 = static_cast<std::int32_t>(value); break;
    default: slot.i64 = value; break;
  }
  return slot;
}

}  // namespace

struct KernelLibrary::Impl {
  void* handle = nullptr;
  void (*entry)() = nullptr;
  int (*last_error)() = nullptr;
  const char* (*error_string)(int) = nullptr;
  int (*clock_probe)(unsigned long long*, long long) = nullptr;
  int (*block_stream)(const volatile int*, unsigned long long, int*) = nullptr;
  int (*read_flush)(const void*, unsigned long long, int) = nullptr;
  int (*fill)(void*, unsigned long long, int, int, double, double, unsigned long long, int) = nullptr;
  int (*digest)(const void*, unsigned long long, unsigned long long*, int) = nullptr;
  spec::KernelSignature signature;
  std::vector<ffi_type*> types;
  ffi_cif cif{};
};

KernelLibrary::KernelLibrary(const std::filesystem::path& library, const spec::KernelSignature& signature)
    : impl_(new Impl) {
  impl_->signature = signature;
  impl_->handle = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (impl_->handle == nullptr) {
    std::string why = ::dlerror();
    delete impl_;
    throw input_error("cannot load {}: {}", library.string(), why);
  }
  impl_->entry = reinterpret_cast<void (*)()>(::dlsym(impl_->handle, signature.entry.c_str()));
  if (impl_->entry == nullptr) {
    ::dlclose(impl_->handle);
    delete impl_;
    throw input_error("{} exports no function {} (is it declared extern \"C\"?)", library.string(),
                      signature.entry);
  }
  impl_->last_error = reinterpret_cast<int (*)()>(::dlsym(impl_->handle, "kopt_shim_last_error"));
  impl_->error_string = reinterpret_cast<const char* (*)(int)>(::dlsym(impl_->handle, "kopt_shim_error_string"));
  impl_->clock_probe =
      reinterpret_cast<int (*)(unsigned long long*, long long)>(::dlsym(impl_->handle, "kopt_shim_clock_probe"));
  impl_->block_stream = reinterpret_cast<int (*)(const volatile int*, unsigned long long, int*)>(
      ::dlsym(impl_->handle, "kopt_shim_block_stream"));
  impl_->read_flush = reinterpret_cast<int (*)(const void*, unsigned long long, int)>(
      ::dlsym(impl_->handle, "kopt_shim_read_flush"));
  impl_->fill = reinterpret_cast<int (*)(void*, unsigned long long, int, int, double, double, unsigned long long, int)>(
      ::dlsym(impl_->handle, "kopt_shim_fill"));
  impl_->digest = reinterpret_cast<int (*)(const void*, unsigned long long, unsigned long long*, int)>(
      ::dlsym(impl_->handle, "kopt_shim_digest"));
  for (const spec::KernelParam& param : signature.params) impl_->types.push_back(ffi_type_of(param));
  if (ffi_prep_cif(&impl_->cif, FFI_DEFAULT_ABI, static_cast<unsigned>(impl_->types.size()), &ffi_type_void,
                   impl_->types.data()) != FFI_OK) {
    ::dlclose(impl_->handle);
    delete impl_;
    throw input_error("libffi cannot prepare a call of {}", signature.entry);
  }
}

KernelLibrary::~KernelLibrary() {
  // The library is deliberately not unloaded: its static CUDA runtime registers exit
  // handlers, and unloading it under a live context is a known source of crashes at exit.
  delete impl_;
}

void KernelLibrary::call(const std::vector<KernelArgument>& args) const {
  const auto& params = impl_->signature.params;
  if (args.size() != params.size()) {
    throw std::logic_error("KernelLibrary::call: argument count does not match the signature");
  }
  std::vector<ArgumentSlot> slots;
  slots.reserve(args.size());
  std::vector<void*> values;
  for (std::size_t i = 0; i < args.size(); ++i) slots.push_back(slot_for(params[i], args[i]));
  for (ArgumentSlot& slot : slots) values.push_back(&slot);
  ffi_call(&impl_->cif, impl_->entry, nullptr, values.data());
}

std::optional<std::string> KernelLibrary::take_launch_error() const {
  if (impl_->last_error == nullptr) return std::nullopt;
  int code = impl_->last_error();
  if (code == 0) return std::nullopt;
  return std::string(impl_->error_string ? impl_->error_string(code) : "unknown CUDA error");
}

bool KernelLibrary::launch_stream_blocker(const volatile int* release, unsigned long long timeout_ns,
                                         int* timed_out) const {
  return impl_->block_stream != nullptr && impl_->block_stream(release, timeout_ns, timed_out) == 0;
}

bool KernelLibrary::launch_read_flush(const void* buffer, std::size_t bytes, int blocks) const {
  return impl_->read_flush != nullptr && impl_->read_flush(buffer, bytes, blocks) == 0;
}

bool KernelLibrary::launch_fill(void* data, std::size_t elements, int element_type, int init_kind, double a,
                                double b, std::uint64_t key, int blocks) const {
  return impl_->fill != nullptr && impl_->fill(data, elements, element_type, init_kind, a, b, key, blocks) == 0;
}

bool KernelLibrary::launch_digest(const void* data, std::size_t bytes, unsigned long long* device_out,
                                  int blocks) const {
  return impl_->digest != nullptr && impl_->digest(data, bytes, device_out, blocks) == 0;
}

bool KernelLibrary::launch_clock_probe(unsigned long long* device_out, long long cycles) const {
  return impl_->clock_probe != nullptr && impl_->clock_probe(device_out, cycles) == 0;
}

}  // namespace kopt::run
