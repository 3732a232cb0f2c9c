#include "kopt/loop/result_cache.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <string_view>

#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/core/hash.hpp"

namespace kopt {

std::string VariantKey::digest() const {
  auto sorted_defines = defines;
  std::sort(sorted_defines.begin(), sorted_defines.end());
  ContentHasher hasher;
  hasher.add("kopt.variant_key.v1").add(source_hash);
  hasher.add(std::to_string(flags.size()));
  for (const auto& flag : flags) hasher.add(flag);
  hasher.add(std::to_string(sorted_defines.size()));
  for (const auto& [name, value] : sorted_defines) hasher.add(name).add(value);
  hasher.add(case_name).add(device_uuid).add(std::to_string(driver_version)).add(kind).add(settings_hash);
  return hasher.hex();
}

namespace {

struct StatementFinalizer {
  void operator()(sqlite3_stmt* statement) const { sqlite3_finalize(statement); }
};
using StatementHandle = std::unique_ptr<sqlite3_stmt, StatementFinalizer>;

// The statement's first line, for messages that must stay on one line.
std::string_view first_line(std::string_view sql) {
  sql.remove_prefix(std::min(sql.find_first_not_of(" \n"), sql.size()));
  return sql.substr(0, std::min<std::size_t>(sql.find('\n'), 60));
}

// One line naming the file and SQLite's reason; a file that is not a database says so plainly.
[[noreturn]] void fail(const std::filesystem::path& file, sqlite3* db, std::string_view doing) {
  doing = first_line(doing);
  int code = db ? sqlite3_extended_errcode(db) : SQLITE_NOMEM;
  const char* reason = db ? sqlite3_errmsg(db) : "out of memory";
  if ((code & 0xff) == SQLITE_NOTADB || (code & 0xff) == SQLITE_CORRUPT) {
    throw environment_error("result cache {} is not a usable SQLite database ({}); remove it to start an empty cache",
                            file.string(), reason);
  }
  throw environment_error("result cache {}: {} failed: {}", file.string(), doing, reason);
}

// A prepared statement; values are only ever bound, never spliced into the SQL.
class Statement {
 public:
  Statement(sqlite3* db, const std::filesystem::path& file, std::string_view sql) : db_(db), file_(file) {
    sqlite3_stmt* raw = nullptr;
    if (sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &raw, nullptr) != SQLITE_OK) {
      fail(file_, db_, sql);
    }
    statement_.reset(raw);
    sql_ = sql;
  }

  Statement& bind(int index, std::string_view text) {
    check(sqlite3_bind_text(statement_.get(), index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT));
    return *this;
  }
  Statement& bind(int index, std::int64_t value) {
    check(sqlite3_bind_int64(statement_.get(), index, value));
    return *this;
  }

  // True while a row is available; false once the statement is done.
  bool step() {
    int code = sqlite3_step(statement_.get());
    if (code == SQLITE_ROW) return true;
    if (code == SQLITE_DONE) return false;
    fail(file_, db_, sql_);
  }

  std::string text(int column) const {
    const auto* data = reinterpret_cast<const char*>(sqlite3_column_text(statement_.get(), column));
    return data ? std::string(data, static_cast<std::size_t>(sqlite3_column_bytes(statement_.get(), column)))
                : std::string();
  }
  std::int64_t integer(int column) const { return sqlite3_column_int64(statement_.get(), column); }

 private:
  void check(int code) {
    if (code != SQLITE_OK) fail(file_, db_, sql_);
  }

  sqlite3* db_;
  const std::filesystem::path& file_;
  std::string_view sql_;
  StatementHandle statement_;
};

void execute(sqlite3* db, const std::filesystem::path& file, std::string_view sql) {
  Statement statement(db, file, sql);
  while (statement.step()) {
  }
}

// BEGIN IMMEDIATE takes the write lock at once (waiting up to busy_timeout), so two writers
// never deadlock upgrading a read lock. Rolled back unless committed.
class Transaction {
 public:
  Transaction(sqlite3* db, const std::filesystem::path& file) : db_(db), file_(file) {
    execute(db_, file_, "BEGIN IMMEDIATE");
  }
  ~Transaction() {
    if (!committed_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  void commit() {
    execute(db_, file_, "COMMIT");
    committed_ = true;
  }

 private:
  sqlite3* db_;
  const std::filesystem::path& file_;
  bool committed_ = false;
};

constexpr std::string_view create_results_table = R"sql(
CREATE TABLE IF NOT EXISTS results (
  digest         TEXT PRIMARY KEY,
  source_hash    TEXT NOT NULL,
  flags          TEXT NOT NULL,      -- JSON array, in order
  defines        TEXT NOT NULL,      -- JSON array of [name, value], sorted
  case_name      TEXT NOT NULL,
  device_uuid    TEXT NOT NULL,
  driver_version INTEGER NOT NULL,
  kind           TEXT NOT NULL,      -- check | bench | profile
  settings_hash  TEXT NOT NULL,
  result         TEXT NOT NULL,      -- JSON
  created_at     TEXT NOT NULL       -- UTC, ISO 8601
))sql";

}  // namespace

struct ResultCache::Connection {
  // A member type, not one of the file's anonymous namespace: Connection has linkage.
  struct Closer {
    void operator()(sqlite3* handle) const { sqlite3_close_v2(handle); }
  };
  std::unique_ptr<sqlite3, Closer> db;
};

ResultCache::ResultCache(const std::filesystem::path& file, std::chrono::milliseconds busy_timeout)
    : file_(file), connection_(std::make_unique<Connection>()) {
  if (file_.has_parent_path()) create_folders(file_.parent_path());
  sqlite3* raw = nullptr;
  int code = sqlite3_open_v2(file_.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  connection_->db.reset(raw);
  sqlite3* db = raw;
  if (code != SQLITE_OK) fail(file_, db, "opening");
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_timeout(db, static_cast<int>(busy_timeout.count()));

  // The first statement that reads the file finds out whether it is a database at all.
  execute(db, file_, "PRAGMA journal_mode = WAL");
  execute(db, file_, "PRAGMA synchronous = NORMAL");  // WAL stays consistent; a lost last result is re-measured

  Transaction transaction(db, file_);
  execute(db, file_, "CREATE TABLE IF NOT EXISTS kopt_schema (version INTEGER NOT NULL)");
  Statement read_version(db, file_, "SELECT version FROM kopt_schema");
  if (read_version.step()) {
    std::int64_t version = read_version.integer(0);
    if (version != schema_version) {
      throw environment_error(
          "result cache {} has schema version {}, this kopt reads version {}; remove it or use another cache folder",
          file_.string(), version, schema_version);
    }
  } else {
    Statement(db, file_, "INSERT INTO kopt_schema (version) VALUES (?)").bind(1, std::int64_t{schema_version}).step();
  }
  execute(db, file_, create_results_table);
  transaction.commit();
}

ResultCache::~ResultCache() = default;
ResultCache::ResultCache(ResultCache&&) noexcept = default;
ResultCache& ResultCache::operator=(ResultCache&&) noexcept = default;

std::optional<nlohmann::json> ResultCache::find(const VariantKey& key) const {
  Statement select(connection_->db.get(), file_, "SELECT result FROM results WHERE digest = ?");
  std::string digest = key.digest();
  select.bind(1, digest);
  if (!select.step()) return std::nullopt;
  std::string text = select.text(0);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw environment_error("result cache {}: the entry {} is not valid JSON: {}", file_.string(), digest, e.what());
  }
}

void ResultCache::store(const VariantKey& key, const nlohmann::json& result) {
  auto defines = key.defines;
  std::sort(defines.begin(), defines.end());
  nlohmann::json defines_json = nlohmann::json::array();
  for (const auto& [name, value] : defines) defines_json.push_back({name, value});
  std::string digest = key.digest();
  std::string flags_text = nlohmann::json(key.flags).dump();
  std::string defines_text = defines_json.dump();
  std::string result_text = result.dump();

  sqlite3* db = connection_->db.get();
  Transaction transaction(db, file_);
  Statement insert(db, file_, R"sql(
    INSERT OR REPLACE INTO results (digest, source_hash, flags, defines, case_name, device_uuid,
                                    driver_version, kind, settings_hash, result, created_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')))sql");
  insert.bind(1, digest)
      .bind(2, key.source_hash)
      .bind(3, flags_text)
      .bind(4, defines_text)
      .bind(5, key.case_name)
      .bind(6, key.device_uuid)
      .bind(7, std::int64_t{key.driver_version})
      .bind(8, key.kind)
      .bind(9, key.settings_hash)
      .bind(10, result_text)
      .step();
  transaction.commit();
}

void ResultCache::erase(const VariantKey& key) {
  std::string digest = key.digest();
  Statement(connection_->db.get(), file_, "DELETE FROM results WHERE digest = ?").bind(1, digest).step();
}

std::size_t ResultCache::size() const {
  Statement count(connection_->db.get(), file_, "SELECT count(*) FROM results");
  count.step();
  return static_cast<std::size_t>(count.integer(0));
}

}  // namespace kopt
