#pragma once
// The result cache: every check, bench and profile result kopt has measured, shared across
// runs in one SQLite file, so that an identical variant is never measured twice and an
// interrupted `optimize` resumes where it stopped (docs/loop.md, "The result cache").
//
// One ResultCache is used by one thread at a time. Any number of instances, in one process
// or in several kopt processes, may open the same file: SQLite's WAL journal lets readers
// run beside a writer, and writers wait (busy_timeout) instead of failing.

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kopt {

// Everything that decides a measurement's outcome. Two keys with the same digest() are the
// same measurement.
struct VariantKey {
  std::string source_hash;                                    // content hash of the kernel source
  std::vector<std::string> flags;                             // compiler flags, in order
  std::vector<std::pair<std::string, std::string>> defines;   // -D name=value; order is irrelevant
  std::string case_name;
  std::string device_uuid;
  int driver_version = 0;                                     // as cudaDriverGetVersion gives it
  std::string kind;                                           // "check" | "bench" | "profile"
  std::string settings_hash;                                  // hash of the measurement settings

  // 32 lowercase hex digits (XXH3-128) over a canonical, versioned encoding: flags in order,
  // defines sorted by name (then value).
  std::string digest() const;
};

class ResultCache {
 public:
  // Opens the cache at `file` (normally <cache_dir>/results.sqlite3), creating the file, its
  // parent folders and the schema when missing. Throws an environment Error naming the file
  // when it cannot be opened, is not a SQLite database, or has another schema version.
  explicit ResultCache(const std::filesystem::path& file,
                       std::chrono::milliseconds busy_timeout = std::chrono::seconds(30));
  ~ResultCache();
  ResultCache(ResultCache&&) noexcept;
  ResultCache& operator=(ResultCache&&) noexcept;
  ResultCache(const ResultCache&) = delete;
  ResultCache& operator=(const ResultCache&) = delete;

  std::optional<nlohmann::json> find(const VariantKey& key) const;
  void store(const VariantKey& key, const nlohmann::json& result);  // replaces an older entry
  void erase(const VariantKey& key);
  std::size_t size() const;

  const std::filesystem::path& file() const { return file_; }

  static constexpr int schema_version = 1;

 private:
  struct Connection;
  std::filesystem::path file_;
  std::unique_ptr<Connection> connection_;
};

}  // namespace kopt
