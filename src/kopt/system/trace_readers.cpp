#include <sqlite3.h>

#include <fmt/format.h>

#include <memory>

#include "kopt/core/error.hpp"
#include "kopt/core/file_queries.hpp"
#include "kopt/core/files.hpp"
#include "kopt/system/system_trace.hpp"

namespace kopt::system {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

struct DatabaseCloser {
  void operator()(sqlite3* db) const { sqlite3_close(db); }
};
struct StatementFinalizer {
  void operator()(sqlite3_stmt* statement) const { sqlite3_finalize(statement); }
};
using Database = std::unique_ptr<sqlite3, DatabaseCloser>;
using Statement = std::unique_ptr<sqlite3_stmt, StatementFinalizer>;

Database open_read_only(const fs::path& file) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(file.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr);
  Database db(raw);
  if (rc != SQLITE_OK) throw input_error("{}: cannot open as SQLite: {}", file.string(), sqlite3_errstr(rc));
  return db;
}

Statement prepare(sqlite3* db, const std::string& sql, const fs::path& file) {
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &raw, nullptr) != SQLITE_OK) {
    throw input_error("{}: not an Nsight Systems export this kopt reads: {}", file.string(), sqlite3_errmsg(db));
  }
  return Statement(raw);
}

bool has_table(sqlite3* db, const std::string& table, const fs::path& file) {
  Statement s = prepare(db, "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", file);
  sqlite3_bind_text(s.get(), 1, table.c_str(), -1, SQLITE_TRANSIENT);
  return sqlite3_step(s.get()) == SQLITE_ROW;
}

bool has_column(sqlite3* db, const std::string& table, const std::string& column, const fs::path& file) {
  Statement s = prepare(db, fmt::format("SELECT 1 FROM pragma_table_info('{}') WHERE name=?", table), file);
  sqlite3_bind_text(s.get(), 1, column.c_str(), -1, SQLITE_TRANSIENT);
  return sqlite3_step(s.get()) == SQLITE_ROW;
}

std::string text_column(sqlite3_stmt* s, int column) {
  const unsigned char* text = sqlite3_column_text(s, column);
  return text ? reinterpret_cast<const char*>(text) : "";
}

// CUpti_ActivityMemcpyKind, as CUPTI numbers it.
std::string copy_direction(int kind) {
  switch (kind) {
    case 1: return "HtoD";
    case 2: return "DtoH";
    case 8: return "DtoD";
    case 9: return "HtoH";
    case 10: return "PtoP";
    default: return fmt::format("copy kind {}", kind);
  }
}

void read_rows(sqlite3* db, const std::string& sql, const fs::path& file, ActivityKind kind, SystemTrace& trace) {
  Statement s = prepare(db, sql, file);
  int rc;
  while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) {
    Activity a{.kind = kind, .start_s = sqlite3_column_int64(s.get(), 0) * 1e-9, .end_s = sqlite3_column_int64(s.get(), 1) * 1e-9};
    if (kind == ActivityKind::copy) {
      a.bytes = sqlite3_column_int64(s.get(), 2);
      a.name = sqlite3_column_type(s.get(), 3) == SQLITE_TEXT ? text_column(s.get(), 3)
                                                               : copy_direction(sqlite3_column_int(s.get(), 3));
    } else {
      a.name = text_column(s.get(), 2);
    }
    trace.activities.push_back(std::move(a));
  }
  if (rc != SQLITE_DONE) throw input_error("{}: reading it failed: {}", file.string(), sqlite3_errmsg(db));
}

}  // namespace

SystemTrace read_nsys_sqlite(const fs::path& file) {
  const Database db = open_read_only(file);
  if (!has_table(db.get(), "CUPTI_ACTIVITY_KIND_KERNEL", file)) {
    throw input_error("{}: no CUPTI_ACTIVITY_KIND_KERNEL table: no kernel was traced (nsys profile --trace=cuda)",
                      file.string());
  }
  SystemTrace trace{.format = "nsys_sqlite"};
  // The demangled name where the export has one: the loop is handed the kernel as written.
  const char* name = has_column(db.get(), "CUPTI_ACTIVITY_KIND_KERNEL", "demangledName", file) ? "demangledName" : "shortName";
  read_rows(db.get(), fmt::format("SELECT k.start, k.end, COALESCE(s.value, '') FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                                  "LEFT JOIN StringIds s ON s.id = k.{}", name),
            file, ActivityKind::kernel, trace);
  if (has_table(db.get(), "CUPTI_ACTIVITY_KIND_MEMCPY", file)) {
    read_rows(db.get(), "SELECT start, end, bytes, copyKind FROM CUPTI_ACTIVITY_KIND_MEMCPY", file, ActivityKind::copy, trace);
  }
  if (has_table(db.get(), "CUPTI_ACTIVITY_KIND_MEMSET", file)) {
    read_rows(db.get(), "SELECT start, end, bytes, 'memset' FROM CUPTI_ACTIVITY_KIND_MEMSET", file, ActivityKind::copy, trace);
  }
  if (has_table(db.get(), "CUPTI_ACTIVITY_KIND_RUNTIME", file)) {
    read_rows(db.get(), "SELECT r.start, r.end, COALESCE(s.value, '') FROM CUPTI_ACTIVITY_KIND_RUNTIME r "
                        "LEFT JOIN StringIds s ON s.id = r.nameId", file, ActivityKind::host_api, trace);
  }
  return trace;
}

namespace {

// "Memcpy HtoD (Pageable -> Device)" -> "HtoD"; "Memset (Device)" -> "memset".
std::string torch_copy_name(const std::string& cat, const std::string& name) {
  if (cat == "gpu_memset") return "memset";
  for (const char* direction : {"HtoD", "DtoH", "DtoD", "HtoH", "PtoP"}) {
    if (name.find(direction) != std::string::npos) return direction;
  }
  return name;
}

}  // namespace

SystemTrace read_torch_trace(const fs::path& file) {
  json doc;
  try {
    doc = json::parse(read_file(file));
  } catch (const json::exception& e) {
    throw input_error("{}: not valid JSON: {}", file.string(), e.what());
  }
  if (!doc.is_object() || !doc.contains("traceEvents") || !doc["traceEvents"].is_array()) {
    throw input_error("{}: not a Chrome trace (no traceEvents array): give a PyTorch-profiler export_chrome_trace file",
                      file.string());
  }
  SystemTrace trace{.format = "torch_trace"};
  for (const json& e : doc["traceEvents"]) {
    if (!e.is_object() || e.value("ph", "") != "X" || !e.contains("ts") || !e.contains("dur")) continue;
    const std::string cat = e.value("cat", ""), name = e.value("name", "");
    if (!e["ts"].is_number() || !e["dur"].is_number()) throw input_error("{}: an event's ts or dur is not a number", file.string());
    Activity a{.start_s = e["ts"].get<double>() * 1e-6};
    a.end_s = a.start_s + e["dur"].get<double>() * 1e-6;
    if (cat == "kernel") {
      a.kind = ActivityKind::kernel;
      a.name = name;
    } else if (cat == "gpu_memcpy" || cat == "gpu_memset") {
      a.kind = ActivityKind::copy;
      a.name = torch_copy_name(cat, name);
      if (e.contains("args") && e["args"].is_object()) a.bytes = e["args"].value("bytes", std::int64_t{0});
    } else if (cat == "cuda_runtime" || cat == "cuda_driver") {
      a.kind = ActivityKind::host_api;
      a.name = name;
    } else {
      continue;
    }
    trace.activities.push_back(std::move(a));
  }
  return trace;
}

SystemTrace read_system_trace(const fs::path& file) {
  if (!is_file(file)) read_file(file);  // its one line: missing, a folder, a FIFO
  std::string head(16, '\0');
  head.resize(read_file_bytes(file, 0, head));
  if (head == std::string("SQLite format 3\0", 16)) return read_nsys_sqlite(file);
  return read_torch_trace(file);
}

}  // namespace kopt::system
