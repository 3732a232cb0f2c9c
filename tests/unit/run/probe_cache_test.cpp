#include "kopt/run/probe_cache.hpp"

#include <gtest/gtest.h>

#include "kopt/core/files.hpp"
#include "kopt/run/write_sandbox.hpp"

namespace kopt::run {
namespace {

// Plays the probe's worker: answers with a device and whether CUDA worked confined, and
// counts how often it was started.
class FakeProbeWorker final : public ProcessRunner {
 public:
  bool confinable = true;
  std::string uuid = "GPU-1";
  int started = 0;

  ProcessResult run(const ProcessSpec& spec) override {
    ++started;
    const nlohmann::json job = nlohmann::json::parse(read_file(spec.argv[2]));
    DeviceInfo device{.name = "NVIDIA H200", .uuid = uuid, .cc_major = 9, .sm_count = 132};
    write_file_atomic(spec.argv[3], nlohmann::json{{"kind", "probe"},
                                                   {"device", device},
                                                   {"sandbox", {{"works", confinable}, {"description", "landlock"}}},
                                                   {"nonce", job.at("nonce")}}
                                        .dump());
    return ProcessResult{.started = true, .exit_status = 0};
  }
};

class ProbeCacheTest : public ::testing::Test {
 protected:
  CachedProbe probe(const ProbeFacts& facts) {
    return probe_device_cached(worker, settings, dir.path() / "work", dir.path() / "cache", facts);
  }

  TempDir dir{"probe-cache"};
  FakeProbeWorker worker;
  WorkerSettings settings{.executable = "/usr/bin/kopt"};
  ProbeFacts facts{.boot_id = "boot-1", .driver = "580.159.04", .gpus = "GPU-1", .kopt_build = "kopt 1"};
};

TEST_F(ProbeCacheTest, AProbeIsKeptForTheBootAndReusedWithoutAWorker) {
  if (landlock_abi() == 0) GTEST_SKIP() << "this Linux kernel has no Landlock: nothing is cached";
  EXPECT_FALSE(probe(facts).from_cache);
  const CachedProbe again = probe(facts);
  EXPECT_TRUE(again.from_cache);
  EXPECT_EQ(worker.started, 1);
  EXPECT_EQ(again.probe.device.uuid, "GPU-1");
  EXPECT_EQ(again.probe.device.sm_count, 132);
  EXPECT_TRUE(again.probe.writes_confinable);
}

TEST_F(ProbeCacheTest, ARebootANewDriverOtherGpusOrAnotherDeviceProbeAgain) {
  if (landlock_abi() == 0) GTEST_SKIP() << "this Linux kernel has no Landlock: nothing is cached";
  probe(facts);
  ProbeFacts rebooted = facts, new_driver = facts, other_gpus = facts, other_devices = facts;
  rebooted.boot_id = "boot-2";
  new_driver.driver = "590.1";
  other_gpus.gpus = "GPU-2";
  other_devices.visible_devices = "1;";
  for (const ProbeFacts& changed : {rebooted, new_driver, other_gpus, other_devices}) EXPECT_FALSE(probe(changed).from_cache);
  settings.device = 1;
  EXPECT_FALSE(probe(facts).from_cache);
  EXPECT_EQ(worker.started, 6);
}

// Where kernels' writes are not confined, a kernel could have written the cache: never kept.
TEST_F(ProbeCacheTest, AnUnconfinableMachineProbesEveryTime) {
  worker.confinable = false;
  probe(facts);
  EXPECT_FALSE(probe(facts).from_cache);
  EXPECT_EQ(worker.started, 2);
}

TEST_F(ProbeCacheTest, NoBootIdOrDriverMeansNoCacheAndAForgottenProbeIsProbedAgain) {
  ProbeFacts unknown = facts;
  unknown.driver.clear();
  EXPECT_TRUE(probe_cache_file(dir.path(), settings, unknown).empty());
  probe(unknown);
  EXPECT_FALSE(probe(unknown).from_cache);
  probe(facts);
  forget_probe(dir.path() / "cache", settings, facts);
  EXPECT_FALSE(probe(facts).from_cache);
}

TEST_F(ProbeCacheTest, ADamagedEntryIsProbedAgain) {
  if (landlock_abi() == 0) GTEST_SKIP() << "this Linux kernel has no Landlock: nothing is cached";
  probe(facts);
  write_file_atomic(probe_cache_file(dir.path() / "cache", settings, facts), "{\"device\": 3}");
  EXPECT_FALSE(probe(facts).from_cache);
  EXPECT_TRUE(probe(facts).from_cache);
}

}  // namespace
}  // namespace kopt::run
