#include "kopt/run/kernel_arguments.hpp"

namespace kopt::run {

KernelArguments::KernelArguments(const spec::BoundCase& bound_case) : bound_case_(bound_case) {
  for (const spec::BoundArg& arg : bound_case.args) {
    ArgumentData data;
    if (arg.buffer) {
      data.buffer = &*arg.buffer;
      data.type = element_type(*arg.buffer->dtype);
      data.device.emplace(static_cast<std::size_t>(arg.buffer->bytes()));
    }
    data_.push_back(std::move(data));
  }
  for (std::size_t i = 0; i < data_.size(); ++i) {
    if (data_[i].buffer) call_.push_back({.pointer = data_[i].device->data()});
    else call_.push_back({.scalar = bound_case.args[i].scalar->value});
  }
}

void KernelArguments::generate_inputs(std::uint64_t seed) {
  for (ArgumentData& arg : data_) {
    if (arg.buffer == nullptr || !arg.buffer->init) continue;
    arg.initial.resize(static_cast<std::size_t>(arg.buffer->bytes()));
    fill_buffer(arg.initial, *arg.buffer->dtype, *arg.buffer->init, seed, arg.buffer->name);
  }
}

void KernelArguments::prepare_call(unsigned char poison) {
  for (ArgumentData& arg : data_) {
    if (arg.buffer == nullptr) continue;
    arg.device->arm_guards();
    if (arg.buffer->init) arg.device->upload(arg.initial);
    else arg.device->fill(poison);
  }
}

void KernelArguments::regenerate_on_device(const KernelLibrary& library, std::uint64_t seed, unsigned char poison,
                                           int blocks) {
  for (ArgumentData& arg : data_) {
    if (arg.buffer == nullptr) continue;
    arg.device->arm_guards();
    if (!arg.buffer->init) {
      arg.device->fill(poison);
      continue;
    }
    const spec::InitSpec& init = *arg.buffer->init;
    const std::uint64_t key = buffer_stream_key(seed, arg.buffer->name);
    // A list, a choice or an arrangement (sorted, a triangle, softmax, plus_eye) is the host's to write: the device draws per element.
    if (init.host_written() ||
        !library.launch_fill(arg.device->data(), static_cast<std::size_t>(arg.buffer->elements),
                             static_cast<int>(arg.type), static_cast<int>(init.kind), init.a, init.b, key, blocks)) {
      Bytes host(static_cast<std::size_t>(arg.buffer->bytes()));
      fill_buffer(host, *arg.buffer->dtype, init, seed, arg.buffer->name);
      arg.device->upload(host);
    }
  }
}

void KernelArguments::restore_in_out() {
  for (ArgumentData& arg : data_) {
    if (arg.buffer != nullptr && arg.buffer->is_output && arg.buffer->init) arg.device->upload(arg.initial);
  }
}

void KernelArguments::download_outputs_into(std::vector<Bytes>& into) const {
  into.resize(data_.size());
  for (std::size_t i = 0; i < data_.size(); ++i) {
    if (data_[i].buffer == nullptr || !data_[i].buffer->is_output) continue;
    into[i].resize(data_[i].device->size());
    data_[i].device->download(into[i]);
  }
}

std::vector<Bytes> KernelArguments::download_outputs() const {
  std::vector<Bytes> outputs;
  download_outputs_into(outputs);
  return outputs;
}

std::vector<const ArgumentData*> KernelArguments::outputs() const {
  std::vector<const ArgumentData*> outputs;
  for (const ArgumentData& arg : data_) {
    if (arg.buffer != nullptr && arg.buffer->is_output) outputs.push_back(&arg);
  }
  return outputs;
}

}  // namespace kopt::run
