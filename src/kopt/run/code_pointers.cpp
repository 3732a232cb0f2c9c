#include "kopt/run/code_pointers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <utility>

namespace kopt::run {
namespace {

std::uintptr_t read_own_word(std::uintptr_t address) { return *reinterpret_cast<const std::uintptr_t*>(address); }

// /proc files report a size of 0: read as a stream.
std::vector<MemoryMapping> own_memory_maps() {
  std::ifstream in("/proc/self/maps");
  return parse_memory_maps(in ? std::string(std::istreambuf_iterator<char>(in), {}) : std::string());
}

// The maps are in address order, as /proc lists them: a binary search (every word of kopt's data
// is looked up at each census).
const MemoryMapping* mapping_holding(const std::vector<MemoryMapping>& maps, std::uintptr_t address) {
  auto after = std::ranges::upper_bound(maps, address, {}, &MemoryMapping::begin);
  if (after == maps.begin()) return nullptr;
  const MemoryMapping& candidate = *std::prev(after);
  return candidate.holds(address) ? &candidate : nullptr;
}

bool in_code(const std::vector<MemoryMapping>& code, std::uintptr_t address) {
  return mapping_holding(code, address) != nullptr;
}

std::string name_of(const MemoryMapping* mapping) {
  if (mapping == nullptr) return "unmapped memory";
  if (mapping->path.empty()) return "anonymous executable memory";
  return std::filesystem::path(mapping->path).filename().string();
}

// kopt's own writable data: the private writable mappings of its file, and the anonymous
// mapping that begins where the file's last one ends (the .bss past the file's pages).
std::vector<MemoryMapping> kopt_data(const std::vector<MemoryMapping>& maps, const std::string& path) {
  std::vector<MemoryMapping> data;
  std::uintptr_t file_end = 0;
  for (const MemoryMapping& m : maps) {
    if (m.path != path) continue;
    file_end = std::max(file_end, m.end);
    if (m.readable && m.writable && m.is_private) data.push_back(m);
  }
  for (const MemoryMapping& m : maps) {
    if (m.begin == file_end && m.path.empty() && m.readable && m.writable && m.is_private) data.push_back(m);
  }
  return data;
}

}  // namespace

std::vector<MemoryMapping> parse_memory_maps(const std::string& proc_maps) {
  std::vector<MemoryMapping> maps;
  std::istringstream lines(proc_maps);
  for (std::string line; std::getline(lines, line);) {
    unsigned long begin = 0, end = 0;
    char perms[5] = {};
    int path_at = 0;
    // address perms offset dev inode, then the path (which may hold spaces) or nothing
    if (std::sscanf(line.c_str(), "%lx-%lx %4s %*s %*s %*s %n", &begin, &end, perms, &path_at) < 3 || end <= begin) {
      continue;
    }
    MemoryMapping m{.begin = begin, .end = end, .readable = perms[0] == 'r', .writable = perms[1] == 'w',
                    .executable = perms[2] == 'x', .is_private = perms[3] == 'p'};
    if (path_at > 0 && static_cast<std::size_t>(path_at) < line.size()) m.path = line.substr(static_cast<std::size_t>(path_at));
    maps.push_back(std::move(m));
  }
  return maps;
}

CodePointers CodePointers::of(const std::vector<MemoryMapping>& maps, std::uintptr_t kopt_code_address,
                              const WordReader& read) {
  CodePointers census;
  for (const MemoryMapping& m : maps) {
    if (m.executable) census.code_.push_back(m);
  }
  const MemoryMapping* own = mapping_holding(maps, kopt_code_address);
  if (own == nullptr || own->path.empty()) return census;
  census.data_ = kopt_data(maps, own->path);
  census.scan(maps, read);
  return census;
}

CodePointers CodePointers::now() {
  return of(own_memory_maps(), reinterpret_cast<std::uintptr_t>(&read_own_word), read_own_word);
}

void CodePointers::keep(std::uintptr_t address, std::uintptr_t target) {
  auto at = std::ranges::lower_bound(pointers_, address, {}, &std::pair<std::uintptr_t, std::uintptr_t>::first);
  if (at != pointers_.end() && at->first == address) at->second = target;
  else pointers_.insert(at, {address, target});
}

namespace {

using Moves = std::map<std::pair<std::string, std::string>, int>;  // (from, to) → words

std::vector<std::string> describe_moves(const Moves& moved, bool from_known) {
  std::vector<std::string> lines;
  for (const auto& [places, count] : moved) {
    lines.push_back(from_known ? fmt::format("{} pointer(s) of kopt's data into {} now lead into {}", count,
                                             places.first, places.second)
                               : fmt::format("{} pointer(s) of kopt's data lead into {}", count, places.second));
  }
  return lines;
}

}  // namespace

std::vector<std::string> CodePointers::redirected_since_census(const std::vector<MemoryMapping>& maps_now,
                                                               const WordReader& read) {
  Moves moved;
  for (auto& [address, target] : pointers_) {
    const std::uintptr_t value = read(address);
    if (value == target) continue;
    const MemoryMapping* now = mapping_holding(maps_now, value);
    const bool new_code = now != nullptr && now->executable && !in_code(code_, value);
    if (new_code && std::ranges::find(named_, address) == named_.end()) {
      ++moved[{name_of(mapping_holding(code_, target)), name_of(now)}];
      named_.push_back(address);
    }
    target = value;  // a change within code mapped at the census is the runtime's own
  }
  return describe_moves(moved, true);
}

std::vector<std::string> CodePointers::redirected_now() {
  const bool changed = std::ranges::any_of(pointers_, [](const auto& p) { return read_own_word(p.first) != p.second; });
  if (!changed) return {};
  return redirected_since_census(own_memory_maps(), read_own_word);
}

std::vector<std::string> CodePointers::scan(const std::vector<MemoryMapping>& maps_now, const WordReader& read) {
  std::vector<std::string> lines = redirected_since_census(maps_now, read);
  Moves moved;
  for (const MemoryMapping& data : data_) {
    const std::uintptr_t first = (data.begin + sizeof(std::uintptr_t) - 1) & ~(sizeof(std::uintptr_t) - 1);
    for (std::uintptr_t word = first; word + sizeof(std::uintptr_t) <= data.end; word += sizeof(std::uintptr_t)) {
      const std::uintptr_t value = read(word);
      if (in_code(code_, value)) {
        keep(word, value);
        continue;
      }
      const MemoryMapping* now = mapping_holding(maps_now, value);
      if (now == nullptr || !now->executable || std::ranges::find(named_, word) != named_.end()) continue;
      ++moved[{"", name_of(now)}];
      named_.push_back(word);
    }
  }
  for (std::string& line : describe_moves(moved, false)) lines.push_back(std::move(line));
  return lines;
}

std::vector<std::string> CodePointers::scan_now() { return scan(own_memory_maps(), read_own_word); }

}  // namespace kopt::run
