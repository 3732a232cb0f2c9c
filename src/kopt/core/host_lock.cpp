#include "kopt/core/host_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>

#include "kopt/core/clock.hpp"
#include "kopt/core/error.hpp"

namespace kopt {
namespace fs = std::filesystem;

namespace {

// This process's holds: name → (descriptor, how many holders). Guarded by holds_mutex, which
// is also held while a first holder waits for another process, so that the process's other
// threads wait behind it instead of opening the file again.
struct Hold {
  int fd = -1;
  int holders = 0;
};
std::mutex holds_mutex;
std::map<std::string, Hold>& holds() {
  static std::map<std::string, Hold> all;
  return all;
}

std::string command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (char& c : raw) {
    if (c == '\0') c = ' ';
  }
  while (!raw.empty() && raw.back() == ' ') raw.pop_back();
  return raw.empty() ? "kopt" : raw;
}

std::string holder_of(int fd) {
  char text[512] = {};
  const ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
  std::string holder = n > 0 ? std::string(text, static_cast<std::size_t>(n)) : "";
  while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
  return holder.empty() ? "another process (it did not say which)" : holder;
}

void say_who_holds(int fd) {
  // Who holds it is a courtesy to those who wait: a file kopt cannot write still locks.
  const std::string who = fmt::format("pid {}: {}, since {}\n", ::getpid(), command_line(), utc_timestamp());
  if (::ftruncate(fd, 0) != 0) return;
  if (::pwrite(fd, who.data(), who.size(), 0) < 0) return;
}

int open_lock_file(const std::string& name) {
  const fs::path dir = host_lock_dir();
  std::error_code made;
  fs::create_directories(dir, made);
  // Shared by every user's kopt: anyone may add a lock file, no one may remove another's.
  if (!made) ::chmod(dir.c_str(), 01777);
  const fs::path file = dir / (name + ".lock");
  int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);  // another user's file: locking needs no write
  if (fd < 0) throw environment_error("cannot open the lock {}: {}", file.string(), std::strerror(errno));
  return fd;
}

}  // namespace

std::string host_lock_dir() {
  const char* dir = std::getenv("KOPT_LOCK_DIR");
  return dir != nullptr && *dir != '\0' ? dir : "/tmp/kopt-locks";
}

HostLock::HostLock(const std::string& name, const std::function<void(const std::string&)>& on_wait) : name_(name) {
  std::lock_guard guard(holds_mutex);
  Hold& hold = holds()[name];
  if (hold.holders++ > 0) return;
  try {
    hold.fd = open_lock_file(name);
  } catch (...) {
    holds().erase(name);
    throw;
  }
  if (::flock(hold.fd, LOCK_EX | LOCK_NB) != 0) {
    if (on_wait) on_wait(fmt::format("waiting for {}: held by {}", name, holder_of(hold.fd)));
    while (::flock(hold.fd, LOCK_EX) != 0 && errno == EINTR) {
    }
  }
  say_who_holds(hold.fd);
}

HostLock::~HostLock() {
  std::lock_guard guard(holds_mutex);
  Hold& hold = holds()[name_];
  if (--hold.holders > 0) return;
  if (::ftruncate(hold.fd, 0) != 0) {
    // The next holder overwrites it anyway.
  }
  ::flock(hold.fd, LOCK_UN);
  ::close(hold.fd);
  holds().erase(name_);
}

}  // namespace kopt
