#pragma once
// The words of kopt's own data that lead into code: the CUDA runtime's table of driver entry
// points (cudart is linked into kopt statically), the GOT through which kopt reaches glibc
// (clock_gettime, write, getrandom). Every clock, launch and digest of the timing worker goes
// through them. A kernel that points one at its own code (a hook) runs whenever kopt calls
// through it: a timer that reports less, work skipped while timed and done at kopt's next
// launch, a seed of its choosing; and since no page of code is written, the code witness sees
// nothing (cheat_timer_table, cheat_launch_table; docs/integrity.md, "Outside witnesses").
// A census of them before the kernel's library is loaded, held against each later one, names a
// word that now leads into code that was not mapped then: the kernel's library, or memory it made
// executable.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace kopt::run {

struct MemoryMapping {
  std::uintptr_t begin = 0, end = 0;
  bool readable = false, writable = false, executable = false, is_private = false;
  std::string path;  // empty for anonymous memory; "[heap]", "[vdso]", ...

  bool holds(std::uintptr_t address) const { return address >= begin && address < end; }
};

// /proc/PID/maps as text, in its (address) order; lines that do not parse are skipped.
std::vector<MemoryMapping> parse_memory_maps(const std::string& proc_maps);

// Reads the pointer-sized word at an address known to be mapped and readable.
using WordReader = std::function<std::uintptr_t(std::uintptr_t address)>;

class CodePointers {
 public:
  // This process, kopt's object being the one whose code holds this function (the worker's
  // executable, or libkopt_worker.so where Python hosts the worker).
  static CodePointers now();
  // The census over `maps`: the private writable mappings of the file mapped at
  // `kopt_code_address`, and the anonymous one right after its last (its .bss), read word by
  // word; a word is kept when it holds an address inside an executable mapping.
  static CodePointers of(const std::vector<MemoryMapping>& maps, std::uintptr_t kopt_code_address,
                         const WordReader& read);

  std::size_t size() const { return pointers_.size(); }

  // What the census kept and now leads into code that was not mapped then, one line per pair of
  // places ("2 pointer(s) of kopt's data into libcuda.so.1 now lead into kernel.so"); each word is
  // named once. Cheap (the kept words only): read before each sample's end signal.
  std::vector<std::string> redirected_since_census(const std::vector<MemoryMapping>& maps_now, const WordReader& read);
  // The same in this process; /proc/self/maps is read only when a kept word changed.
  std::vector<std::string> redirected_now();

  // Every word of kopt's data, not only those kept: one that leads into code not mapped at the
  // census is named ("1 pointer(s) of kopt's data lead into kernel.so"); one that leads into code
  // mapped then is kept from now on. The runtime fills most of its table lazily, an entry at its
  // function's first use: those the warm-up filled are watched by the cheap check afterwards.
  std::vector<std::string> scan(const std::vector<MemoryMapping>& maps_now, const WordReader& read);
  std::vector<std::string> scan_now();

 private:
  void keep(std::uintptr_t address, std::uintptr_t target);
  std::vector<std::pair<std::uintptr_t, std::uintptr_t>> pointers_;  // (address, target), by address
  std::vector<MemoryMapping> data_;  // kopt's writable data
  std::vector<MemoryMapping> code_;  // the executable mappings at the census
  std::vector<std::uintptr_t> named_;  // words already named, by address
};

}  // namespace kopt::run
