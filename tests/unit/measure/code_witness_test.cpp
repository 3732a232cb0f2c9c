#include "kopt/measure/code_witness.hpp"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <thread>

namespace kopt::measure {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

const CodeWitnessRule kCodeRule{.first_look_seconds = 0.001, .mean_interval_seconds = 0.005, .ignored = {}};

// The shape of /proc/PID/smaps: a header per mapping, then "Key: value kB" lines.
std::string mapping(std::string_view header, int anonymous_kb) {
  return fmt::format("{}\nSize:                 32 kB\nRss:                  32 kB\nPrivate_Clean:        28 kB\n"
                     "Private_Dirty:    {:>6} kB\nAnonymous:        {:>6} kB\nVmFlags: rd ex mr mw me sd\n",
                     header, anonymous_kb, anonymous_kb);
}

TEST(WrittenCode, FlagsAnExecutableFileMappingWithWrittenPages) {
  const std::string smaps =
      mapping("7f0c2a000000-7f0c2a021000 r-xp 00001000 08:01 1234                       /usr/lib/x86_64-linux-gnu/libcuda.so.580", 4) +
      mapping("7f0c2b000000-7f0c2b021000 r-xp 00001000 08:01 99                         /usr/lib/x86_64-linux-gnu/libc.so.6", 0);
  EXPECT_THAT(written_code(smaps, kCodeRule), ElementsAre(WrittenCode{"/usr/lib/x86_64-linux-gnu/libcuda.so.580", 4}));
}

TEST(WrittenCode, IgnoresDataAnonymousMemoryAndCleanCode) {
  const std::string smaps =
      mapping("7f0c2a000000-7f0c2a021000 rw-p 00020000 08:01 1234                       /usr/lib/libcuda.so.1", 64) +
      mapping("7f0c2c000000-7f0c2c021000 rwxp 00000000 00:00 0 ", 8) +
      mapping("7f0c2d000000-7f0c2d001000 r-xp 00000000 08:01 5                          /opt/kopt/kopt", 0);
  EXPECT_THAT(written_code(smaps, kCodeRule), IsEmpty());
}

TEST(WrittenCode, WatchesTheVdsoAndNamesWithSpaces) {
  const std::string smaps = mapping("7ffd1000-7ffd3000 r-xp 00000000 00:00 0                          [vdso]", 4) +
                            mapping("7f00-7f10 r-xp 00000000 08:01 7                          /tmp/my dir/libk.so", 8);
  EXPECT_THAT(written_code(smaps, kCodeRule),
              ElementsAre(WrittenCode{"[vdso]", 4}, WrittenCode{"/tmp/my dir/libk.so", 8}));
}

TEST(WrittenCode, SumsTheMappingsOfOneFileAndHonoursTheIgnoredNames) {
  const std::string smaps = mapping("7f00-7f10 r-xp 00000000 08:01 7                          /lib/libx.so", 4) +
                            mapping("7f20-7f30 r-xp 00010000 08:01 7                          /lib/libx.so", 8) +
                            mapping("7f40-7f50 r-xp 00000000 08:01 8                          /lib/libjit.so", 8);
  CodeWitnessRule rule = kCodeRule;
  rule.ignored = {"libjit"};
  EXPECT_THAT(written_code(smaps, rule), ElementsAre(WrittenCode{"/lib/libx.so", 12}));
}

// A library nvcc has just written is dirty in the page cache: Private_Dirty, but nothing
// anonymous. Not a patch.
TEST(WrittenCode, APageCacheDirtyLibraryIsNotWritten) {
  const std::string smaps = "7f00-7f10 r-xp 00000000 08:01 7                          /cache/build/k/libkernel.so\n"
                            "Private_Dirty:      64 kB\nAnonymous:           0 kB\n";
  EXPECT_THAT(written_code(smaps, kCodeRule), IsEmpty());
}

TEST(CodeWitnessFlag, NamesEveryWrittenMappingOrSaysNothing) {
  EXPECT_FALSE(code_witness_flag({.watched = true, .looks = 3}));
  const auto flag = code_witness_flag({.watched = true, .looks = 3, .written = {{"[vdso]", 4}, {"/lib/libc.so.6", 8}}});
  ASSERT_TRUE(flag);
  EXPECT_THAT(*flag, HasSubstr("code was rewritten while it ran"));
  EXPECT_THAT(*flag, HasSubstr("[vdso]: 4 kB"));
  EXPECT_THAT(*flag, HasSubstr("/lib/libc.so.6: 8 kB"));
}

// Maps shown at first and refused later, while the worker still ran: code in it made it
// undumpable to hide a patch, so its times are not trusted either.
TEST(CodeWitnessFlag, LooksRefusedAfterOneAllowedAreFlagged) {
  EXPECT_FALSE(code_witness_flag({.watched = false, .looks = 0, .refused_looks = 0}));
  const auto flag = code_witness_flag({.watched = true, .looks = 2, .refused_looks = 5});
  ASSERT_TRUE(flag);
  EXPECT_THAT(*flag, HasSubstr("refused 5 of kopt's looks"));
}

// A live look at this test process: the C library's code is clean until a page of it is written
// the way a hot patch writes it (made writable, one byte rewritten with the same value).
TEST(CodeWitness, SeesAPatchOfThisProcesssOwnCodeEvenWhenTheBytesAreRestored) {
  {
    CodeWitness clean(kCodeRule);
    clean.watch(static_cast<int>(::getpid()));
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    const CodeWitnessReport report = clean.finish();
    EXPECT_TRUE(report.watched);
    EXPECT_GE(report.looks, 1);
    EXPECT_THAT(report.written, IsEmpty());
  }
  CodeWitness patched(kCodeRule);
  const long page = ::sysconf(_SC_PAGESIZE);
  // Looked up with dlsym, so that the page is libc's code and not a stub in this executable.
  void* getppid_in_libc = ::dlsym(RTLD_DEFAULT, "getppid");
  ASSERT_NE(getppid_in_libc, nullptr);
  auto* code = reinterpret_cast<unsigned char*>(reinterpret_cast<std::uintptr_t>(getppid_in_libc) & ~(page - 1));
  ASSERT_EQ(::mprotect(code, page, PROT_READ | PROT_WRITE | PROT_EXEC), 0);
  const unsigned char byte = code[0];
  *static_cast<volatile unsigned char*>(code) = byte;
  ASSERT_EQ(::mprotect(code, page, PROT_READ | PROT_EXEC), 0);
  patched.watch(static_cast<int>(::getpid()));
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  const CodeWitnessReport report = patched.finish();
  ASSERT_EQ(report.written.size(), 1u);
  EXPECT_THAT(report.written.begin()->first, ::testing::HasSubstr("libc"));
}

}  // namespace
}  // namespace kopt::measure
