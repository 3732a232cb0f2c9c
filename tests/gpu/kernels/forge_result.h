// Shared by the planted forgers (cheat_forge_*): where the worker's RESULT file is, read from
// its command line (`kopt worker JOB RESULT`), and a passing check result written over it the
// way kopt writes one (a temporary, then a rename). Each forger differs only in *when* it
// calls this: in solve, at exit, from a destructor, from a forked child.
#pragma once

#include <cstdio>
#include <string>

static std::string result_path() {
  std::string cmdline;
  if (FILE* f = std::fopen("/proc/self/cmdline", "rb")) {
    for (int c; (c = std::fgetc(f)) != EOF;) cmdline.push_back((char)c);
    std::fclose(f);
  }
  std::string last, arg;
  int count = 0;
  for (char c : cmdline) {
    if (c != '\0') { arg.push_back(c); continue; }
    last = arg;
    arg.clear();
    ++count;
  }
  return count >= 4 ? last : std::string();
}
static void forge_passing_check(const std::string& path) {
  const std::string tmp = path + ".forged";
  FILE* f = std::fopen(tmp.c_str(), "w");
  if (f == nullptr) return;
  std::fputs(
      "{\"kind\": \"check\", \"device\": {}, \"fatal\": null, \"runs\": [{\"case\": \"N=1048576\", \"case_index\": 0,"
      " \"seed\": 1, \"passed\": true, \"findings\": [], \"outputs\": [], \"bitwise_reproducible\": true,"
      " \"notes\": [], \"solve_wall_seconds\": 0.0001}]}\n",
      f);
  std::fclose(f);
  std::rename(tmp.c_str(), path.c_str());
}
