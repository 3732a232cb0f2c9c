#include "kopt/core/files.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "kopt/core/error.hpp"
#include "kopt/core/interrupt.hpp"

namespace kopt {
namespace fs = std::filesystem;

namespace {

// "a FIFO", "a character device", ...: what a path that is not a regular file is.
std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISREG(mode)) return "a regular file";
  return "not a regular file";
}

// The input_error for a path stat() or open() refused with `error`.
Error unreadable(const fs::path& path, int error) {
  if (error == ENOENT) return input_error("{} does not exist", path.string());
  if (error == ELOOP) return input_error("{}: symbolic link loop (too many levels of links)", path.string());
  if (error == ENOTDIR) return input_error("{}: a part of this path is a file, not a folder", path.string());
  return input_error("{} cannot be read: {}", path.string(), std::strerror(error));
}

// Errors of writing that are the machine's, not the user's.
bool is_environment_error(int error) { return error == ENOSPC || error == EDQUOT || error == EIO; }

Error unwritable(const fs::path& path, int error) {
  std::string message = fmt::format("cannot write {}: {}", path.string(), std::strerror(error));
  return Error(is_environment_error(error) ? ExitCode::environment : ExitCode::bad_input, std::move(message));
}

// Closes a file descriptor on scope exit.
struct FdCloser {
  int fd;
  ~FdCloser() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

void require_regular_file(const fs::path& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) throw unreadable(path, errno);
  if (!S_ISREG(info.st_mode)) throw input_error("{} is {}, not a regular file", path.string(), kind_of(info.st_mode));
}

std::string read_file(const fs::path& path, std::uintmax_t max_bytes) {
  require_regular_file(path);
  // O_NONBLOCK: should the path become a FIFO between the check and the open, the open does
  // not wait for a writer; the fstat below then refuses it.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw unreadable(path, errno);
  FdCloser closer{fd};
  struct stat info {};
  if (::fstat(fd, &info) != 0) throw unreadable(path, errno);
  if (!S_ISREG(info.st_mode)) throw input_error("{} is {}, not a regular file", path.string(), kind_of(info.st_mode));
  if (static_cast<std::uintmax_t>(info.st_size) > max_bytes) {
    throw input_error("{} is {} MiB, more than the {} MiB kopt reads", path.string(), info.st_size >> 20,
                      max_bytes >> 20);
  }
  std::string content;
  char buffer[65536];
  while (true) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw unreadable(path, errno);
    if (n == 0) break;
    content.append(buffer, static_cast<std::size_t>(n));
    // A file that grows while read (a log being written) is still capped.
    if (content.size() > max_bytes) {
      throw input_error("{} is more than the {} MiB kopt reads", path.string(), max_bytes >> 20);
    }
  }
  return content;
}

void require_writable_path(const fs::path& path) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) == 0) {
    if (!S_ISREG(info.st_mode)) {
      throw input_error("{} is {}; kopt writes only regular files or new paths, and will not replace it",
                        path.string(), kind_of(info.st_mode));
    }
    return;
  }
  // ENOTDIR: a part of the path is a file; check_output_file and create_folders name it.
  if (errno != ENOENT && errno != ENOTDIR) throw unwritable(path, errno);
}

namespace {

// The nearest part of `dir` (itself included) that exists; throws input_error when it is not
// a folder or the path holds a symlink loop.
fs::path existing_folder_above(const fs::path& dir) {
  fs::path existing = dir.empty() ? fs::path(".") : dir;
  struct stat info {};
  while (::stat(existing.c_str(), &info) != 0) {
    if (errno == ELOOP) throw input_error("{}: symbolic link loop (too many levels of links)", existing.string());
    if (errno != ENOENT && errno != ENOTDIR) throw unwritable(dir, errno);
    existing = existing.has_parent_path() && existing.parent_path() != existing ? existing.parent_path() : fs::path(".");
  }
  if (!S_ISDIR(info.st_mode)) {
    throw input_error("cannot create folder {}: {} is {}, not a folder", dir.string(), existing.string(),
                      kind_of(info.st_mode));
  }
  return existing;
}

void require_writable_folder(const fs::path& dir) {
  const fs::path folder = existing_folder_above(dir);
  if (::access(folder.c_str(), W_OK) != 0) {
    throw input_error("cannot write in {}: {}", folder.string(), std::strerror(errno));
  }
}

}  // namespace

void check_output_file(const fs::path& path) {
  require_writable_path(path);
  require_writable_folder(path.has_parent_path() ? path.parent_path() : fs::path("."));
}

void check_output_folder(const fs::path& dir) {
  struct stat info {};
  if (::stat(dir.c_str(), &info) == 0 && !S_ISDIR(info.st_mode)) {
    throw input_error("{} is {}, not a folder", dir.string(), kind_of(info.st_mode));
  }
  require_writable_folder(dir);
}

void create_folders(const fs::path& dir) {
  if (dir.empty()) return;
  existing_folder_above(dir);
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) {
    throw Error(is_environment_error(error.value()) ? ExitCode::environment : ExitCode::bad_input,
                fmt::format("cannot create folder {}: {}", dir.string(), error.message()));
  }
}

bool remove_file(const fs::path& path) {
  std::error_code error;
  const bool removed = fs::remove(path, error);
  if (error) throw input_error("cannot remove {}: {}", path.string(), error.message());
  return removed;
}

void remove_folder(const fs::path& dir) {
  std::error_code error;
  fs::remove_all(dir, error);
  if (error) throw input_error("cannot remove {}: {}", dir.string(), error.message());
}

bool try_move_path(const fs::path& from, const fs::path& to) {
  std::error_code error;
  fs::rename(from, to, error);
  return !error;
}

void move_path(const fs::path& from, const fs::path& to) {
  std::error_code error;
  fs::rename(from, to, error);
  if (error) throw input_error("cannot move {} to {}: {}", from.string(), to.string(), error.message());
}

void append_to_file(const fs::path& path, std::string_view text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) throw unwritable(path, errno);
  const FdCloser closer{fd};
  // One write per call: with O_APPEND, lines of concurrent writers do not interleave.
  if (::write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size())) throw unwritable(path, errno);
}

std::size_t read_file_bytes(const fs::path& path, std::uintmax_t offset, std::span<char> into) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw unreadable(path, errno);
  const FdCloser closer{fd};
  std::size_t done = 0;
  while (done < into.size()) {
    const ssize_t got = ::pread(fd, into.data() + done, into.size() - done, static_cast<off_t>(offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw unreadable(path, errno);
    if (got == 0) break;
    done += static_cast<std::size_t>(got);
  }
  return done;
}

void write_file_atomic(const fs::path& path, std::string_view content) {
  write_file_atomic(path, {content}, Durability::synced);
}

namespace {

// The temporary file beside `path` that an atomic write fills and then renames over it;
// removed (and forgotten by the interrupt handler) unless published.
class AtomicTemporary {
 public:
  explicit AtomicTemporary(const fs::path& path) : path_(path), temp_(path.string() + ".tmp.XXXXXX") {
    require_writable_path(path);
    if (path.has_parent_path()) create_folders(path.parent_path());
    fd_ = make_tracked_temporary_file(temp_);
    if (fd_ < 0) throw unwritable(path, errno);
  }
  ~AtomicTemporary() {
    if (fd_ >= 0) ::close(fd_);
    if (!published_) {
      ::unlink(temp_.c_str());
      untrack_temporary(temp_);
    }
  }
  AtomicTemporary(const AtomicTemporary&) = delete;
  AtomicTemporary& operator=(const AtomicTemporary&) = delete;

  int fd() const { return fd_; }
  Error failure(int error) const { return unwritable(path_, error); }

  // mkstemp creates 0600; kopt's outputs are ordinary files.
  void publish(Durability durability) {
    ::fchmod(fd_, 0644);
    if (durability == Durability::synced && ::fsync(fd_) != 0 && errno != EINVAL) throw failure(errno);
    ::close(fd_);
    fd_ = -1;
    if (::rename(temp_.c_str(), path_.c_str()) != 0) throw failure(errno);
    published_ = true;
    untrack_temporary(temp_);
  }

 private:
  fs::path path_;
  std::string temp_;
  int fd_ = -1;
  bool published_ = false;
};

void write_all(const AtomicTemporary& file, std::string_view content) {
  const char* data = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    ssize_t written = ::write(file.fd(), data, left);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) throw file.failure(written < 0 ? errno : EIO);
    data += written;
    left -= static_cast<std::size_t>(written);
  }
}

}  // namespace

void write_file_atomic(const fs::path& path, std::initializer_list<std::string_view> parts, Durability durability) {
  AtomicTemporary file(path);
  for (std::string_view content : parts) write_all(file, content);
  file.publish(durability);
}

void write_file_atomic_streamed(const fs::path& path, std::string_view header, std::size_t body_bytes,
                                const std::function<void(const ByteSink&)>& produce, Durability durability) {
  AtomicTemporary file(path);
  write_all(file, header);
  std::size_t written = 0;
  produce([&](std::span<const std::byte> piece) {
    if (piece.size() > body_bytes - written) {
      throw std::logic_error(fmt::format("{}: the pieces exceed the {} bytes announced", path.string(), body_bytes));
    }
    write_all(file, {reinterpret_cast<const char*>(piece.data()), piece.size()});
    written += piece.size();
  });
  if (written != body_bytes) {
    throw std::logic_error(fmt::format("{}: {} of the {} bytes announced were produced", path.string(), written, body_bytes));
  }
  file.publish(durability);
}

void write_file_atomic_in_place(const fs::path& path, std::string_view header, std::size_t body_bytes,
                                const std::function<void(std::span<std::byte>)>& fill) {
  AtomicTemporary file(path);
  const std::size_t total = header.size() + body_bytes;
  if (total > 0) {
    // posix_fallocate, not ftruncate: a full disk is an error here, not a SIGBUS in `fill`.
    if (const int error = ::posix_fallocate(file.fd(), 0, static_cast<off_t>(total)); error != 0) throw file.failure(error);
    void* map = ::mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_SHARED, file.fd(), 0);
    if (map == MAP_FAILED) throw file.failure(errno);
    struct Unmap {
      void* map;
      std::size_t bytes;
      ~Unmap() { ::munmap(map, bytes); }
    } unmap{map, total};
    std::byte* bytes = static_cast<std::byte*>(map);
    std::memcpy(bytes, header.data(), header.size());
    fill({bytes + header.size(), body_bytes});
  }
  file.publish(Durability::scratch);
}

int remove_stale_temporaries(const fs::path& dir) {
  int removed = 0;
  std::error_code error;
  for (auto it = fs::recursive_directory_iterator(dir, error); !error && it != fs::recursive_directory_iterator();
       it.increment(error)) {
    const std::string name = it->path().filename().string();
    // write_file_atomic's temporaries: NAME.tmp.XXXXXX (six characters from mkstemp).
    const auto at = name.rfind(".tmp.");
    if (at == std::string::npos || name.size() - at != 11 || !it->is_regular_file(error)) continue;
    if (fs::remove(it->path(), error)) ++removed;
  }
  return removed;
}

TempDir::TempDir(std::string_view prefix, const fs::path& parent) {
  fs::path base = parent.empty() ? fs::temp_directory_path() : parent;
  create_folders(base);
  std::string pattern = (base / (std::string(prefix) + ".XXXXXX")).string();
  if (!make_tracked_temporary_folder(pattern)) {
    throw Error(is_environment_error(errno) ? ExitCode::environment : ExitCode::bad_input,
                fmt::format("cannot create a temporary folder in {}: {}", base.string(), std::strerror(errno)));
  }
  path_ = pattern;
}

TempDir::TempDir(TempDir&& other) noexcept : path_(std::move(other.path_)), keep_(other.keep_) {
  other.path_.clear();
}

void TempDir::keep() {
  keep_ = true;
  untrack_temporary(path_);
}

TempDir::~TempDir() {
  if (path_.empty()) return;
  untrack_temporary(path_);
  if (keep_) return;
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

fs::path default_cache_dir() {
  if (const char* dir = std::getenv("KOPT_CACHE_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return fs::path(xdg) / "kopt";
  if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".cache" / "kopt";
  return fs::temp_directory_path() / "kopt-cache";
}

}  // namespace kopt
