#pragma once
// Questions about the file system, asked in one place. None of them throws: a path that
// cannot be looked at (a parent that is not a folder, no permission) reads as absent, and
// the read or write that follows (core/files.hpp) names the cause in one line. Listings are
// sorted by name, so nothing kopt does depends on the order a file system returns entries in.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kopt {

bool path_exists(const std::filesystem::path& path);
// Why `path` cannot be looked at (a symbolic-link loop, a parent without permission), as the
// system says it; empty when it exists or is simply absent.
std::string lookup_error(const std::filesystem::path& path);
// A regular file, symbolic links followed.
bool is_file(const std::filesystem::path& path);
// A folder, symbolic links followed.
bool is_folder(const std::filesystem::path& path);
// The bytes of a regular file; nullopt when it is absent or cannot be looked at.
std::optional<std::uintmax_t> file_size_of(const std::filesystem::path& path);
// The file's size and modification time as one string: it changes when the file is replaced.
// Empty when the file cannot be looked at.
std::string file_stamp(const std::filesystem::path& path);

// The entries of `dir` (files and folders), sorted; empty when `dir` is not a readable folder.
std::vector<std::filesystem::path> folder_entries(const std::filesystem::path& dir);
// Every character device under `root` (for the write sandbox's list of devices), symbolic
// links not followed, folders that cannot be read skipped.
std::vector<std::filesystem::path> character_devices_under(const std::filesystem::path& root);

// The path with its symbolic links and `..` resolved as far as it exists
// (std::filesystem::weakly_canonical); the path as given when even that fails.
std::filesystem::path resolved_path(const std::filesystem::path& path);
// This process's working folder; empty when it is gone.
std::filesystem::path working_folder();
// Where `link` points (for /proc/self/exe); empty when it is not a readable symbolic link.
std::filesystem::path link_target(const std::filesystem::path& link);

}  // namespace kopt
