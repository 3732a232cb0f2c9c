// manifest.json of a PyTorch export: roles, shapes, dims (inferred from an input's axis, a
// keyword, or fixed at the value the kernel was built for), cases and provenance.
#include "kopt/export/torch_manifest.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"

namespace kopt::exporting {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using ::testing::HasSubstr;

spec::Problem example(const std::string& name) {
  return spec::load_problem(fs::path(KOPT_SOURCE_DIR) / "examples" / name, std::nullopt, {});
}

const json& entry_named(const json& list, const std::string& name) {
  for (const json& entry : list) {
    if (entry.at("name") == name) return entry;
  }
  throw std::runtime_error("no entry " + name);
}

TEST(TorchManifest, VectorAddTakesTwoInputsReturnsOneOutputAndReadsNFromA) {
  const spec::Problem problem = example("vector_add");
  const json manifest =
      torch_manifest(problem, "vector_add", {.kind = "cuda", .file = "libvector_add.so", .arch = "sm_90a"});
  EXPECT_EQ(manifest.at("schema"), "kopt.torch_export/1");
  EXPECT_EQ(manifest.at("qualified_name"), "kopt::vector_add");
  EXPECT_EQ(manifest.at("library"), "libvector_add.so");
  EXPECT_TRUE(manifest.at("kernel_py").is_null());
  EXPECT_EQ(manifest.at("arch"), "sm_90a");
  const json& params = manifest.at("parameters");
  ASSERT_EQ(params.size(), 4u);
  EXPECT_EQ(params[0], (json{{"name", "A"}, {"role", "input"}, {"dtype", "float32"}, {"torch_dtype", "float32"},
                              {"c_type", "const float* A"}, {"shape", {"N"}}, {"zero_init", false}}));
  EXPECT_EQ(params[2].at("role"), "output");
  EXPECT_EQ(params[2].at("tolerance"), (json{{"atol", 1e-6}, {"rtol", 1e-6}}));
  EXPECT_EQ(params[3], (json{{"name", "N"}, {"role", "scalar"}, {"dtype", "int32"}, {"torch_dtype", "int32"},
                              {"c_type", "int N"}, {"dim", "N"}}));
  EXPECT_EQ(manifest.at("dims"), (json::array({{{"name", "N"}, {"type", "int"}, {"parameter", true},
                                                 {"from", {{"buffer", "A"}, {"axis", 0}}}, {"fixed", nullptr}}})));
  ASSERT_EQ(manifest.at("cases").size(), 3u);
  EXPECT_EQ(manifest.at("cases")[1].at("dims"), (json{{"N", 1000003}}));
}

class SpecFolder : public ::testing::Test {
 protected:
  TempDir dir{"torch-manifest-test"};
  spec::Problem load(const std::string& signature, const std::string& toml) {
    write_file_atomic(dir.path() / "k.cu", "extern \"C\" void solve(" + signature + ") {}\n");
    write_file_atomic(dir.path() / "kopt.toml", "kernel = \"k.cu\"\nname = \"my-op 2\"\n" + toml);
    return spec::load_problem(dir.path(), std::nullopt, {});
  }
};

TEST_F(SpecFolder, AnInOutBufferAZeroStartOutputAKeywordAFixedAndAFloatDim) {
  const spec::Problem problem = load(
      "const __nv_fp8_e4m3* x, const float* w, float* y, float* acc, int M, long long K, float alpha",
      "[dims]\nM = 4\nK = 8\nD = 16\nalpha = 0.5\n"
      "[buffers.x]\nshape = [\"M\", \"K\"]\n[buffers.w]\nshape = \"K*D\"\n"
      "[buffers.y]\nshape = [\"M\", \"D\"]\ninit = \"zeros\"\n[buffers.acc]\nshape = \"M\"\ninit = \"normal\"\n");
  const json manifest = torch_manifest(problem, "mixed", {.kind = "cuda", .file = "libmixed.so"});
  const json& params = manifest.at("parameters");
  EXPECT_EQ(entry_named(params, "x").at("torch_dtype"), "float8_e4m3fn");
  EXPECT_EQ(entry_named(params, "w").at("shape"), (json{"K*D"}));
  EXPECT_EQ(entry_named(params, "y").at("role"), "output");
  EXPECT_EQ(entry_named(params, "y").at("zero_init"), true);
  EXPECT_EQ(entry_named(params, "acc").at("role"), "in-out");
  EXPECT_EQ(entry_named(params, "K").at("dtype"), "int64");
  const json& dims = manifest.at("dims");
  EXPECT_EQ(entry_named(dims, "M").at("from"), (json{{"buffer", "x"}, {"axis", 0}}));
  // K is x's second axis: read from it, though w's flat K*D could not say it.
  EXPECT_EQ(entry_named(dims, "K").at("from"), (json{{"buffer", "x"}, {"axis", 1}}));
  EXPECT_EQ(entry_named(dims, "D").at("parameter"), false);
  EXPECT_EQ(entry_named(dims, "D").at("fixed"), 16);  // solve does not take D: it was built for 16
  EXPECT_TRUE(entry_named(dims, "D").at("from").is_null());
  EXPECT_EQ(entry_named(dims, "alpha").at("type"), "float");
  EXPECT_TRUE(entry_named(dims, "alpha").at("from").is_null());  // a float is never an axis
  EXPECT_TRUE(manifest.at("nvcc").at("version").is_string());
}

TEST_F(SpecFolder, ADimNoInputShowsIsAKeywordAndOneTheCasesVaryIsNotFixed) {
  const spec::Problem problem = load("const float* x, float* y, int N, int S",
                                     "[dims]\nN = 4\nS = 2\nP = 3\n[[cases]]\nP = 5\n"
                                     "[buffers.x]\nshape = \"N*P\"\n[buffers.y]\nshape = \"N*S\"\n");
  const json dims = manifest_dims(problem);
  EXPECT_TRUE(entry_named(dims, "N").at("from").is_null());
  EXPECT_TRUE(entry_named(dims, "P").at("fixed").is_null());  // 3 in one case, 5 in the other
  EXPECT_TRUE(entry_named(dims, "S").at("from").is_null());   // only the output's shape says it
  EXPECT_EQ(parameter_role(*problem.signature.find("y"), problem.spec), "output");
}

TEST_F(SpecFolder, ALoneSizeParameterSizesABufferWithoutAShape) {
  const spec::Problem problem = load("const float* x, float* y, int n", "[dims]\nn = 7\n");
  EXPECT_EQ(shape_expressions(*problem.signature.find("x"), problem), (std::vector<std::string>{"n"}));
  EXPECT_EQ(manifest_dims(problem)[0].at("from"), (json{{"buffer", "x"}, {"axis", 0}}));
}

TEST(TorchManifest, TheProvenanceSaysWhatWasBuiltFromWhat) {
  const spec::Problem problem = example("vector_add");
  const json manifest = torch_manifest(
      problem, "v", {.kind = "cuda", .file = "libv.so", .arch = "sm_90", .nvcc_version = "release 13.0",
                     .nvcc_command = "nvcc ...", .flags = {"-lineinfo"}, .defines = {{"THREADS", "512"}},
                     .source_digest = "abc", .run = fs::path("/runs/r1"), .variant = "iter2/champion"});
  EXPECT_EQ(manifest.at("defines"), json::array({json::array({"THREADS", "512"})}));
  EXPECT_EQ(manifest.at("flags"), (json{"-lineinfo"}));
  EXPECT_EQ(manifest.at("nvcc"), (json{{"version", "release 13.0"}, {"command", "nvcc ..."}}));
  EXPECT_EQ(manifest.at("kopt_version"), KOPT_VERSION);
  EXPECT_EQ(manifest.at("source").at("digest"), "abc");
  EXPECT_EQ(manifest.at("source").at("run"), "/runs/r1");
  EXPECT_EQ(manifest.at("source").at("variant"), "iter2/champion");
  EXPECT_THAT(manifest.at("source").at("spec").get<std::string>(), HasSubstr("vector_add/kopt.toml"));
}

TEST(TorchManifest, ATritonKernelNamesItsKernelPyAndNoCompiler) {
  const json manifest = torch_manifest(example("triton_softmax"), "triton_softmax", {.kind = "triton", .file = "kernel.py"});
  EXPECT_EQ(manifest.at("kind"), "triton");
  EXPECT_EQ(manifest.at("kernel_py"), "kernel.py");
  EXPECT_TRUE(manifest.at("library").is_null());
  EXPECT_TRUE(manifest.at("nvcc").is_null());
  EXPECT_TRUE(manifest.at("arch").is_null());
  EXPECT_EQ(entry_named(manifest.at("dims"), "cols").at("from"), (json{{"buffer", "input"}, {"axis", 1}}));
}

TEST(OpName, IsAPythonIdentifierMadeFromTheSpecsName) {
  EXPECT_EQ(op_name_of("vector_add"), "vector_add");
  EXPECT_EQ(op_name_of("vector-multiply ff"), "vector_multiply_ff");
  EXPECT_EQ(op_name_of("84_swiglu"), "op_84_swiglu");
  EXPECT_NO_THROW(check_op_name("bias_gelu"));
  for (const std::string bad : {"", "2x", "a-b", "class", "a.b"}) {
    try {
      check_op_name(bad);
      ADD_FAILURE() << bad << " was taken";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::bad_input);
      EXPECT_THAT(e.what(), HasSubstr("a Python identifier"));
    }
  }
}

}  // namespace
}  // namespace kopt::exporting
