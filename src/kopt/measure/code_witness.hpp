#pragma once
// The parent's witness of the timing worker's code (docs/integrity.md, "Outside witnesses").
//
// A kernel runs inside the timing worker and can rewrite any code there: CUDA's event timer,
// glibc's clock, the vDSO, kopt's flush or digest, a competing variant's solve. Every such
// patch needs a page of code made writable and written, and the Linux kernel keeps count:
// a written page of a private file mapping is replaced by an anonymous copy ("Anonymous" in
// /proc/PID/smaps), which stays one after the original bytes are put back. ("Private_Dirty"
// would not do: a library nvcc has just written is dirty in the page cache, unpatched.) kopt's parent reads
// the worker's smaps at random moments while it runs (the kernel cannot know when) and
// flags any executable mapping with written pages. The variants' own libraries are no
// exception: kopt's shim (flush, digest, input generator) is linked into each of them.
//
// What it does not see: a patch of data the code jumps through (a table of function
// pointers); a mapping replaced whole (mmap over it) between two looks. Those are still
// clocks the kernel shares, which the sample witness holds against the parent's own clock.

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace kopt::measure {

// data/witness.toml [code].
struct CodeWitnessRule {
  double first_look_seconds = 0.02;  // after the worker starts
  double mean_interval_seconds = 0.1;  // then at exponentially distributed intervals
  std::vector<std::string> ignored;  // mapping names whose written pages are expected
};
const CodeWitnessRule& code_witness_rule();  // loaded once; throws environment Error on a bad file

// An executable mapping with pages written since it was loaded.
struct WrittenCode {
  std::string mapping;  // its file, or "[vdso]"
  std::int64_t kilobytes = 0;
  bool operator==(const WrittenCode&) const = default;
};

// The executable mappings of `smaps` (the text of /proc/PID/smaps) that are file-backed or
// the vDSO, have written (anonymous) pages, and are not among the rule's ignored names.
std::vector<WrittenCode> written_code(std::string_view smaps, const CodeWitnessRule& rule);

struct CodeWitnessReport {
  bool watched = false;  // a process id arrived and was looked at at least once
  int looks = 0;
  // Looks refused while the process ran, after one that was not: only code in the process
  // changes that (prctl(PR_SET_DUMPABLE, 0)), to hide what it patches.
  int refused_looks = 0;
  std::map<std::string, std::int64_t> written;  // mapping -> most kB seen written
};

// Watches one process (the timing worker) from the moment its id is known until finish().
class CodeWitness {
 public:
  explicit CodeWitness(CodeWitnessRule rule);
  ~CodeWitness();
  CodeWitness(const CodeWitness&) = delete;
  CodeWitness& operator=(const CodeWitness&) = delete;

  void watch(int pid);  // starts the looks (once)
  CodeWitnessReport finish();

 private:
  void look_until_stopped(int pid);
  void look(int pid);

  CodeWitnessRule rule_;
  std::mutex mutex_;
  std::condition_variable stopped_;
  bool stop_ = false;
  CodeWitnessReport report_;
  std::thread looker_;
};

// The FLAG line when code was written; nullopt otherwise.
std::optional<std::string> code_witness_flag(const CodeWitnessReport& report);

nlohmann::json code_witness_to_json(const CodeWitnessReport& report);

}  // namespace kopt::measure
