#pragma once
// File-system helpers. Every file kopt writes goes through write_file_atomic, so a reader
// (or a kopt killed mid-write) never sees half a file.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>

namespace kopt {

// Inputs larger than this are refused: every file kopt reads whole (kernels, specs, JSON run
// files, references, the worker's results) is far smaller, and a bigger one is a mistake
// (a .cu linked to /dev/zero) that would otherwise fill memory.
inline constexpr std::uintmax_t kMaxInputBytes = std::uintmax_t{256} << 20;

// The whole file; throws input_error naming the path and the cause when it cannot be read:
// missing, a folder, a symlink loop, not a regular file (a FIFO or a device, which could
// block or never end) or larger than `max_bytes`.
std::string read_file(const std::filesystem::path& path, std::uintmax_t max_bytes = kMaxInputBytes);

// Throws input_error unless `path` names a regular file (following symlinks) that can be
// opened; says what it is otherwise. For inputs handed to other programs by name.
void require_regular_file(const std::filesystem::path& path);

// Throws input_error unless kopt may write `path`: it is absent (its parent may be created)
// or a regular file. A symlink, FIFO, device, socket or folder is never replaced, and a
// parent that is a file is named.
void require_writable_path(const std::filesystem::path& path);

// Writes to a temporary file beside `path`, flushes it to disk, then renames it over `path`.
// Creates missing parent folders. Checks `path` with require_writable_path first; a failure
// to create, write or rename is an input_error naming the path and the system's reason
// (an environment error when the disk is full).
void write_file_atomic(const std::filesystem::path& path, std::string_view content);

// Whether a write waits for the disk (fsync) before the rename. Scratch files that only a
// later step of the same command reads (a worker's output dumps) need not survive a crash of
// the machine, and an fsync of 128 MiB costs as much as the write.
enum class Durability { synced, scratch };

// The same, for content in several parts (a header and a large body, without joining them
// into one copy first).
void write_file_atomic(const std::filesystem::path& path, std::initializer_list<std::string_view> parts,
                       Durability durability);

// The same for a large scratch file whose body is made rather than copied: `header`, then
// `body_bytes` that `fill` writes in place, into a memory map of the temporary file (no
// buffer of the body's size, no copy of it into the page cache). Durability::scratch.
void write_file_atomic_in_place(const std::filesystem::path& path, std::string_view header, std::size_t body_bytes,
                                const std::function<void(std::span<std::byte>)>& fill);

// The same for a large file whose body arrives in pieces: `produce` hands each piece, in
// order, to the sink it is given, and the piece is written before the sink returns (the
// caller may then reuse its memory). For outputs streamed from the GPU through a few page-
// locked pieces, without a host copy of the whole (run/first_call_outputs.hpp). Throws
// std::logic_error, and publishes nothing, when the pieces do not add up to `body_bytes`.
using ByteSink = std::function<void(std::span<const std::byte>)>;
void write_file_atomic_streamed(const std::filesystem::path& path, std::string_view header, std::size_t body_bytes,
                                const std::function<void(const ByteSink&)>& produce, Durability durability);

// Creates `dir` and its missing parents, or throws input_error naming the part that is in
// the way (a file, a read-only folder).
void create_folders(const std::filesystem::path& dir);

// Removes the file (or empty folder) `path` where it exists; returns whether it did. A
// failure is an input_error naming the path and the system's reason.
bool remove_file(const std::filesystem::path& path);
// Removes `dir` with everything under it, where it exists; failures as above.
void remove_folder(const std::filesystem::path& dir);
// Renames `from` to `to` on one file system (an atomic publication); throws naming both and
// the reason. try_move_path says false instead, for a caller with a fallback (a concurrent
// writer that published first).
void move_path(const std::filesystem::path& from, const std::filesystem::path& to);
bool try_move_path(const std::filesystem::path& from, const std::filesystem::path& to);

// Appends `text` to `path`, created where absent (its folder is not): the one kind of file
// kopt extends rather than replaces (a run's log). Throws naming the path when it cannot.
void append_to_file(const std::filesystem::path& path, std::string_view text);

// Up to `into.size()` bytes of `path` from `offset`; returns how many were read (fewer at
// the end of the file). For formats read in parts (a header, then a large body straight into
// its array). Throws input_error naming the path when it cannot be opened or read.
std::size_t read_file_bytes(const std::filesystem::path& path, std::uintmax_t offset, std::span<char> into);

// Checks, before any work, that kopt will be able to write the file `path` (an --out):
// require_writable_path, and the nearest existing folder above it is a folder kopt may
// write in (not a file, not read-only). Throws input_error naming the cause.
void check_output_file(const std::filesystem::path& path);
// The same for a folder kopt will create or write in (--cache-dir, --run, --dest).
void check_output_folder(const std::filesystem::path& dir);

// Removes `*.tmp.*` files that write_file_atomic left in `dir` and its sub-folders when
// kopt was killed mid-write; returns how many it removed.
int remove_stale_temporaries(const std::filesystem::path& dir);

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
  // Leaves the folder in place, also when kopt is interrupted (see core/interrupt.hpp).
  void keep();

 private:
  std::filesystem::path path_;
  bool keep_ = false;
};

// The folder where kopt keeps compiled libraries and reference outputs:
// $KOPT_CACHE_DIR, else $XDG_CACHE_HOME/kopt, else ~/.cache/kopt.
std::filesystem::path default_cache_dir();

}  // namespace kopt
