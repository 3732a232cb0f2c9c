#include "kopt/core/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "kopt/core/error.hpp"

namespace kopt {
namespace fs = std::filesystem;

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::error_code ec;
    const char* why = fs::exists(path, ec) ? "cannot be read" : "does not exist";
    throw input_error("{} {}", path.string(), why);
  }
  std::ostringstream content;
  content << in.rdbuf();
  return std::move(content).str();
}

void write_file_atomic(const fs::path& path, std::string_view content) {
  if (path.has_parent_path()) fs::create_directories(path.parent_path());
  std::string temp = path.string() + ".tmp.XXXXXX";
  int fd = mkstemp(temp.data());
  if (fd < 0) throw input_error("cannot write {}: {}", path.string(), std::strerror(errno));
  const char* data = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    ssize_t written = ::write(fd, data, left);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) {
      int saved = errno;
      ::close(fd);
      ::unlink(temp.c_str());
      throw input_error("cannot write {}: {}", path.string(), std::strerror(saved));
    }
    data += written;
    left -= static_cast<std::size_t>(written);
  }
  // mkstemp creates 0600; kopt's outputs are ordinary files.
  ::fchmod(fd, 0644);
  ::fsync(fd);
  ::close(fd);
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    int saved = errno;
    ::unlink(temp.c_str());
    throw input_error("cannot write {}: {}", path.string(), std::strerror(saved));
  }
}

TempDir::TempDir(std::string_view prefix, const fs::path& parent) {
  fs::path base = parent.empty() ? fs::temp_directory_path() : parent;
  fs::create_directories(base);
  std::string pattern = (base / (std::string(prefix) + ".XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw environment_error("cannot create a temporary folder in {}: {}", base.string(),
                            std::strerror(errno));
  }
  path_ = pattern;
}

TempDir::TempDir(TempDir&& other) noexcept : path_(std::move(other.path_)), keep_(other.keep_) {
  other.path_.clear();
}

TempDir::~TempDir() {
  if (keep_ || path_.empty()) return;
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
