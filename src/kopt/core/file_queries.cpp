#include "kopt/core/file_queries.hpp"

#include <algorithm>

namespace kopt {
namespace fs = std::filesystem;

bool path_exists(const fs::path& path) {
  std::error_code error;
  return fs::exists(path, error);
}

std::string lookup_error(const fs::path& path) {
  std::error_code error;
  return fs::exists(path, error) || !error ? "" : error.message();
}

bool is_file(const fs::path& path) {
  std::error_code error;
  return fs::is_regular_file(path, error);
}

bool is_folder(const fs::path& path) {
  std::error_code error;
  return fs::is_directory(path, error);
}

std::optional<std::uintmax_t> file_size_of(const fs::path& path) {
  std::error_code error;
  const std::uintmax_t bytes = fs::file_size(path, error);
  if (error) return std::nullopt;
  return bytes;
}

std::string file_stamp(const fs::path& path) {
  std::error_code size_error;
  std::error_code time_error;
  const std::uintmax_t bytes = fs::file_size(path, size_error);
  const auto written = fs::last_write_time(path, time_error);
  if (size_error || time_error) return "";
  return std::to_string(bytes) + " " + std::to_string(written.time_since_epoch().count());
}

std::vector<fs::path> folder_entries(const fs::path& dir) {
  std::vector<fs::path> entries;
  std::error_code error;
  for (auto it = fs::directory_iterator(dir, error); !error && it != fs::directory_iterator(); it.increment(error)) {
    entries.push_back(it->path());
  }
  std::ranges::sort(entries);
  return entries;
}

std::vector<fs::path> character_devices_under(const fs::path& root) {
  std::vector<fs::path> nodes;
  std::error_code error;
  for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, error);
       !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
    if (it->is_character_file(error) && !it->is_symlink(error)) nodes.push_back(it->path());
  }
  return nodes;
}

fs::path resolved_path(const fs::path& path) {
  std::error_code error;
  fs::path resolved = fs::weakly_canonical(path, error);
  return error ? path : resolved;
}

fs::path working_folder() {
  std::error_code error;
  fs::path folder = fs::current_path(error);
  return error ? fs::path() : folder;
}

fs::path link_target(const fs::path& link) {
  std::error_code error;
  fs::path target = fs::read_symlink(link, error);
  return error ? fs::path() : target;
}

}  // namespace kopt
