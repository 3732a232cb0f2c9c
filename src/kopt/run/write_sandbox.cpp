#include "kopt/run/write_sandbox.hpp"

#include <fcntl.h>
#include <linux/landlock.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <algorithm>

#include <fmt/format.h>

#include "kopt/core/error.hpp"
#include "kopt/core/file_queries.hpp"
#include "kopt/core/files.hpp"

namespace fs = std::filesystem;

namespace kopt::run {
namespace {

// Landlock's ABI, by the version that introduced each part. Spelled out here because the
// build machine's linux/landlock.h may predate them; the kernel's UAPI does not change.
constexpr std::uint64_t kTruncate = 1ULL << 14;          // ABI 3
constexpr std::uint64_t kNetBindTcp = 1ULL << 0;         // ABI 4
constexpr std::uint64_t kNetConnectTcp = 1ULL << 1;      // ABI 4
constexpr std::uint64_t kScopeAbstractUnix = 1ULL << 0;  // ABI 6
constexpr std::uint64_t kScopeSignal = 1ULL << 1;        // ABI 6

struct RulesetAttributes {  // struct landlock_ruleset_attr as of ABI 6
  std::uint64_t handled_access_fs = 0;
  std::uint64_t handled_access_net = 0;
  std::uint64_t scoped = 0;
};

// Rights that change the file system. Not handled, so left open: execute, read, read-dir,
// and ioctl on devices (the GPU driver is ioctls).
std::uint64_t write_rights(int abi) {
  std::uint64_t rights = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
                         LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
                         LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |
                         LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM;
  if (abi >= 2) rights |= LANDLOCK_ACCESS_FS_REFER;
  if (abi >= 3) rights |= kTruncate;
  return rights;
}

// Beyond files: no TCP at all (a kernel has no business with the network, and a daemon it
// left behind could serve the next worker over localhost), no abstract Unix sockets or
// signals across the sandbox's edge (the same daemon, or a signal to kopt itself).
RulesetAttributes ruleset_attributes(int abi) {
  RulesetAttributes attributes{.handled_access_fs = write_rights(abi)};
  if (abi >= 4) attributes.handled_access_net = kNetBindTcp | kNetConnectTcp;
  if (abi >= 6) attributes.scoped = kScopeAbstractUnix | kScopeSignal;
  return attributes;
}

class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

Error refused(const std::string& step) {
  return environment_error("cannot confine the worker's writes ({}: {})", step, std::strerror(errno));
}

// Grants `rights` beneath `path`; a path that is not there is skipped (no /dev/shm, say).
void allow_beneath(int ruleset, const fs::path& path, std::uint64_t rights) {
  FileDescriptor folder(::open(path.c_str(), O_PATH | O_CLOEXEC));
  if (folder.get() < 0) {
    if (errno == ENOENT) return;
    throw refused("open " + path.string());
  }
  landlock_path_beneath_attr rule{.allowed_access = rights, .parent_fd = folder.get()};
  if (::syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) != 0)
    throw refused("rule for " + path.string());
}

// Folders a user opens to every worker (a driver or MPS set-up that writes elsewhere):
// $KOPT_WORKER_WRITABLE, colon-separated. Named in the sandbox's description, so a verdict
// says what its kernel could write.
std::vector<fs::path> extra_writable_folders() {
  std::vector<fs::path> folders;
  const char* list = std::getenv("KOPT_WORKER_WRITABLE");
  if (list == nullptr) return folders;
  std::string rest = list;
  for (std::size_t at = 0; at <= rest.size();) {
    const std::size_t end = std::min(rest.find(':', at), rest.size());
    if (end > at) folders.emplace_back(rest.substr(at, end - at));
    at = end + 1;
  }
  return folders;
}

}  // namespace

int landlock_abi() {
  const long abi = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return abi > 0 ? static_cast<int>(abi) : 0;
}

WriteSandbox confine_writes(const std::vector<fs::path>& writable_folders) {
  const int abi = landlock_abi();
  if (abi == 0) return {.confined = false, .description = "no Landlock in this Linux kernel: writes not confined"};
  const RulesetAttributes attributes = ruleset_attributes(abi);
  const std::uint64_t rights = attributes.handled_access_fs;
  FileDescriptor ruleset(static_cast<int>(
      ::syscall(SYS_landlock_create_ruleset, &attributes, sizeof(attributes), 0)));
  if (ruleset.get() < 0) throw refused("create ruleset");

  for (const fs::path& folder : writable_folders) {
    create_folders(folder);
    allow_beneath(ruleset.get(), folder, rights);
  }
  const std::vector<fs::path> extra = extra_writable_folders();
  for (const fs::path& folder : extra) allow_beneath(ruleset.get(), folder, rights);
  // Character devices are opened for writing (the GPU, /dev/null); regular files under /dev
  // (/dev/shm, where a memo could live) are not.
  for (const fs::path& node : character_devices_under("/dev")) allow_beneath(ruleset.get(), node, LANDLOCK_ACCESS_FS_WRITE_FILE);
  allow_beneath(ruleset.get(), "/proc/self", LANDLOCK_ACCESS_FS_WRITE_FILE);

  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) throw refused("no_new_privs");
  if (::syscall(SYS_landlock_restrict_self, ruleset.get(), 0) != 0) throw refused("restrict");
  std::string description = fmt::format("landlock ABI {}: writes only beneath {} folder{}", abi,
                                        writable_folders.size(), writable_folders.size() == 1 ? "" : "s");
  if (!extra.empty()) description += " and $KOPT_WORKER_WRITABLE: " + std::string(std::getenv("KOPT_WORKER_WRITABLE"));
  return {.confined = true, .description = description};
}

}  // namespace kopt::run
