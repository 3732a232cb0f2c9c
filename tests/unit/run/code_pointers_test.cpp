#include "kopt/run/code_pointers.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <map>

namespace kopt::run {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A process as /proc/self/maps shows it: kopt's executable (code, then data, then its .bss),
// the driver's code, and the heap.
constexpr const char* kMapsOfAProcess =
    "1000-2000 r-xp 00000000 08:01 11 /opt/kopt/bin/kopt\n"
    "2000-3000 rw-p 00001000 08:01 11 /opt/kopt/bin/kopt\n"
    "3000-4000 rw-p 00000000 00:00 0 \n"
    "10000-20000 r-xp 00000000 08:01 12 /usr/lib/x86_64-linux-gnu/libcuda.so.1\n"
    "20000-21000 rw-p 00010000 08:01 12 /usr/lib/x86_64-linux-gnu/libcuda.so.1\n"
    "40000-50000 rw-p 00000000 00:00 0 [heap]\n";

// Words of memory, zero where none was written.
struct WordsOfAProcess {
  std::map<std::uintptr_t, std::uintptr_t> words;
  WordReader reader() const {
    return [this](std::uintptr_t address) {
      auto found = words.find(address);
      return found == words.end() ? std::uintptr_t{0} : found->second;
    };
  }
};

TEST(MemoryMaps, ParsesPermissionsAndPathsWithSpaces) {
  const std::vector<MemoryMapping> maps =
      parse_memory_maps("7f00-7f10 r-xp 00000000 08:01 5 /tmp/my kernels/kernel.so\n"
                        "not a mapping\n"
                        "8000-9000 rw-s 00000000 00:05 7 /dev/nvidia0\n"
                        "9000-a000 ---p 00000000 00:00 0 \n");
  ASSERT_EQ(maps.size(), 3u);
  EXPECT_EQ(maps[0].begin, 0x7f00u);
  EXPECT_TRUE(maps[0].executable && maps[0].readable && !maps[0].writable && maps[0].is_private);
  EXPECT_EQ(maps[0].path, "/tmp/my kernels/kernel.so");
  EXPECT_FALSE(maps[1].is_private);
  EXPECT_EQ(maps[2].path, "");
  EXPECT_FALSE(maps[2].readable);
}

TEST(CodePointers, KeepsTheWordsOfKoptsDataThatLeadIntoCode) {
  WordsOfAProcess memory;
  memory.words = {{0x2008, 0x10040},   // the runtime's table: the driver's entry point
                  {0x2010, 0x1800},    // a GOT entry before its first call: into kopt's own PLT
                  {0x2018, 0x40010},   // data, not code
                  {0x3000, 0x10080},   // the .bss after the file
                  {0x20008, 0x10040},  // the driver's own data: not kopt's
                  {0x40000, 0x10040}}; // the heap: not kopt's
  const CodePointers census = CodePointers::of(parse_memory_maps(kMapsOfAProcess), 0x1234, memory.reader());
  EXPECT_EQ(census.size(), 3u);
}

TEST(CodePointers, NamesAWordThatNowLeadsIntoCodeLoadedSince) {
  WordsOfAProcess memory;
  memory.words = {{0x2008, 0x10040}, {0x2010, 0x10080}, {0x3000, 0x1800}};
  CodePointers census = CodePointers::of(parse_memory_maps(kMapsOfAProcess), 0x1234, memory.reader());
  ASSERT_EQ(census.size(), 3u);
  // The kernel's library is loaded, two entries of the driver's table now lead into it; the
  // runtime itself moved the third to another place in the driver (allowed).
  const std::vector<MemoryMapping> later = parse_memory_maps(
      std::string(kMapsOfAProcess) + "60000-61000 r-xp 00000000 08:01 13 /tmp/kopt-cache/build/kernel.so\n");
  memory.words[0x2008] = 0x60010;
  memory.words[0x2010] = 0x60020;
  memory.words[0x3000] = 0x10000;
  EXPECT_THAT(census.redirected_since_census(later, memory.reader()),
              ElementsAre("2 pointer(s) of kopt's data into libcuda.so.1 now lead into kernel.so"));
  // Named once: the same words, unchanged since, say nothing more.
  EXPECT_TRUE(census.redirected_since_census(later, memory.reader()).empty());
}

TEST(CodePointers, NamesExecutableMemoryMadeSinceAndIgnoresData) {
  WordsOfAProcess memory;
  memory.words = {{0x2008, 0x10040}, {0x2010, 0x10080}};
  CodePointers census = CodePointers::of(parse_memory_maps(kMapsOfAProcess), 0x1234, memory.reader());
  const std::vector<MemoryMapping> later =
      parse_memory_maps(std::string(kMapsOfAProcess) + "70000-71000 r-xp 00000000 00:00 0 \n");
  memory.words[0x2008] = 0x70000;  // a trampoline in anonymous executable memory
  memory.words[0x2010] = 0x40020;  // now data: no code runs through it
  EXPECT_THAT(census.redirected_since_census(later, memory.reader()),
              ElementsAre("1 pointer(s) of kopt's data into libcuda.so.1 now lead into anonymous executable memory"));
}

TEST(CodePointers, AScanKeepsEntriesFilledSinceAndNamesOnesLeadingIntoNewCode) {
  // The runtime fills an entry at its function's first use: empty at the census, the driver's
  // after the warm-up, the kernel's after a later call.
  WordsOfAProcess memory;
  memory.words = {{0x2008, 0x10040}};
  CodePointers census = CodePointers::of(parse_memory_maps(kMapsOfAProcess), 0x1234, memory.reader());
  ASSERT_EQ(census.size(), 1u);
  const std::vector<MemoryMapping> later = parse_memory_maps(
      std::string(kMapsOfAProcess) + "60000-61000 r-xp 00000000 08:01 13 /tmp/kopt-cache/build/kernel.so\n");
  memory.words[0x2010] = 0x10080;  // filled by the runtime: kept
  EXPECT_TRUE(census.scan(later, memory.reader()).empty());
  EXPECT_EQ(census.size(), 2u);
  memory.words[0x2010] = 0x60040;  // now the kernel's: the cheap check sees it
  EXPECT_THAT(census.redirected_since_census(later, memory.reader()),
              ElementsAre("1 pointer(s) of kopt's data into libcuda.so.1 now lead into kernel.so"));
  // A word that was never the driver's, pointed at the kernel's code: only the scan sees it, once.
  memory.words[0x3008] = 0x60080;
  EXPECT_TRUE(census.redirected_since_census(later, memory.reader()).empty());
  EXPECT_THAT(census.scan(later, memory.reader()), ElementsAre("1 pointer(s) of kopt's data lead into kernel.so"));
  EXPECT_TRUE(census.scan(later, memory.reader()).empty());
}

TEST(CodePointers, FindsNothingWithoutKoptsOwnFile) {
  WordsOfAProcess memory;
  memory.words = {{0x2008, 0x10040}};
  EXPECT_EQ(CodePointers::of(parse_memory_maps(kMapsOfAProcess), 0x99999999, memory.reader()).size(), 0u);
}

// This test's executable is the object that holds kopt's code here. A function pointer of its
// data led into its code at the census; pointed at memory made executable since, the census
// names it, as it would a hook in the runtime's table of driver entry points.
void entry_point_kopt_calls() {}
void (*volatile g_entry_point)() = &entry_point_kopt_calls;

TEST(CodePointers, FindsAPointerOfItsOwnDataRedirectedForReal) {
  CodePointers census = CodePointers::now();
  ASSERT_GT(census.size(), 0u);
  EXPECT_TRUE(census.redirected_now().empty());
  void* page = mmap(nullptr, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(page, MAP_FAILED);
  void (*const honest)() = g_entry_point;
  g_entry_point = reinterpret_cast<void (*)()>(page);
  const std::vector<std::string> found = census.redirected_now();
  g_entry_point = honest;
  munmap(page, 4096);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_THAT(found[0], HasSubstr("1 pointer(s) of kopt's data into "));
  EXPECT_THAT(found[0], HasSubstr(" now lead into anonymous executable memory"));
}

// The same through the full scan, for a word the census did not keep (it was empty then).
void (*volatile g_filled_later)() = nullptr;

TEST(CodePointers, AScanFindsAnEmptyWordOfItsOwnDataPointedAtNewCodeForReal) {
  CodePointers census = CodePointers::now();
  EXPECT_TRUE(census.scan_now().empty());
  void* page = mmap(nullptr, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(page, MAP_FAILED);
  g_filled_later = reinterpret_cast<void (*)()>(page);
  const std::vector<std::string> found = census.scan_now();
  g_filled_later = nullptr;
  munmap(page, 4096);
  EXPECT_THAT(found, ElementsAre("1 pointer(s) of kopt's data lead into anonymous executable memory"));
}

}  // namespace
}  // namespace kopt::run
