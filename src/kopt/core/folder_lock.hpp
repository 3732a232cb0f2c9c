#pragma once
// An exclusive advisory lock on FOLDER/.lock for as long as it lives, for the folders kopt
// rewrites step by step (a loop run, a workload session): a second kopt working on the same
// folder is refused with one line instead of interleaving its writes. Holding it, kopt removes
// the temporaries a killed write left there, before anything reads the folder.

#include <filesystem>
#include <string_view>

namespace kopt {

class FolderLock {
 public:
  // `what` names the folder in the refusal: "another kopt is working on this <what>".
  FolderLock(const std::filesystem::path& folder, std::string_view what);
  ~FolderLock();
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace kopt
