#include "kopt/loop/spread_lab.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "kopt/core/error.hpp"
#include "kopt/core/file_queries.hpp"
#include "kopt/core/files.hpp"
#include "kopt/core/hash.hpp"
#include "kopt/core/parallel_for.hpp"

namespace kopt::loop {
namespace fs = std::filesystem;
using json = nlohmann::json;

std::vector<MeasureRequest> split_request(const MeasureRequest& request, std::size_t variants_per_task) {
  if (request.variants.empty()) throw std::logic_error("split_request: nothing to measure");
  // Only the screen's measurements are spread; the others compare on one GPU.
  const std::size_t per_task = request.spread ? std::max<std::size_t>(variants_per_task, 1) : request.variants.size();
  std::vector<MeasureRequest> parts;
  for (std::size_t begin = 1; begin < request.variants.size() || parts.empty(); begin += per_task) {
    MeasureRequest part = request;
    part.variants = {request.variants.front()};
    part.time_reference = request.time_reference && parts.empty();  // the reference is timed once, by the first task
    const std::size_t end = std::min(request.variants.size(), begin + per_task);
    for (std::size_t i = begin; i < end; ++i) part.variants.push_back(request.variants[i]);
    parts.push_back(std::move(part));
  }
  return parts;
}

namespace {

// One bench report (bench.json's format, which the loop's readers expect) of every part: the
// first part's, with each later part's variants, checks and verdicts after it. Each part's
// first variant and check are the best's again and are left out; verdicts are of the others.
json joined_detail(const std::vector<Measurement>& parts, const json& gpus) {
  json joined = parts.front().detail;
  if (!joined.is_object()) return joined;
  for (std::size_t p = 1; p < parts.size(); ++p) {
    const json& other = parts[p].detail;
    if (!other.is_object()) continue;
    for (const auto& [list, skip] : {std::pair{"variants", 1}, std::pair{"checks", 1}, std::pair{"verdicts", 0}}) {
      if (!other.contains(list) || !joined.contains(list) || !other[list].is_array()) continue;
      for (std::size_t i = static_cast<std::size_t>(skip); i < other[list].size(); ++i) joined[list].push_back(other[list][i]);
    }
  }
  joined["spread"] = {{"tasks", parts.size()}, {"gpus", gpus}};
  return joined;
}

}  // namespace

Measurement join_measurements(const MeasureRequest& request, const std::vector<Measurement>& parts) {
  Measurement joined{.gpu = parts.front().gpu, .reference_median = parts.front().reference_median};
  json gpus = json::array();
  for (const Measurement& part : parts) {
    if (part.outcomes.empty()) throw environment_error("a task's measurement has no outcome");
    if (joined.outcomes.empty()) joined.outcomes.push_back(part.outcomes.front());
    for (std::size_t i = 1; i < part.outcomes.size(); ++i) joined.outcomes.push_back(part.outcomes[i]);
    gpus.push_back(part.gpu);
  }
  if (joined.outcomes.size() != request.variants.size()) {
    throw environment_error("the tasks measured {} variants of {}", joined.outcomes.size(), request.variants.size());
  }
  joined.detail = joined_detail(parts, gpus);
  return joined;
}

json measure_request_to_json(const MeasureRequest& request) {
  return {{"variants", request.variants}, {"time_reference", request.time_reference}, {"witness_ncu", request.witness_ncu},
          {"spread", request.spread}, {"every_case", request.every_case}};
}

MeasureRequest measure_request_from_json(const json& in) {
  return {.variants = in.at("variants").get<std::vector<Variant>>(),
          .time_reference = in.value("time_reference", false),
          .witness_ncu = in.value("witness_ncu", false),
          .spread = in.value("spread", false),
          .every_case = in.value("every_case", false)};
}

json measurement_to_json(const Measurement& m) {
  return {{"outcomes", m.outcomes}, {"gpu", m.gpu}, {"reference_median", m.reference_median ? json(*m.reference_median) : json()},
          {"detail", m.detail}};
}

Measurement measurement_from_json(const json& in) {
  Measurement m{.outcomes = in.at("outcomes").get<std::vector<VariantOutcome>>(), .gpu = in.value("gpu", json())};
  if (in.contains("reference_median") && in["reference_median"].is_number()) m.reference_median = in["reference_median"].get<double>();
  m.detail = in.value("detail", json());
  return m;
}

namespace {

// Slurm's time format: minutes:seconds.
std::string slurm_time(std::chrono::seconds limit) {
  const long long s = std::max<long long>(limit.count(), 1);
  return fmt::format("{}:{:02}", s / 60, s % 60);
}

fs::path job_file(const fs::path& dir, std::size_t task) { return dir / fmt::format("part_{}.json", task); }
fs::path result_file(const fs::path& dir, std::size_t task) { return dir / fmt::format("part_{}.result.json", task); }
fs::path log_file(const fs::path& dir, std::size_t task) { return dir / fmt::format("part_{}.log", task); }

std::optional<Measurement> result_of(const fs::path& dir, std::size_t task) {
  if (!path_exists(result_file(dir, task))) return std::nullopt;
  try {
    return measurement_from_json(json::parse(read_file(result_file(dir, task))));
  } catch (const std::exception&) {
    return std::nullopt;  // half a file from a killed node: measured again
  }
}

// The last line the task's log holds: what Slurm or kopt said as it ended.
std::string last_log_line(const fs::path& dir, std::size_t task) {
  if (!path_exists(log_file(dir, task))) return "no log: it never started";
  std::string text = read_file(log_file(dir, task));
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  const std::size_t newline = text.rfind('\n');
  const std::string last = newline == std::string::npos ? text : text.substr(newline + 1);
  return last.empty() ? "an empty log" : last;
}

}  // namespace

std::vector<std::string> sbatch_command(const SlurmSettings& settings, const fs::path& dir, const std::string& job_name,
                                        const std::vector<std::size_t>& tasks) {
  std::string array;
  for (std::size_t task : tasks) array += (array.empty() ? "" : ",") + std::to_string(task);
  std::vector<std::string> argv = {"sbatch", "--parsable", "--wait", "--array=" + array, "--job-name=" + job_name,
                                   "--output=" + (dir / "part_%a.log").string(), "--time=" + slurm_time(settings.wait)};
  if (!settings.partition.empty()) argv.push_back("--partition=" + settings.partition);
  if (settings.gpus_per_task > 0) argv.push_back(fmt::format("--gres=gpu:{}", settings.gpus_per_task));
  // Expanded by the node's shell, one task each.
  argv.push_back("--wrap=exec " + shell_quote_command({settings.kopt.string(), "lab-job"}) + " " +
                 shell_quote_command({(dir / "part_").string()}) + "${SLURM_ARRAY_TASK_ID}.json " +
                 shell_quote_command({(dir / "part_").string()}) + "${SLURM_ARRAY_TASK_ID}.result.json");
  return argv;
}

std::string SlurmExecutor::run(const fs::path& dir, const std::string& job_name, const std::vector<std::size_t>& tasks) {
  ProcessResult sbatch = runner_.run({.argv = sbatch_command(settings_, dir, job_name, tasks),
                                      .time_limit = settings_.wait + std::chrono::seconds(5)});
  if (!sbatch.started) throw environment_error("sbatch could not be started: is Slurm installed here? ({})", sbatch.err);
  if (sbatch.timed_out) {
    runner_.run({.argv = {"scancel", "--name=" + job_name}, .time_limit = std::chrono::seconds(30)});
    return fmt::format("not done within --slurm-time ({} s): cancelled", settings_.wait.count());
  }
  return sbatch.ok() ? "" : fmt::format("sbatch: {}", sbatch.output_tail(2));
}

DeviceExecutor::DeviceExecutor(ProcessRunner& runner, std::vector<int> devices, fs::path kopt, std::chrono::seconds limit)
    : runner_(runner), devices_(std::move(devices)), kopt_(std::move(kopt)), limit_(limit) {
  if (devices_.empty()) throw input_error("--devices names no GPU");
}

std::string DeviceExecutor::run(const fs::path& dir, const std::string&, const std::vector<std::size_t>& tasks) {
  // One thread per GPU takes the tasks dealt to it in turn: never two tasks on one GPU at once.
  std::mutex ended_mutex;
  std::string ended;
  parallel_for(
      devices_.size(),
      [&](std::size_t d) {
        for (std::size_t k = d; k < tasks.size(); k += devices_.size()) {
          const std::size_t t = tasks[k];
          const ProcessResult r = runner_.run(
              {.argv = {kopt_.string(), "lab-job", job_file(dir, t).string(), result_file(dir, t).string(), "--device",
                        std::to_string(devices_[d])},
               .time_limit = limit_});
          write_file_atomic(log_file(dir, t), r.out + r.err);
          if (r.timed_out) {
            const std::lock_guard lock(ended_mutex);
            ended = fmt::format("a task ran past {} s and was stopped", limit_.count());
          }
        }
      },
      static_cast<unsigned>(devices_.size()));
  return ended;
}

std::vector<int> parse_devices(const std::string& list) {
  std::vector<int> devices;
  std::set<int> seen;
  for (std::size_t begin = 0; begin <= list.size();) {
    const std::size_t comma = std::min(list.find(',', begin), list.size());
    const std::string item = list.substr(begin, comma - begin);
    if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos || item.size() > 3) {
      throw input_error("--devices {}: expected GPU indices such as 0,1 (or all)", list);
    }
    const int device = std::stoi(item);
    if (!seen.insert(device).second) throw input_error("--devices {}: GPU {} is named twice", list, device);
    devices.push_back(device);
    begin = comma + 1;
  }
  return devices;
}

void require_one_model(const std::vector<int>& devices, const std::vector<std::string>& names) {
  for (std::size_t i = 1; i < names.size(); ++i) {
    if (names[i] != names[0]) {
      throw input_error("--devices: GPU {} is a {} and GPU {} a {}: one run compares times on one model of GPU only",
                        devices.at(0), names[0], devices.at(i), names[i]);
    }
  }
}

std::vector<int> host_devices(ProcessRunner& runner, const std::string& list) {
  const ProcessResult smi = runner.run({.argv = {"nvidia-smi", "--query-gpu=index,name", "--format=csv,noheader"},
                                        .time_limit = std::chrono::seconds(30)});
  if (!smi.ok()) throw environment_error("--devices: nvidia-smi could not list this host's GPUs ({})", smi.outcome());
  std::map<int, std::string> names;  // "0, NVIDIA H200" per line
  std::istringstream lines(smi.out);
  for (std::string line; std::getline(lines, line);) {
    const std::size_t comma = line.find(',');
    if (comma != std::string::npos) names[std::stoi(line.substr(0, comma))] = line.substr(line.find_first_not_of(' ', comma + 1));
  }
  std::vector<int> devices;
  if (list == "all") {
    for (const auto& [index, name] : names) devices.push_back(index);
  } else {
    devices = parse_devices(list);
  }
  std::vector<std::string> models;
  for (int d : devices) {
    if (!names.contains(d)) throw input_error("--devices {}: this host has no GPU {}", list, d);
    models.push_back(names[d]);
  }
  require_one_model(devices, models);
  return devices;
}

SpreadLab::SpreadLab(std::unique_ptr<Lab> local, std::unique_ptr<TaskExecutor> executor, SpreadSettings settings)
    : local_(std::move(local)), executor_(std::move(executor)), settings_(std::move(settings)) {
  if (settings_.stage.empty()) throw input_error("spread measurements need a stage folder for their tasks' files");
}

Measurement SpreadLab::spread(const std::string& kind, const MeasureRequest& request) {
  const std::vector<MeasureRequest> parts = split_request(request, settings_.variants_per_task);
  std::vector<json> jobs;
  ContentHasher key;
  for (const MeasureRequest& part : parts) {
    jobs.push_back({{"schema", "kopt.lab_job/1"}, {"kind", kind}, {"lab", settings_.lab}, {"request", measure_request_to_json(part)}});
    key.add(jobs.back().dump());
  }
  // Keyed by content: the same measurement asked again (a resumed close) finds its results.
  const std::string hash = key.hex().substr(0, 16);
  const fs::path dir = fs::absolute(settings_.stage) / (kind + "-" + hash);
  std::vector<std::size_t> missing;
  for (std::size_t t = 0; t < parts.size(); ++t) {
    if (result_of(dir, t)) continue;
    write_file_atomic(job_file(dir, t), jobs[t].dump(2) + "\n");
    remove_file(log_file(dir, t));
    missing.push_back(t);
  }
  const std::string how_it_ended = missing.empty() ? "" : executor_->run(dir, "kopt-" + hash, missing);
  std::vector<Measurement> measured;
  std::vector<std::string> lost;
  for (std::size_t t = 0; t < parts.size(); ++t) {
    if (std::optional<Measurement> m = result_of(dir, t)) measured.push_back(std::move(*m));
    else lost.push_back(fmt::format("task {} ({})", t, last_log_line(dir, t)));
  }
  if (!lost.empty()) {
    std::string list;
    for (const std::string& l : lost) list += (list.empty() ? "" : "; ") + l;
    throw environment_error("{} of {} tasks of this {} ended without a result{}: {}. The others' results are kept "
                            "in {}: run the same command again to run only those",
                            lost.size(), parts.size(), kind, how_it_ended.empty() ? "" : " (" + how_it_ended + ")", list,
                            dir.string());
  }
  return join_measurements(request, measured);
}

json run_lab_job(Lab& lab, const json& job) {
  if (job.value("schema", "") != "kopt.lab_job/1") throw input_error("not a lab job (schema kopt.lab_job/1)");
  const MeasureRequest request = measure_request_from_json(job.at("request"));
  const std::string kind = job.at("kind");
  if (kind == "measure") return measurement_to_json(lab.measure(request));
  if (kind == "first_look") return measurement_to_json(lab.first_look(request));
  throw input_error("a lab job of unknown kind \"{}\" (known: measure, first_look)", kind);
}

}  // namespace kopt::loop
