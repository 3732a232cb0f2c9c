#include "kopt/loop/result_cache.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <thread>

#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"

namespace kopt {
namespace {

VariantKey sample_key() {
  return VariantKey{.source_hash = "0123456789abcdef0123456789abcdef",
                    .flags = {"-O3", "--use_fast_math"},
                    .defines = {{"TILE", "64"}, {"BLOCK", "256"}},
                    .case_name = "large",
                    .device_uuid = "GPU-8f1c2d3e",
                    .driver_version = 12040,
                    .kind = "bench",
                    .settings_hash = "fedcba9876543210fedcba9876543210"};
}

TEST(VariantKey, DigestIsStableHex) {
  std::string digest = sample_key().digest();
  EXPECT_EQ(digest.size(), 32u);
  EXPECT_EQ(digest.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(digest, sample_key().digest());
}

TEST(VariantKey, EveryFieldChangesTheDigest) {
  const std::string base = sample_key().digest();
  std::vector<std::function<void(VariantKey&)>> changes = {
      [](VariantKey& k) { k.source_hash[0] = 'f'; },
      [](VariantKey& k) { k.flags.push_back("-lineinfo"); },
      [](VariantKey& k) { std::swap(k.flags[0], k.flags[1]); },  // flag order matters
      [](VariantKey& k) { k.defines[0].second = "32"; },
      [](VariantKey& k) { k.defines[0].first = "TILE_M"; },
      [](VariantKey& k) { k.defines.pop_back(); },
      [](VariantKey& k) { k.case_name = "small"; },
      [](VariantKey& k) { k.device_uuid = "GPU-00000000"; },
      [](VariantKey& k) { k.driver_version = 12050; },
      [](VariantKey& k) { k.kind = "check"; },
      [](VariantKey& k) { k.settings_hash = "x"; },
      // Parts are length-prefixed: moving a character across a boundary is a different key.
      [](VariantKey& k) { k.flags = {"-O3--use_fast_math"}; },
  };
  for (std::size_t i = 0; i < changes.size(); ++i) {
    VariantKey key = sample_key();
    changes[i](key);
    EXPECT_NE(key.digest(), base) << "change " << i;
  }
}

TEST(VariantKey, DefineOrderDoesNotChangeTheDigest) {
  VariantKey reordered = sample_key();
  std::swap(reordered.defines[0], reordered.defines[1]);
  EXPECT_EQ(reordered.digest(), sample_key().digest());
}

TEST(ResultCache, StoresAndFinds) {
  TempDir dir("result-cache-test");
  ResultCache cache(dir.path() / "results.sqlite3");
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_EQ(cache.find(sample_key()), std::nullopt);

  nlohmann::json result = {{"median_s", 1.25e-5}, {"samples", {1.2e-5, 1.3e-5}}, {"status", "ok"}};
  cache.store(sample_key(), result);
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_EQ(cache.find(sample_key()), result);

  VariantKey other = sample_key();
  other.kind = "check";
  EXPECT_EQ(cache.find(other), std::nullopt);
}

TEST(ResultCache, ASecondInstanceSeesStoredResults) {
  TempDir dir("result-cache-test");
  nlohmann::json result = {{"median_s", 3.0e-6}};
  {
    ResultCache first_run(dir.path() / "cache" / "results.sqlite3");  // creates the folder
    first_run.store(sample_key(), result);
  }
  ResultCache second_run(dir.path() / "cache" / "results.sqlite3");
  EXPECT_EQ(second_run.size(), 1u);
  EXPECT_EQ(second_run.find(sample_key()), result);
}

TEST(ResultCache, StoringAgainReplaces) {
  TempDir dir("result-cache-test");
  ResultCache cache(dir.path() / "results.sqlite3");
  cache.store(sample_key(), {{"median_s", 1.0}});
  cache.store(sample_key(), {{"median_s", 2.0}});
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_EQ(cache.find(sample_key()), (nlohmann::json{{"median_s", 2.0}}));
}

TEST(ResultCache, Erases) {
  TempDir dir("result-cache-test");
  ResultCache cache(dir.path() / "results.sqlite3");
  VariantKey other = sample_key();
  other.case_name = "small";
  cache.store(sample_key(), {{"v", 1}});
  cache.store(other, {{"v", 2}});
  cache.erase(sample_key());
  cache.erase(sample_key());  // erasing a missing entry is fine
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_EQ(cache.find(sample_key()), std::nullopt);
  EXPECT_EQ(cache.find(other), (nlohmann::json{{"v", 2}}));
}

TEST(ResultCache, ValuesAreBoundNotSpliced) {
  TempDir dir("result-cache-test");
  ResultCache cache(dir.path() / "results.sqlite3");
  VariantKey key = sample_key();
  key.case_name = "x'); DROP TABLE results; --";
  cache.store(key, {{"quote", "it's"}});
  EXPECT_EQ(cache.find(key), (nlohmann::json{{"quote", "it's"}}));
  EXPECT_EQ(cache.size(), 1u);
}

TEST(ResultCache, RefusesAFileThatIsNotADatabase) {
  TempDir dir("result-cache-test");
  auto file = dir.path() / "results.sqlite3";
  write_file_atomic(file, std::string(4096, 'x') + "this is not a SQLite database\n");
  try {
    ResultCache cache(file);
    FAIL() << "a garbage file was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::environment);
    EXPECT_THAT(e.what(), ::testing::HasSubstr(file.string()));
    EXPECT_THAT(e.what(), ::testing::HasSubstr("not a usable SQLite database"));
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
  }
}

TEST(ResultCache, TwoInstancesWriteAtTheSameTime) {
  TempDir dir("result-cache-test");
  auto file = dir.path() / "results.sqlite3";
  ResultCache(file).size();  // create the schema once, as the first kopt run would
  constexpr int per_writer = 50;
  auto writer = [&](const std::string& device) {
    ResultCache cache(file);
    for (int i = 0; i < per_writer; ++i) {
      VariantKey key = sample_key();
      key.device_uuid = device;
      key.driver_version = i;
      cache.store(key, {{"i", i}});
      EXPECT_EQ(cache.find(key), (nlohmann::json{{"i", i}}));
    }
  };
  std::thread a(writer, "GPU-a");
  std::thread b(writer, "GPU-b");
  a.join();
  b.join();
  ResultCache cache(file);
  EXPECT_EQ(cache.size(), 2u * per_writer);
}

}  // namespace
}  // namespace kopt
