#pragma once
// NumPy .npy files (format version 1.0), the way data travels to and from the Python
// reference runner. Written by hand: the format is a short header and raw bytes, and no
// C++ library for it is packaged in Debian. Only what kopt exchanges is supported: 1-D,
// little-endian, C order.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "kopt/core/files.hpp"

namespace kopt::verify {

struct NpyArray {
  std::string descr;          // "<f4", "|u1", ...
  std::int64_t elements = 0;
  std::vector<std::byte> data;
};

// Writes atomically; `scratch` skips the wait for the disk (core/files.hpp).
void write_npy(const std::filesystem::path& path, const std::string& descr, std::int64_t elements,
               std::span<const std::byte> data, Durability durability = Durability::synced);

// Writes a scratch .npy whose data `fill` writes in place (core's write_file_atomic_in_place):
// for inputs generated straight into the file.
void write_npy_in_place(const std::filesystem::path& path, const std::string& descr, std::int64_t elements,
                        std::size_t bytes, const std::function<void(std::span<std::byte>)>& fill);

// Writes a .npy whose `bytes` of data `produce` hands over in pieces (core's
// write_file_atomic_streamed): for outputs streamed from the GPU.
void write_npy_streamed(const std::filesystem::path& path, const std::string& descr, std::int64_t elements,
                        std::size_t bytes, const std::function<void(const ByteSink&)>& produce, Durability durability);

// Throws input_error naming the file when it is not a 1-D (or 0-D/N-D C-order, read flat)
// little-endian .npy.
NpyArray read_npy(const std::filesystem::path& path);

// The header kopt writes, exposed for tests.
std::string npy_header(const std::string& descr, std::int64_t elements);

}  // namespace kopt::verify
