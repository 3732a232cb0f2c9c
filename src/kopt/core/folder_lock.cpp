#include "kopt/core/folder_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"

namespace kopt {

FolderLock::FolderLock(const std::filesystem::path& folder, std::string_view what) {
  create_folders(folder);
  const std::filesystem::path file = folder / ".lock";
  fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw input_error("{}: cannot open the {}'s lock file", file.string(), what);
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd_);
    throw input_error("{}: another kopt is working on this {}", folder.string(), what);
  }
  remove_stale_temporaries(folder);
}

FolderLock::~FolderLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the lock
}

}  // namespace kopt
