#include "kopt/sass/kernel_sass.hpp"

#include "kopt/core/files.hpp"
#include "kopt/run/device_probe.hpp"
#include "kopt/sass/disassembler.hpp"
#include "kopt/verify/check.hpp"
#include "kopt/spec/python_kernel.hpp"

namespace kopt::sass {

std::string target_arch(const std::string& spec_arch, const std::optional<std::string>& option,
                        const std::function<std::string()>& probe) {
  const std::string known = verify::resolve_arch(spec_arch, option, "");
  return known.empty() ? probe() : known;
}

std::string probe_arch(Context& context, const run::WorkerSettings& worker) {
  TempDir work("probe", context.cache_dir / "tmp");
  return run::probe_device(context.runner, worker, work.path()).device.arch();
}

KernelSassOutcome kernel_sass(Context& context, const KernelSassRequest& request) {
  spec::refuse_python_kernel(request.kernel, "SASS");  // its cubin is in Triton's cache, not a library
  build::Compiler compiler(context);
  build::BuildOutcome build = compiler.compile(
      {.source = request.kernel, .arch = request.arch, .flags = request.flags, .defines = request.defines});
  if (!build.ok()) return {.compile_error = build.failure->first_error};
  SassDump dump = disassemble(context.runner, context.tools.path(Tool::cuobjdump), build.artifact->library);
  SassProfile profile = kernel_profile(dump);
  return {.sass = KernelSass{request.kernel, request.arch, *build.artifact, std::move(dump), std::move(profile)}};
}

KernelSassOutcome problem_sass(Context& context, const spec::Problem& problem,
                               const std::vector<std::pair<std::string, std::string>>& defines,
                               const std::optional<std::string>& arch, const run::WorkerSettings& worker) {
  const std::string target = target_arch(problem.spec.build.arch, arch, [&] { return probe_arch(context, worker); });
  return kernel_sass(context, {problem.spec.kernel, problem.spec.build.flags, defines, target});
}

nlohmann::json kernel_sass_json(const std::string& target, const KernelSass& sass) {
  return {{"kernel", target},
          {"library", sass.build.library.string()},
          {"nvcc_command", sass.build.command},
          {"resources", sass.build.resources},
          {"functions", sass.profile.functions},
          {"unparsed_lines", sass.dump.unparsed}};
}

std::vector<std::pair<const SassFunctionProfile*, const SassFunctionProfile*>> paired_functions(
    const SassProfile& a, const SassProfile& b) {
  std::vector<std::pair<const SassFunctionProfile*, const SassFunctionProfile*>> pairs;
  const bool one_each = a.functions.size() == 1 && b.functions.size() == 1;
  for (const SassFunctionProfile& fa : a.functions) {
    const SassFunctionProfile* fb = one_each ? &b.functions.front() : b.find(fa.name);
    if (fb != nullptr) pairs.emplace_back(&fa, fb);
  }
  return pairs;
}

}  // namespace kopt::sass
