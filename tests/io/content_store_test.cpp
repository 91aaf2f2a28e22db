// io/content_store.h: canonical bytes, one file per content, created once and never overwritten,
// even by concurrent writers, and no temporary left behind when the store cannot write.
#include "io/content_store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

#include "../support/files.h"
#include "io/sha256.h"

namespace ropecheck {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using test::expect_input_error;
using test::read_bytes;
using test::TempDir;
using test::tree;
using test::write_bytes;

json doc() { return json::parse(R"({"z": [1, "0x1p-2", {"b": null, "a": true}], "a": "text"})"); }

TEST(CanonicalText, SortedTwoSpaceIndentAndANewline) {
  const json j = doc();
  EXPECT_EQ(canonical_text(j), j.dump(2) + "\n");
  // Keys inserted in another order give the same bytes (objects are sorted).
  json reordered = json::object();
  for (auto it = j.rbegin(); it != j.rend(); ++it) reordered[it.key()] = it.value();
  EXPECT_EQ(canonical_text(reordered), canonical_text(j));
  EXPECT_EQ(canonical_text(j).rfind("{\n  \"a\": \"text\",", 0), 0u) << canonical_text(j);
}

TEST(StoreByContent, ContentAddressedCreatedOnceNeverOverwritten) {
  TempDir dir("store_store");
  const std::string text = canonical_text(doc());
  const fs::path where = dir.path / "channel";
  const StoredFile first = store_by_content(where.string(), doc(), "--out");
  EXPECT_TRUE(first.created);
  EXPECT_EQ(first.path, (where / (sha256_hex(text) + ".json")).string());
  EXPECT_EQ(read_bytes(first.path), text);
  EXPECT_EQ(fs::path(first.path).stem().string(), sha256_hex(read_bytes(first.path)));
  const auto written_at = fs::last_write_time(first.path);
  const StoredFile second = store_by_content(where.string(), doc(), "--out");
  EXPECT_FALSE(second.created);
  EXPECT_EQ(second.path, first.path);
  EXPECT_EQ(read_bytes(first.path), text);
  EXPECT_EQ(fs::last_write_time(first.path), written_at);
  // Even a file with other bytes under that name is left alone (the name is the claim; replay checks).
  write_bytes(first.path, "{}\n");
  EXPECT_FALSE(store_by_content(where.string(), doc(), "--out").created);
  EXPECT_EQ(read_bytes(first.path), "{}\n");
  EXPECT_EQ(tree(dir.path), (std::vector<std::string>{"channel", "channel/" + sha256_hex(text) + ".json"}));
}

TEST(StoreByContent, ConcurrentWritersCreateOneFile) {
  TempDir dir("store_race");
  std::vector<int> created(8, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] { created[static_cast<size_t>(t)] = store_by_content((dir.path / "band").string(), doc(), "--out").created; });
  for (auto& t : threads) t.join();
  int total = 0;
  for (int c : created) total += c;
  EXPECT_EQ(total, 1);
  EXPECT_EQ(tree(dir.path).size(), 2u) << "a temporary was left behind";
}

TEST(StoreByContent, UnwritableTargetsAreInputErrorsAndLeaveNoTemporary) {
  TempDir dir("store_bad");
  // Below a regular file: the directory cannot be created.
  write_bytes(dir.path / "file", "x");
  expect_input_error([&] { store_by_content((dir.path / "file" / "channel").string(), doc(), "--out"); }, "--out", {"a writable directory"});
  // The directory is a file.
  fs::create_directories(dir.path / "a");
  write_bytes(dir.path / "a" / "channel", "x");
  expect_input_error([&] { store_by_content((dir.path / "a" / "channel").string(), doc(), "--out"); }, "--out", {"a writable directory"});
  // The final name is taken by a directory: the temporary is written, the link fails, and the
  // temporary must be gone afterwards.
  const fs::path out = dir.path / "b" / "channel";
  const fs::path final_name = out / (sha256_hex(canonical_text(doc())) + ".json");
  fs::create_directories(final_name);
  expect_input_error([&] { store_by_content(out.string(), doc(), "--out"); }, "--out", {"not a regular file"});
  EXPECT_EQ(tree(out), (std::vector<std::string>{final_name.filename().string()}));
  // A directory without write permission (root ignores permission bits, so only as another user).
  if (::geteuid() != 0) {
    const fs::path ro = dir.path / "ro" / "channel";
    fs::create_directories(ro);
    fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec);
    expect_input_error([&] { store_by_content(ro.string(), doc(), "--out"); }, "--out", {"a writable directory"});
    fs::permissions(ro, fs::perms::owner_all);
    EXPECT_TRUE(tree(ro).empty());
  }
}

}  // namespace
}  // namespace ropecheck
