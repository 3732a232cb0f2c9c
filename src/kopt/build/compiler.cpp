#include "kopt/build/compiler.hpp"

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include "kopt/core/embedded_files.hpp"
#include "kopt/core/context.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/file_queries.hpp"
#include "kopt/core/files.hpp"
#include "kopt/core/hash.hpp"
#include "kopt/spec/tool_arguments.hpp"

namespace kopt::build {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Bumped when the layout of a cache entry or the default flags change.
constexpr std::string_view kCacheVersion = "kopt-build-4";

// -O3 for speed, -lineinfo so Nsight Compute can show source, -Xptxas -v for the resource
// report. User flags come after these, so a user's -O0 wins.
// -fno-gnu-unique: several variants are loaded into one timing process, and GCC would give
// a function-local static of an inline function (a "configured once" flag, say) one copy for
// the whole process, even across RTLD_LOCAL libraries: the second variant would then skip its
// own setup (seen on the H200: a 74 KiB shared-memory kernel launched without its opt-in).
const std::vector<std::string> kDefaultFlags = {"-shared", "-Xcompiler", "-fPIC,-fno-gnu-unique", "-O3",
                                                "-lineinfo", "-Xptxas", "-v"};

std::string first_error_line(const std::string& log) {
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    if (line.find("error") != std::string::npos) return line;
  }
  std::istringstream again(log);
  std::string first;
  std::getline(again, first);
  return first;
}

void collect_includes(const fs::path& file, const std::vector<fs::path>& include_dirs,
                      std::set<fs::path>& found) {
  static const std::regex kInclude(R"re(^\s*#\s*include\s*"([^"]+)")re");
  std::string text;
  try {
    text = read_file(file);
  } catch (const Error&) {
    return;  // nvcc will report the missing header itself
  }
  std::istringstream in(text);
  std::smatch match;
  for (std::string line; std::getline(in, line);) {
    if (!std::regex_search(line, match, kInclude)) continue;
    std::vector<fs::path> candidates{file.parent_path() / match[1].str()};
    for (const fs::path& dir : include_dirs) candidates.push_back(dir / match[1].str());
    for (const fs::path& candidate : candidates) {
      if (!is_file(candidate)) continue;
      fs::path canonical = resolved_path(candidate);
      if (found.insert(canonical).second) collect_includes(canonical, include_dirs, found);
      break;
    }
  }
}

std::vector<fs::path> include_dirs_of(const std::vector<std::string>& flags) {
  std::vector<fs::path> dirs;
  for (std::size_t i = 0; i < flags.size(); ++i) {
    if (flags[i] == "-I" && i + 1 < flags.size()) dirs.emplace_back(flags[++i]);
    else if (flags[i].starts_with("-I")) dirs.emplace_back(flags[i].substr(2));
  }
  return dirs;
}

// CUTLASS's include folder is thousands of headers: hashing the ones a kernel reaches would
// cost seconds per variant, and its version.h names the release they belong to.
std::optional<fs::path> cutlass_version_header(const fs::path& dir) {
  if (is_file(dir / "cutlass" / "cutlass.h") && is_file(dir / "cutlass" / "version.h")) {
    return dir / "cutlass" / "version.h";
  }
  return std::nullopt;
}

std::vector<fs::path> walked_include_dirs(const std::vector<std::string>& flags) {
  std::vector<fs::path> dirs;
  for (const fs::path& dir : include_dirs_of(flags)) {
    if (!cutlass_version_header(dir)) dirs.push_back(dir);
  }
  return dirs;
}

}  // namespace

std::vector<std::string> arch_flags(const std::string& arch) {
  spec::check_arch(arch, "target");
  const std::string number = arch.substr(3);
  return {"-gencode=arch=compute_" + number + ",code=sm_" + number};
}

fs::path find_nvcc() { return SystemToolchain().path(Tool::nvcc); }

std::vector<fs::path> local_includes(const fs::path& source, const std::vector<std::string>& flags) {
  std::set<fs::path> found;
  collect_includes(source, walked_include_dirs(flags), found);
  return {found.begin(), found.end()};
}

Compiler::Compiler(ProcessRunner& runner, fs::path nvcc, fs::path cache_dir, std::optional<CutlassSearch> cutlass)
    : runner_(runner),
      nvcc_(std::move(nvcc)),
      cache_dir_(std::move(cache_dir)),
      cutlass_search_(cutlass ? std::move(*cutlass) : system_cutlass_search(runner)) {}

Compiler::Compiler(Context& context) : Compiler(context.runner, context.tools.path(Tool::nvcc), context.cache_dir) {}

namespace {

// `nvcc --version` once per nvcc binary (its path, size and time): every check and every build
// of a screen asks, and each answer is a process of ~70 ms on the GPU machine, on the critical
// path of a `kopt bench`. Kept per process and in the cache folder (`toolchain/`), so a later
// kopt asks no more; a replaced nvcc has a new stamp. A name that is not a file here (a test's
// fake) is asked each time.
class NvccVersions {
 public:
  std::optional<std::string> find(const fs::path& nvcc, const fs::path& cache_dir) {
    const std::string key = key_of(nvcc);
    if (key.empty()) return std::nullopt;
    const std::lock_guard lock(mutex_);
    if (const auto found = known_.find(key); found != known_.end()) return found->second;
    if (cache_dir.empty()) return std::nullopt;
    try {
      std::string version = read_file(entry_of(cache_dir, key), 4096);
      if (version.empty()) return std::nullopt;
      return known_[key] = std::move(version);
    } catch (const Error&) {
      return std::nullopt;  // not asked before, or unreadable: ask nvcc
    }
  }
  void remember(const fs::path& nvcc, const fs::path& cache_dir, const std::string& version) {
    const std::string key = key_of(nvcc);
    if (key.empty() || version.empty()) return;
    const std::lock_guard lock(mutex_);
    known_[key] = version;
    if (cache_dir.empty()) return;
    try {
      create_folders(cache_dir / "toolchain");
      write_file_atomic(entry_of(cache_dir, key), version);
    } catch (const Error&) {
      // A cache folder that takes no writes costs the next kopt one more question, nothing else.
    }
  }

 private:
  static std::string key_of(const fs::path& nvcc) {
    const std::string stamp = nvcc.is_absolute() ? file_stamp(nvcc) : "";
    return stamp.empty() ? "" : nvcc.string() + "\n" + stamp;
  }
  static fs::path entry_of(const fs::path& cache_dir, const std::string& key) {
    return cache_dir / "toolchain" / ("nvcc-version-" + content_hash(key).substr(0, 16) + ".txt");
  }
  friend void kopt::build::forget_remembered_nvcc_versions();
  std::mutex mutex_;
  std::map<std::string, std::string> known_;
};

NvccVersions& nvcc_versions() {
  static NvccVersions versions;
  return versions;
}

}  // namespace

void forget_remembered_nvcc_versions() {
  NvccVersions& versions = nvcc_versions();
  const std::lock_guard lock(versions.mutex_);
  versions.known_.clear();
}

const std::string& Compiler::nvcc_version() {
  if (!nvcc_version_.empty()) return nvcc_version_;
  if (std::optional<std::string> known = nvcc_versions().find(nvcc_, cache_dir_)) return nvcc_version_ = *known;
  ProcessResult result = runner_.run({.argv = {nvcc_.string(), "--version"}, .time_limit = std::chrono::seconds(60)});
  if (!result.ok()) throw environment_error("{} --version {}", nvcc_.string(), result.outcome());
  std::istringstream in(result.out);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (line.find("release") != std::string::npos || line.starts_with("Build")) lines.push_back(line);
  }
  for (const std::string& line : lines) nvcc_version_ += (nvcc_version_.empty() ? "" : " / ") + line;
  if (nvcc_version_.empty()) nvcc_version_ = result.out;
  nvcc_versions().remember(nvcc_, cache_dir_, nvcc_version_);
  return nvcc_version_;
}


std::string Compiler::cache_key(const CompileRequest& request) {
  ContentHasher hasher;
  // The shim is linked into the library: a changed shim is a different library.
  hasher.add(kCacheVersion).add(nvcc_version()).add(request.arch).add(data_file("runtime/kopt_shim.cu"))
      .add(data_file("runtime/kopt_input_generator.h"));
  hasher.add(read_file(request.source));
  for (const fs::path& header : local_includes(request.source, request.flags)) {
    hasher.add(header.filename().string()).add(read_file(header));
  }
  for (const std::string& flag : request.flags) hasher.add(flag);
  for (const std::string& flag : request.kopt_flags) hasher.add(flag);
  std::vector<fs::path> dirs = include_dirs_of(request.flags);
  for (const fs::path& dir : include_dirs_of(request.kopt_flags)) dirs.push_back(dir);
  for (const fs::path& dir : dirs) {
    if (std::optional<fs::path> version = cutlass_version_header(dir)) hasher.add(read_file(*version));
  }
  for (const auto& [name, value] : request.defines) hasher.add(name).add(value);
  return hasher.hex();
}

// The shim gives kopt the kernel library's own CUDA runtime state (its last launch error):
// a library linked with its own static cudart keeps that state apart from kopt's.
fs::path Compiler::shim_object(const std::string& arch) {
  const std::string source = data_file("runtime/kopt_shim.cu");
  const std::string generator = data_file("runtime/kopt_input_generator.h");
  const std::string key =
      ContentHasher().add(kCacheVersion).add(nvcc_version()).add(arch).add(source).add(generator).hex();
  fs::path object = cache_dir_ / "build" / ("shim-" + key + ".o");
  if (path_exists(object)) return object;
  TempDir work("shim", cache_dir_ / "build");
  write_file_atomic(work.path() / "kopt_shim.cu", source);
  write_file_atomic(work.path() / "kopt_input_generator.h", generator);
  std::vector<std::string> argv{nvcc_.string(), "-c", "-Xcompiler", "-fPIC", "-O2"};
  for (const std::string& flag : arch_flags(arch)) argv.push_back(flag);
  argv.insert(argv.end(), {"-o", (work.path() / "shim.o").string(), (work.path() / "kopt_shim.cu").string()});
  ProcessResult result = runner_.run({.argv = argv, .time_limit = std::chrono::seconds(300)});
  if (!result.ok()) {
    // The first thing compiled for a target: an arch this nvcc does not know is the input's fault.
    if ((result.err + result.out).find("Unsupported gpu architecture") != std::string::npos) {
      throw input_error("target architecture {}: this nvcc cannot compile for it ({})", arch, result.output_tail(1));
    }
    throw environment_error("nvcc could not compile kopt's runtime shim ({}): {}", result.outcome(),
                            result.output_tail(3));
  }
  move_path(work.path() / "shim.o", object);
  return object;
}

CompileRequest Compiler::with_cutlass_headers(const CompileRequest& request) {
  if (flags_reach_cutlass(request.flags) || flags_reach_cutlass(request.kopt_flags)) return request;
  if (!includes_cutlass(request.source, local_includes(request.source, request.flags))) return request;
  if (!cutlass_flags_) cutlass_flags_ = cutlass_include_flags(cutlass_search_, request.source.filename().string());
  CompileRequest with_headers = request;
  with_headers.kopt_flags.insert(with_headers.kopt_flags.end(), cutlass_flags_->begin(), cutlass_flags_->end());
  return with_headers;
}

BuildOutcome Compiler::compile(const CompileRequest& original) {
  const CompileRequest request = with_cutlass_headers(original);
  // Every caller checks its own arguments where it can name their source; this is the last
  // line before nvcc, whose shell would run what they hold.
  spec::check_compiler_flags(request.flags, "compiler flags");
  for (const auto& [name, value] : request.defines) spec::check_define(name, value, "-D");
  const std::string key = cache_key(request);
  const fs::path entry = cache_dir_ / "build" / key;
  if (path_exists(entry / "build.json") && path_exists(entry / "lib.so")) {
    json recorded = json::parse(read_file(entry / "build.json"));
    BuildArtifact artifact{.library = entry / "lib.so",
                           .key = key,
                           .command = recorded.at("command"),
                           .resources = recorded.at("resources").get<PtxasReport>(),
                           .cache_hit = true,
                           .compile_seconds = recorded.at("compile_seconds")};
    return {.artifact = artifact};
  }

  create_folders(cache_dir_ / "build");
  TempDir work("compile", cache_dir_ / "build");
  std::vector<std::string> argv{nvcc_.string()};
  argv.insert(argv.end(), kDefaultFlags.begin(), kDefaultFlags.end());
  for (const std::string& flag : arch_flags(request.arch)) argv.push_back(flag);
  argv.insert(argv.end(), request.flags.begin(), request.flags.end());
  argv.insert(argv.end(), request.kopt_flags.begin(), request.kopt_flags.end());
  for (const auto& [name, value] : request.defines) argv.push_back("-D" + name + "=" + value);
  argv.insert(argv.end(), {"-o", (work.path() / "lib.so").string(), fs::absolute(request.source).string(),
                           shim_object(request.arch).string()});

  ProcessResult result = runner_.run({.argv = argv, .time_limit = std::chrono::seconds(600)});
  const std::string command = shell_quote_command(argv);
  if (!result.ok()) {
    std::string log = result.err + result.out;
    if (!result.started || result.timed_out || result.signal != 0) log = "nvcc " + result.outcome() + "\n" + log;
    return {.failure = BuildFailure{.command = command, .log = log, .first_error = first_error_line(log)}};
  }
  PtxasReport resources = parse_ptxas_report(result.err);
  json recorded = {{"schema_version", 1},
                   {"key", key},
                   {"source", fs::absolute(request.source).string()},
                   {"arch", request.arch},
                   {"flags", request.flags},
                   {"defines", request.defines},
                   {"nvcc_version", nvcc_version()},
                   {"command", command},
                   {"compile_seconds", result.seconds},
                   {"resources", resources},
                   {"log", result.err}};
  write_file_atomic(work.path() / "build.json", recorded.dump(2));
  // Publish the whole entry with one rename; a concurrent compile of the same key may have
  // won the race, in which case its entry is as good as ours.
  if (try_move_path(work.path(), entry)) work.keep();
  return {.artifact = BuildArtifact{.library = entry / "lib.so",
                                    .key = key,
                                    .command = command,
                                    .resources = std::move(resources),
                                    .cache_hit = false,
                                    .compile_seconds = result.seconds}};
}

}  // namespace kopt::build
