// From the command line's KERNEL to a Problem: which spec, which kernel, and what a
// spec-less run assumes.

#include "kopt/core/error.hpp"
#include "kopt/core/file_queries.hpp"
#include "kopt/core/files.hpp"
#include "kopt/spec/problem_spec.hpp"
#include "kopt/spec/python_facts.hpp"
#include "kopt/spec/python_kernel.hpp"

namespace kopt::spec {
namespace {

namespace fs = std::filesystem;

// Paths in messages: relative to the current folder when below it, else absolute.
std::string display_path(const fs::path& path) {
  const fs::path here = working_folder();
  fs::path relative = here.empty() ? fs::path() : path.lexically_relative(here);
  if (relative.empty() || *relative.begin() == "..") return path.string();
  return relative.string();
}

// The seed benchmark's tolerances, used for the one a ref.py leaves out when it sets the other.
constexpr Tolerance kSeedTolerance{.atol = 1e-4, .rtol = 1e-3};

// A seed task folder's ref.py may set module-level atol and rtol; they are its tolerance.
void take_reference_tolerance(ProblemSpec& spec) {
  ReferenceTolerance own = reference_tolerance(*spec.reference);
  if (!own.atol && !own.rtol) return;  // the dtype's defaults (docs/check.md), not a guess
  for (auto [name, value] : {std::pair{"atol", own.atol}, std::pair{"rtol", own.rtol}}) {
    if (value && !(*value >= 0)) throw input_error("{}: {} = {} must be >= 0", spec.reference->filename().string(), name, *value);
  }
  spec.tolerance = Tolerance{.atol = own.atol.value_or(kSeedTolerance.atol), .rtol = own.rtol.value_or(kSeedTolerance.rtol)};
  spec.guesses.push_back(fmt::format("tolerance: atol {} rtol {} ({}; no kopt.toml gives one)", spec.tolerance->atol,
                                     spec.tolerance->rtol,
                                     own.atol && own.rtol ? "ref.py's own"
                                                          : "ref.py's own, the other the seed benchmark's default"));
}

// A folder without kopt.toml is a seed task folder when it holds one kernel: the one .cu file,
// or the one .py that defines solve (a Triton kernel; not a helper script), that is not a
// reference (ref.*, reference.*).
bool is_task_kernel(const fs::path& path) {
  if (path.stem() == "ref" || path.stem() == "reference") return false;
  if (path.extension() == ".cu") return true;
  return is_python_kernel(path) && is_file(path) && defines_python_solve(read_file(path));
}

fs::path kernel_of_task_folder(const fs::path& folder) {
  std::vector<fs::path> kernels;
  for (const fs::path& path : folder_entries(folder)) {
    if (is_task_kernel(path)) kernels.push_back(path);
  }
  if (kernels.size() == 1) return kernels[0];
  if (kernels.empty()) {
    throw input_error("{}: no kopt.toml and no kernel (a .cu, or a .py that defines solve) in this folder; name a "
                      "kernel file or give --spec",
                      folder.string());
  }
  std::string names;
  for (const fs::path& kernel : kernels) names += (names.empty() ? "" : ", ") + kernel.filename().string();
  throw input_error("{}: no kopt.toml and several kernels ({}); name one of them", folder.string(), names);
}

ProblemSpec spec_less_problem(const fs::path& kernel) {
  ProblemSpec spec;
  spec.kernel = fs::absolute(kernel).lexically_normal();
  spec.directory = spec.kernel.parent_path();
  spec.name = spec.kernel.stem().string();
  spec.cases = {ProblemCase{"default", {}}};
  spec.guesses.push_back(fmt::format("no kopt.toml beside {}: problem \"{}\" with one case, \"default\"",
                                     spec.kernel.filename().string(), spec.name));
  for (std::string_view name : {"ref.cu", "ref.py", "reference.cu", "reference.py"}) {
    fs::path candidate = spec.directory / name;
    if (candidate != spec.kernel && is_file(candidate)) {
      spec.reference = candidate;
      spec.guesses.push_back(fmt::format("reference: {} (found beside the kernel)", name));
      if (candidate.extension() == ".py") {
        spec.seed_task = true;
        spec.guesses.push_back(
            "seed task folder (a kernel and ref.py, no kopt.toml): buffers sized from the integer dims as the seed's "
            "benchmark sizes them, outputs start at zero");
        take_reference_tolerance(spec);
      }
      return spec;
    }
  }
  spec.guesses.push_back(
      "no reference (no ref.cu, ref.py, reference.cu or reference.py beside the kernel): checks will cover "
      "determinism, unwritten outputs and input integrity only");
  return spec;
}

}  // namespace

namespace {

// A kopt.toml that is there but is no regular file (a FIFO, a folder, a device) is read all
// the same, so that reading it refuses it by name, rather than being passed over as if absent
// and the kernel run without its spec.
bool spec_file_at(const fs::path& toml) { return path_exists(toml); }

}  // namespace

ProblemSpec locate_problem(const fs::path& target, const std::optional<fs::path>& spec_override) {
  const fs::path path = target.empty() ? fs::path(".") : target;
  if (!path_exists(path)) {
    // A symlink loop or an unreadable parent is not "no such file": say what it is.
    if (const std::string why = lookup_error(path); !why.empty()) throw input_error("{}: {}", path.string(), why);
    throw input_error("{}: no such file or folder", path.string());
  }
  const bool folder_given = is_folder(path);
  if (spec_override) {
    if (folder_given) return load_problem_spec(*spec_override);
    if (path.extension() != ".cu" && !is_python_kernel(path)) {
      throw input_error("{}: with --spec, name a .cu or a Triton .py kernel", path.string());
    }
    return load_problem_spec(*spec_override, path);
  }
  if (folder_given) {
    fs::path toml = path / "kopt.toml";
    if (!spec_file_at(toml)) return spec_less_problem(kernel_of_task_folder(path));
    return load_problem_spec(toml);
  }
  if (path.extension() == ".toml") return load_problem_spec(path);
  if (path.extension() != ".cu" && !is_python_kernel(path)) {
    throw input_error("{}: expected a .cu kernel, a Triton .py kernel, a kopt.toml or a folder holding one",
                      path.string());
  }
  fs::path beside = path.parent_path() / "kopt.toml";
  if (spec_file_at(beside)) return load_problem_spec(beside, path);
  return spec_less_problem(path);
}

Problem load_problem(const fs::path& target, const std::optional<fs::path>& spec_override,
                     const Dims& dim_overrides) {
  ProblemSpec spec = locate_problem(target, spec_override);
  // A Triton kernel's signature is the C prototype its annotations spell (python_kernel.hpp).
  const std::string source = is_python_kernel(spec.kernel)
                                 ? python_solve_prototype(read_file(spec.kernel), display_path(spec.kernel), spec.entry)
                                 : read_file(spec.kernel);
  KernelSignature signature = parse_kernel_signature(source, display_path(spec.kernel), spec.entry);
  return bind_problem(std::move(spec), std::move(signature), dim_overrides);
}

}  // namespace kopt::spec
