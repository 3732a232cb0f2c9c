// Confirms every sm_90 signature of data/sass_signatures.toml on real machine code: the
// kernels of sm90.cu (sm_90) and sm90a.cu (sm_90a) are compiled with nvcc, disassembled with
// cuobjdump and parsed; each signature must match its own kernels sig_<id>[__<variant>], miss
// its kernels without the method (without_<id>[__<variant>]: sm90_deceptive.cu's imitate the
// method; without_<id> is required for an absence or ratio check) and,
// unless it checks an absence or a ratio, miss every control kernel. sm90.cu compiled for sm_100 checks the same spellings there. Exit 77 (skipped)
// only when nvcc or cuobjdump is absent. The bundled CUTLASS BF16 GEMM (examples/) is compiled
// as its kopt.toml says, with the headers kopt finds, and must show the Hopper signatures.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>

#include "kopt/build/compiler.hpp"
#include "kopt/build/cutlass_headers.hpp"
#include "kopt/catalog/method_catalog.hpp"
#include "kopt/catalog/sass_signature.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/sass/disassembler.hpp"
#include "kopt/spec/problem_spec.hpp"

namespace kopt::catalog {
namespace {

const std::string kSources = KOPT_SIGNATURE_KERNELS_DIR;
const std::string kExamples = KOPT_EXAMPLES_DIR;

// Function name → profile, for one source compiled for one target.
std::map<std::string, sass::SassFunctionProfile> compile_and_disassemble(const std::string& source,
                                                                         const std::string& target,
                                                                         const std::vector<std::string>& flags = {}) {
  static TempDir work("sass-signatures");
  static int compiled = 0;
  SystemProcessRunner runner;
  const std::string cubin = (work.path() / (target + "-" + std::to_string(++compiled) + ".cubin")).string();
  ProcessSpec spec{.argv = {build::find_nvcc().string(), "-cubin", "-arch=" + target, "-o", cubin},
                   .time_limit = std::chrono::seconds(300)};
  spec.argv.insert(spec.argv.end(), flags.begin(), flags.end());
  spec.argv.push_back(source.starts_with("/") ? source : kSources + "/" + source);
  ProcessResult result = runner.run(spec);
  if (!result.ok()) throw std::runtime_error("nvcc failed: " + result.output_tail(20));
  const sass::SassDump dump = sass::disassemble(runner, sass::find_cuobjdump(), cubin);
  EXPECT_TRUE(dump.unparsed.empty()) << target << ": " << dump.unparsed.size() << " unparsed lines, first: "
                                     << (dump.unparsed.empty() ? "" : dump.unparsed.front().text);
  std::map<std::string, sass::SassFunctionProfile> functions;
  for (const sass::SassFunctionProfile& f : sass::kernel_profile(dump).functions) functions[f.name] = f;
  return functions;
}

const std::map<std::string, sass::SassFunctionProfile>& kernels_for(int arch) {
  static std::map<int, std::map<std::string, sass::SassFunctionProfile>> compiled;
  if (!compiled.contains(arch)) {
    auto& functions = compiled[arch];
    functions = compile_and_disassemble("sm90.cu", arch == 90 ? "sm_90" : "sm_100");
    functions.merge(compile_and_disassemble("sm90_deceptive.cu", arch == 90 ? "sm_90" : "sm_100"));
    if (arch == 90) functions.merge(compile_and_disassemble("sm90a.cu", "sm_90a"));
  }
  return compiled.at(arch);
}

// A signature that checks an absence, a count ratio, a loop body or a data-flow fact: plain
// code may carry it (a control has no LDL, fuses its multiply-add, loads coalesced), so it is
// held against its method's absence instead.
bool structural(const ArchSignature& signature) {
  return !signature.none.empty() || signature.ratio.has_value() || signature.loop.has_value() ||
         !signature.structure.empty();
}

// Every kernel named <prefix><id> or <prefix><id>__<what>: sig_ shows the method, without_
// lacks it (a deceptive without_<id>__<what> looks like it: a long body with no loop).
std::vector<const sass::SassFunctionProfile*> kernels_named(const std::map<std::string, sass::SassFunctionProfile>& kernels,
                                                            const std::string& prefix, const std::string& id) {
  std::vector<const sass::SassFunctionProfile*> with;
  for (const auto& [name, profile] : kernels) {
    if (name == prefix + id || name.starts_with(prefix + id + "__")) with.push_back(&profile);
  }
  return with;
}

void expect_missing_in(const SignatureTable& table, const std::string& id, const sass::SassFunctionProfile& kernel,
                       int arch) {
  EXPECT_EQ(match_signature(table, id, {kernel}, arch).status, SignatureStatus::missing)
      << "sm_" << arch << " " << id << " matches " << kernel.name;
}

void check_every_signature(int arch) {
  const SignatureTable table = load_sass_signatures();
  const auto& kernels = kernels_for(arch);
  int confirmed = 0;
  for (const auto& [id, signature] : table.signatures) {
    if (signature.for_arch(arch) == nullptr) continue;
    const std::vector<const sass::SassFunctionProfile*> with = kernels_named(kernels, "sig_", id);
    if (with.empty()) {
      // Every sm_90 signature has a kernel; on sm_100 only those sm90.cu can build (not sm_90a's).
      EXPECT_NE(arch, 90) << "no kernel sig_" << id << " in tests/sass_signatures/";
      continue;
    }
    for (const sass::SassFunctionProfile* own : with) {
      const SignatureMatch match = match_signature(table, id, {*own}, arch);
      EXPECT_EQ(match.status, SignatureStatus::found) << "sm_" << arch << " " << own->name << ": " << match.reason;
    }
    const auto without = kernels.find("without_" + id);
    for (const sass::SassFunctionProfile* lacking : kernels_named(kernels, "without_", id)) {
      expect_missing_in(table, id, *lacking, arch);
    }
    if (structural(*signature.for_arch(arch))) {
      EXPECT_NE(without, kernels.end()) << id << " checks a structure or an absence: it needs a kernel without_" << id;
    } else {
      for (const char* control : {"control_plain", "reduce_red_kernel", "control_plain_90a"}) {
        const auto plain = kernels.find(control);
        if (plain != kernels.end()) expect_missing_in(table, id, plain->second, arch);
      }
    }
    ++confirmed;
  }
  std::printf("sm_%d: %d signatures confirmed on compiled kernels\n", arch, confirmed);
}

TEST(SignatureKernels, EverySm90SignatureMatchesItsKernelAndNoControl) { check_every_signature(90); }

TEST(SignatureKernels, TheSameSpellingsHoldOnSm100) { check_every_signature(100); }

// The CUTLASS example's only kernel (CUTLASS's device_kernel<...>) with -D overrides, compiled
// with its spec's flags and the CUTLASS headers kopt finds; none: skipped, saying why.
std::optional<sass::SassFunctionProfile> cutlass_example_kernel(const std::vector<std::string>& defines) {
  const spec::ProblemSpec spec = spec::load_problem_spec(kExamples + "/cutlass_gemm_bf16/kopt.toml");
  SystemProcessRunner runner;
  std::vector<std::string> flags = spec.build.flags;
  if (!build::flags_reach_cutlass(flags)) {
    for (const std::string& flag : build::cutlass_include_flags(build::system_cutlass_search(runner), "kernel.cu")) {
      flags.push_back(flag);
    }
  }
  flags.insert(flags.end(), defines.begin(), defines.end());
  auto functions = compile_and_disassemble(spec.kernel.string(), spec.build.arch, flags);
  for (auto& [name, profile] : functions) {
    if (name.find("device_kernel") != std::string::npos) return profile;
  }
  return std::nullopt;
}

void expect_signatures(const sass::SassFunctionProfile& kernel, const std::vector<std::string>& ids,
                       const std::string& variant, SignatureStatus expected = SignatureStatus::found) {
  const SignatureTable table = load_sass_signatures();
  for (const std::string& id : ids) {
    const SignatureMatch match = match_signature(table, id, {kernel}, 90);
    EXPECT_EQ(match.status, expected) << variant << " " << id << ": " << match.reason;
  }
}

TEST(SignatureKernels, TheCutlassGemmShowsTheHopperMechanisms) {
  std::optional<sass::SassFunctionProfile> kernel;
  try {
    kernel = cutlass_example_kernel({});
  } catch (const Error& e) {
    GTEST_SKIP() << e.what();
  }
  ASSERT_TRUE(kernel.has_value()) << "no device_kernel in the CUTLASS example's cubin";
  // Cooperative warp-specialised mainloop: wgmma fed by TMA over mbarriers, setmaxnreg.
  expect_signatures(*kernel, {"wgmma", "tma_load", "mbarrier", "setmaxnreg"}, "default");
  // One block per cluster and BF16: no cluster barrier, no multicast, no FP8.
  expect_signatures(*kernel, {"cluster_barrier", "tma_multicast", "wgmma_fp8"}, "default", SignatureStatus::missing);
}

TEST(SignatureKernels, TheCutlassGemmInA2x1ClusterMulticastsItsLoads) {
  std::optional<sass::SassFunctionProfile> kernel;
  try {
    kernel = cutlass_example_kernel({"-DCLUSTER_M=2", "-DSCHEDULE=2"});
  } catch (const Error& e) {
    GTEST_SKIP() << e.what();
  }
  ASSERT_TRUE(kernel.has_value());
  expect_signatures(*kernel, {"wgmma", "tma_multicast", "cluster_barrier", "setmaxnreg"}, "2x1 cluster, ping-pong");
}

TEST(SignatureKernels, EveryCatalogSignatureExists) {
  const SignatureTable table = load_sass_signatures();
  for (const Method& method : load_method_catalog().methods) {
    if (method.signature != kNotVerifiable) EXPECT_NE(table.find(method.signature), nullptr) << method.id;
  }
}

}  // namespace
}  // namespace kopt::catalog

int main(int argc, char** argv) {
  try {
    (void)kopt::build::find_nvcc();
    (void)kopt::sass::find_cuobjdump();
  } catch (const kopt::Error& e) {
    std::printf("SKIPPED: %s\n", e.what());
    return 77;
  }
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
