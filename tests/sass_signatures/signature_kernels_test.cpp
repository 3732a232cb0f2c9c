// Confirms every sm_90 signature of data/sass_signatures.toml on real machine code: the
// kernels of sm90.cu (sm_90) and sm90a.cu (sm_90a) are compiled with nvcc, disassembled with
// cuobjdump and parsed; each signature must match its own kernel sig_<id> and no control
// kernel. sm90.cu compiled for sm_100 checks the same spellings there. Exit 77 (skipped)
// only when nvcc or cuobjdump is absent.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>

#include "kopt/build/compiler.hpp"
#include "kopt/catalog/method_catalog.hpp"
#include "kopt/catalog/sass_signature.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/sass/disassembler.hpp"

namespace kopt::catalog {
namespace {

const std::string kSources = KOPT_SIGNATURE_KERNELS_DIR;

// Function name → profile, for one source compiled for one target.
std::map<std::string, sass::SassFunctionProfile> compile_and_disassemble(const std::string& source,
                                                                         const std::string& target) {
  static TempDir work("sass-signatures");
  SystemProcessRunner runner;
  const std::string cubin = (work.path() / (target + ".cubin")).string();
  ProcessSpec spec{.argv = {build::find_nvcc().string(), "-cubin", "-arch=" + target, "-o", cubin, kSources + "/" + source},
                   .time_limit = std::chrono::seconds(300)};
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
    if (arch == 90) functions.merge(compile_and_disassemble("sm90a.cu", "sm_90a"));
  }
  return compiled.at(arch);
}

void check_every_signature(int arch) {
  const SignatureTable table = load_sass_signatures();
  const auto& kernels = kernels_for(arch);
  int confirmed = 0;
  for (const auto& [id, signature] : table.signatures) {
    if (signature.for_arch(arch) == nullptr) continue;
    const auto own = kernels.find("sig_" + id);
    if (own == kernels.end()) {
      // Every sm_90 signature has a kernel; on sm_100 only those sm90.cu can build (not sm_90a's).
      EXPECT_NE(arch, 90) << "no kernel sig_" << id << " in tests/sass_signatures/";
      continue;
    }
    const SignatureMatch match = match_signature(table, id, {own->second}, arch);
    EXPECT_EQ(match.status, SignatureStatus::found) << "sm_" << arch << " " << id << ": " << match.reason;
    for (const char* control : {"control_plain", "reduce_red_kernel", "control_plain_90a"}) {
      const auto plain = kernels.find(control);
      if (plain == kernels.end()) continue;
      EXPECT_EQ(match_signature(table, id, {plain->second}, arch).status, SignatureStatus::missing)
          << "sm_" << arch << " " << id << " matches the control kernel " << control;
    }
    ++confirmed;
  }
  std::printf("sm_%d: %d signatures confirmed on compiled kernels\n", arch, confirmed);
}

TEST(SignatureKernels, EverySm90SignatureMatchesItsKernelAndNoControl) { check_every_signature(90); }

TEST(SignatureKernels, TheSameSpellingsHoldOnSm100) { check_every_signature(100); }

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
