#include "kopt/verify/npy.hpp"

#include <cstring>
#include <regex>

#include "kopt/core/error.hpp"
#include "kopt/core/file_queries.hpp"
#include "kopt/core/files.hpp"

namespace kopt::verify {
namespace fs = std::filesystem;

namespace {
constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicBytes = 6;

std::size_t descr_bytes(const std::string& descr) { return std::stoul(descr.substr(2)); }
}  // namespace

std::string npy_header(const std::string& descr, std::int64_t elements) {
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" +
                     std::to_string(elements) + ",), }";
  // Magic (6) + version (2) + header length (2) + dict + padding + '\n', a multiple of 64.
  std::size_t unpadded = kMagicBytes + 4 + dict.size() + 1;
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict += '\n';
  std::string header(kMagic, kMagicBytes);
  header += '\x01';
  header += '\x00';
  header += static_cast<char>(dict.size() & 0xff);
  header += static_cast<char>((dict.size() >> 8) & 0xff);
  return header + dict;
}

void write_npy(const fs::path& path, const std::string& descr, std::int64_t elements,
               std::span<const std::byte> data, Durability durability) {
  const std::string header = npy_header(descr, elements);
  write_file_atomic(path, {header, std::string_view(reinterpret_cast<const char*>(data.data()), data.size())},
                    durability);
}

void write_npy_in_place(const fs::path& path, const std::string& descr, std::int64_t elements, std::size_t bytes,
                        const std::function<void(std::span<std::byte>)>& fill) {
  write_file_atomic_in_place(path, npy_header(descr, elements), bytes, fill);
}

void write_npy_streamed(const fs::path& path, const std::string& descr, std::int64_t elements, std::size_t bytes,
                        const std::function<void(const ByteSink&)>& produce, Durability durability) {
  write_file_atomic_streamed(path, npy_header(descr, elements), bytes, produce, durability);
}

// The header is read first and the data straight into the array: an output of 2^25 floats is
// 128 MiB, and reading it through a string cost three copies.
NpyArray read_npy(const fs::path& path) {
  auto bad = [&](const std::string& why) { return input_error("{} is not a usable .npy file: {}", path.string(), why); };
  const std::optional<std::uintmax_t> size = file_size_of(path);
  if (!size) throw input_error("{} {}", path.string(), path_exists(path) ? "cannot be read" : "does not exist");
  const std::uintmax_t file_bytes = *size;
  std::uintmax_t read_so_far = 0;
  auto read_exactly = [&](char* into, std::size_t bytes) {
    const std::size_t got = read_file_bytes(path, read_so_far, {into, bytes});
    read_so_far += got;
    return got == bytes;
  };

  char preamble[12] = {};
  if (file_bytes < 10 || !read_exactly(preamble, 10) || std::memcmp(preamble, kMagic, kMagicBytes) != 0) {
    throw bad("no NUMPY magic");
  }
  const int major = static_cast<unsigned char>(preamble[6]);
  std::size_t header_length = 0;
  std::size_t header_start = 0;
  if (major == 1) {
    header_length = static_cast<unsigned char>(preamble[8]) | (static_cast<unsigned char>(preamble[9]) << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (file_bytes < 12 || !read_exactly(preamble + 10, 2)) throw bad("truncated header");
    for (int i = 0; i < 4; ++i) header_length |= static_cast<std::size_t>(static_cast<unsigned char>(preamble[8 + i])) << (8 * i);
    header_start = 12;
  } else {
    throw bad("format version " + std::to_string(major));
  }
  if (header_start + header_length > file_bytes) throw bad("truncated header");
  std::string header(header_length, '\0');
  if (!read_exactly(header.data(), header_length)) throw bad("truncated header");

  static const std::regex kDescr(R"('descr'\s*:\s*'([<>|=][a-zA-Z]\d+)')");
  static const std::regex kFortran(R"('fortran_order'\s*:\s*(True|False))");
  static const std::regex kShape(R"('shape'\s*:\s*\(([^)]*)\))");
  std::smatch match;
  NpyArray array;
  if (!std::regex_search(header, match, kDescr)) throw bad("no descr");
  array.descr = match[1].str();
  if (array.descr[0] == '>') throw bad("big-endian data");
  if (array.descr[0] == '=') array.descr[0] = '<';
  if (std::regex_search(header, match, kFortran) && match[1] == "True") throw bad("Fortran order");
  if (!std::regex_search(header, match, kShape)) throw bad("no shape");
  array.elements = 1;
  static const std::regex kDim(R"(\d+)");
  const std::string dims = match[1].str();
  for (auto it = std::sregex_iterator(dims.begin(), dims.end(), kDim); it != std::sregex_iterator(); ++it) {
    array.elements *= std::stoll(it->str());
  }
  const std::size_t data_start = header_start + header_length;
  const std::size_t expected = static_cast<std::size_t>(array.elements) * descr_bytes(array.descr);
  if (file_bytes - data_start != expected) {
    throw bad("holds " + std::to_string(file_bytes - data_start) + " data bytes, the header says " +
              std::to_string(expected));
  }
  array.data.resize(expected);
  if (!read_exactly(reinterpret_cast<char*>(array.data.data()), expected)) throw bad("truncated data");
  return array;
}

}  // namespace kopt::verify
