#include "kopt/catalog/method_catalog.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/core/error.hpp"

namespace kopt::catalog {
namespace {

TEST(MethodCatalog, TheShippedCatalogLoadsWithSeventyMethodsOverThreeAxes) {
  const MethodCatalog catalog = load_method_catalog();
  EXPECT_GE(catalog.methods.size(), 70u);
  std::map<roofline::Axis, int> per_axis;
  for (const Method& method : catalog.methods) ++per_axis[method.axis];
  for (roofline::Axis axis : roofline::kAxes) EXPECT_GE(per_axis[axis], 10) << roofline::to_string(axis);
  const Method* tiling = catalog.find("memory.tiling_smem");
  ASSERT_NE(tiling, nullptr);
  EXPECT_EQ(tiling->macro, "KOPT_USE_SMEM_TILING");  // docs/design.md §1's example
  EXPECT_EQ(tiling->signature, "shared_memory");
}

TEST(MethodCatalog, ArchitectureAndFeaturesGateMethods) {
  const MethodCatalog catalog = load_method_catalog();
  const Method& wgmma = *catalog.find("compute.tensor_core_wgmma");
  EXPECT_FALSE(catalog.arch_obstacle(wgmma, 90));
  EXPECT_THAT(catalog.arch_obstacle(wgmma, 80).value_or(""), testing::HasSubstr("sm_90"));
  EXPECT_THAT(catalog.arch_obstacle(wgmma, 100).value_or(""), testing::HasSubstr("wgmma"));  // sm_90a only
  EXPECT_TRUE(catalog.conflict(*catalog.find("memory.smem_swizzle"), *catalog.find("memory.smem_padding")));
}

const char* kValid = R"(
schema_version = 1
[features.tma]
min_arch = 90
[methods."memory.a"]
axis = "memory"
priority = 10
min_arch = 70
trigger = "dram_throughput > 0.5"
signature = "none"
macro = "KOPT_USE_A"
change = ["one", "two"]
gain = [1.1, 2]
risks = "what it costs"
example = "a worked example"
)";

std::string catalog_error_of(const std::string& text) {
  try {
    parse_method_catalog(text, "m.toml", load_sass_signatures(), known_condition_names());
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::bad_input);
    return e.what();
  }
  return "no error";
}

std::string with(std::string_view from, std::string_view to) {
  std::string text = kValid;
  text.replace(text.find(from), from.size(), to);
  return text;
}

TEST(MethodCatalog, AValidEntryLoads) { EXPECT_EQ(catalog_error_of(kValid), "no error"); }

// kValid with a second method, memory.b, whose signature lines are `b_signature`.
std::string two_methods(std::string_view a_signature, std::string_view b_signature) {
  std::string text = with("signature = \"none\"", a_signature);
  std::string b = text.substr(text.find("[methods.\"memory.a\"]"));
  b.replace(b.find("memory.a"), 8, "memory.b");
  b.replace(b.find("priority = 10"), 13, "priority = 20");
  b.replace(b.find("KOPT_USE_A"), 10, "KOPT_USE_B");
  b.replace(b.find(a_signature), a_signature.size(), b_signature);
  return text + b;
}

TEST(MethodCatalog, TwoMethodsCannotShareASignatureUnlessOneSaysItCannotBeToldApart) {
  EXPECT_THAT(catalog_error_of(two_methods("signature = \"shared_memory\"", "signature = \"shared_memory\"")),
              testing::AllOf(testing::HasSubstr("memory.b"), testing::HasSubstr("checks what memory.a's does")));
  EXPECT_EQ(catalog_error_of(two_methods("signature = \"shared_memory\"",
                                         "signature = \"shared_memory\"\nnot_distinguishable_from = \"memory.a\"")),
            "no error");
  // It must name the owner of that very signature.
  EXPECT_THAT(catalog_error_of(two_methods("signature = \"shared_memory\"",
                                           "signature = \"cp_async\"\nnot_distinguishable_from = \"memory.a\"")),
              testing::HasSubstr("must name a method whose own signature is \"cp_async\""));
  EXPECT_THAT(catalog_error_of(with("signature = \"none\"", "signature = \"none\"\nnot_distinguishable_from = \"memory.a\"")),
              testing::HasSubstr("needs the shared signature"));
  // Both "none": nothing is checked, so nothing is shared.
  EXPECT_EQ(catalog_error_of(two_methods("signature = \"none\"", "signature = \"none\"")), "no error");
}

TEST(MethodCatalog, TheShippedCatalogSaysWhatItsSassChecksProve) {
  const MethodCatalog catalog = load_method_catalog();
  std::map<std::string, std::vector<std::string>> by_signature;
  std::map<std::string, int> checks;
  for (const Method& m : catalog.methods) {
    ++checks[std::string(sass_check_of(m))];
    if (m.signature != kNotVerifiable && m.not_distinguishable_from.empty()) by_signature[m.signature].push_back(m.id);
  }
  for (const auto& [signature, ids] : by_signature) EXPECT_EQ(ids.size(), 1u) << signature << ": " << ids.front();
  EXPECT_EQ(sass_check_of(*catalog.find("memory.smem_transpose")), "not_distinguishable");
  EXPECT_EQ(sass_check_of(*catalog.find("memory.tiling_smem")), "verifiable");
  EXPECT_EQ(sass_check_of(*catalog.find("latency.cuda_graphs")), "not_verifiable");
  EXPECT_GE(checks["verifiable"], 49);
  EXPECT_LE(checks["not_verifiable"], 15);  // issue 58
  // Each method without a signature says why SASS cannot show it.
  for (const Method& m : catalog.methods) {
    if (m.signature == kNotVerifiable) EXPECT_FALSE(m.no_trace.empty()) << m.id;
  }
  EXPECT_THAT(catalog_error_of(with("signature = \"none\"", "signature = \"shared_memory\"\nno_trace = \"host side\"")),
              testing::HasSubstr("no_trace (why SASS shows nothing) goes only with signature \"none\""));
  EXPECT_EQ(catalog_error_of(with("signature = \"none\"", "signature = \"none\"\nno_trace = \"host side\"")), "no error");
}

TEST(MethodCatalog, MalformedEntriesAreNamedWithFileAndEntry) {
  EXPECT_THAT(catalog_error_of(with("priority = 10", "priority = 10\ncolour = 1")),
              testing::AllOf(testing::HasSubstr("m.toml:"), testing::HasSubstr("memory.a: unknown key \"colour\"")));
  EXPECT_THAT(catalog_error_of(with("axis = \"memory\"", "axis = \"speed\"")), testing::HasSubstr("memory.a: unknown axis"));
  EXPECT_THAT(catalog_error_of(with("axis = \"memory\"", "axis = \"compute\"")), testing::HasSubstr("must be compute.<name>"));
  EXPECT_THAT(catalog_error_of(with("priority = 10\n", "")), testing::HasSubstr("memory.a: priority is required"));
  EXPECT_THAT(catalog_error_of(with("KOPT_USE_A", "USE_A")), testing::HasSubstr("KOPT_USE_[A-Z0-9_]+"));
  EXPECT_THAT(catalog_error_of(with("\"none\"", "\"no_such\"")), testing::HasSubstr("unknown SASS signature"));
  EXPECT_THAT(catalog_error_of(with("dram_throughput > 0.5", "dram_throughput >")), testing::HasSubstr("memory.a: trigger"));
  EXPECT_THAT(catalog_error_of(with("dram_throughput", "dram_thruput")), testing::HasSubstr("unknown concept \"dram_thruput\""));
  EXPECT_THAT(catalog_error_of(with("min_arch = 70", "min_arch = 70\nfeatures = [\"warp_drive\"]")),
              testing::HasSubstr("unknown feature"));
  EXPECT_THAT(catalog_error_of(with("min_arch = 70", "min_arch = 70\nconflicts = [\"memory.zzz\"]")),
              testing::HasSubstr("conflicts with unknown method \"memory.zzz\""));
  EXPECT_THAT(catalog_error_of(with("[\"one\", \"two\"]", "[\"one\"]")), testing::HasSubstr("two lines"));
}

TEST(MethodCatalog, EveryShippedMethodCarriesGainRisksAndAWorkedExample) {
  for (const Method& method : load_method_catalog().methods) {
    EXPECT_GE(method.gain_low, 1.0) << method.id;
    EXPECT_GE(method.gain_high, method.gain_low) << method.id;
    EXPECT_GT(method.risks.size(), 20u) << method.id;
    EXPECT_GT(method.example.size(), 30u) << method.id;
  }
}

TEST(MethodCatalog, TheNewerTechniquesAreInTheCatalog) {
  const MethodCatalog catalog = load_method_catalog();
  for (const char* id : {"compute.stream_k", "compute.raster_swizzle", "compute.online_softmax", "compute.epilogue_fusion",
                         "latency.split_k", "memory.tma_multicast", "latency.cuda_graphs", "latency.persistent_kernel",
                         "compute.block_scaled_fp8", "compute.block_scaled_fp4"}) {
    EXPECT_NE(catalog.find(id), nullptr) << id;
  }
}

TEST(MethodCatalog, GainRisksAndExampleAreChecked) {
  EXPECT_THAT(catalog_error_of(with("gain = [1.1, 2]", "gain = [0.5, 2]")), testing::HasSubstr("memory.a: gain must be [low, high]"));
  EXPECT_THAT(catalog_error_of(with("gain = [1.1, 2]", "gain = [2, 1.5]")), testing::HasSubstr("1 <= low <= high"));
  EXPECT_THAT(catalog_error_of(with("gain = [1.1, 2]", "gain = [1.1]")), testing::HasSubstr("gain must be"));
  EXPECT_THAT(catalog_error_of(with("gain = [1.1, 2]", "gain = [\"a\", 2]")), testing::HasSubstr("array of numbers"));
  EXPECT_THAT(catalog_error_of(with("gain = [1.1, 2]\n", "")), testing::HasSubstr("gain is required"));
  EXPECT_THAT(catalog_error_of(with("risks = \"what it costs\"\n", "")), testing::HasSubstr("risks is required"));
  EXPECT_THAT(catalog_error_of(with("example = \"a worked example\"", "example = \"\"")),
              testing::HasSubstr("example must be a non-empty string"));
}

TEST(MethodCatalog, APriorityIsUniqueWithinItsAxis) {
  std::string text = kValid;
  std::string second = text.substr(text.find("[methods."));
  second.replace(second.find("memory.a"), 8, "memory.b");
  EXPECT_THAT(catalog_error_of(text + second), testing::HasSubstr("priority 10 is also memory."));
}

}  // namespace
}  // namespace kopt::catalog
