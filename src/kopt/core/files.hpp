#pragma once
// File-system helpers. Every file kopt writes goes through write_file_atomic, so a reader
// (or a kopt killed mid-write) never sees half a file.

#include <filesystem>
#include <string>
#include <string_view>

namespace kopt {

// The whole file; throws input_error naming the path when it cannot be read.
std::string read_file(const std::filesystem::path& path);

// Writes to a temporary file beside `path`, flushes it to disk, then renames it over `path`.
// Creates missing parent folders.
void write_file_atomic(const std::filesystem::path& path, std::string_view content);

// A fresh folder under `parent` (the system temp folder when empty), removed with its
// contents on destruction unless keep() was called.
class TempDir {
 public:
  explicit TempDir(std::string_view prefix = "kopt", const std::filesystem::path& parent = {});
  ~TempDir();
  TempDir(TempDir&& other) noexcept;
  TempDir& operator=(TempDir&&) = delete;
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  void keep() { keep_ = true; }

 private:
  std::filesystem::path path_;
  bool keep_ = false;
};

// The folder where kopt keeps compiled libraries and reference outputs:
// $KOPT_CACHE_DIR, else $XDG_CACHE_HOME/kopt, else ~/.cache/kopt.
std::filesystem::path default_cache_dir();

}  // namespace kopt
