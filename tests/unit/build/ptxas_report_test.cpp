#include "kopt/build/ptxas_report.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "kopt/core/files.hpp"

namespace kopt::build {
namespace {

std::string fixture(const std::string& name) { return read_file(std::string(KOPT_FIXTURES_DIR) + "/ptxas/" + name); }

// Captured from nvcc 13.0 -Xptxas -v, sm_90: a kernel with a stack frame and one with
// shared memory and a barrier, plus a non-entry device function's properties between them.
TEST(PtxasReport, ReadsEveryEntryFunctionOfRealNvcc13Output) {
  PtxasReport report = parse_ptxas_report(fixture("nvcc13_sm90_smem_calls.txt"));
  ASSERT_EQ(report.functions.size(), 2u);
  const FunctionResources& calls = report.functions[0];
  EXPECT_EQ(calls.name, "_Z5callsPf");
  EXPECT_EQ(calls.arch, "sm_90");
  EXPECT_EQ(calls.registers, 40);
  EXPECT_EQ(calls.stack_frame_bytes, 128);
  const FunctionResources& tile = report.functions[1];
  EXPECT_EQ(tile.name, "_Z4tilePKfPf");
  EXPECT_EQ(tile.registers, 14);
  EXPECT_EQ(tile.barriers, 1);
  EXPECT_EQ(tile.shared_bytes, 4096);
  EXPECT_EQ(tile.stack_frame_bytes, 0);
  EXPECT_TRUE(report.unparsed_lines.empty());
}

TEST(PtxasReport, DeviceFunctionPropertiesDoNotOverwriteTheEntry) {
  PtxasReport report = parse_ptxas_report(fixture("nvcc13_sm90_smem_calls.txt"));
  // _Z6helperPfi (0 bytes of stack) is reported after calls; calls keeps its 128 bytes.
  EXPECT_EQ(report.functions[0].stack_frame_bytes, 128);
}

TEST(PtxasReport, ExternCNamesAndSpills) {
  PtxasReport report = parse_ptxas_report(
      "ptxas info    : Compiling entry function 'add' for 'sm_80'\n"
      "ptxas info    : Function properties for add\n"
      "    16 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads\n"
      "ptxas info    : Used 255 registers, used 0 barriers, 384 bytes cmem[0]\n");
  ASSERT_EQ(report.functions.size(), 1u);
  EXPECT_EQ(report.functions[0].name, "add");
  EXPECT_EQ(report.functions[0].registers, 255);
  EXPECT_EQ(report.functions[0].constant_bytes, 384);
  EXPECT_EQ(report.functions[0].spill_store_bytes, 8);
  EXPECT_EQ(report.functions[0].spill_load_bytes, 12);
  EXPECT_TRUE(report.has_spills());
}

TEST(PtxasReport, UnknownPtxasLinesAreReportedNotGuessed) {
  PtxasReport report = parse_ptxas_report(
      "kernel.cu(3): warning #177-D: variable \"x\" was declared but never referenced\n"
      "ptxas info    : Something new in a later ptxas\n");
  EXPECT_TRUE(report.functions.empty());
  ASSERT_EQ(report.unparsed_lines.size(), 1u);
  EXPECT_NE(report.unparsed_lines[0].find("Something new"), std::string::npos);
}

TEST(PtxasReport, RoundTripsThroughJson) {
  PtxasReport report = parse_ptxas_report(fixture("nvcc13_sm90_stack.txt"));
  nlohmann::json json = report;
  PtxasReport back = json.get<PtxasReport>();
  ASSERT_EQ(back.functions.size(), report.functions.size());
  EXPECT_EQ(back.functions[0].name, report.functions[0].name);
  EXPECT_EQ(back.functions[0].stack_frame_bytes, report.functions[0].stack_frame_bytes);
}

}  // namespace
}  // namespace kopt::build
