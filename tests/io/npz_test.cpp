#include "io/npz.h"

#include <gtest/gtest.h>
#include <zip.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "io/input_error.h"
#include "io/npy.h"
#include "../support/files.h"

// Fixtures: tests/usage/data/*.npz, written by tests/usage/data/make_captures.py (its q_value is
// mirrored here).
namespace ropecheck::npz_test {

std::string data(const std::string& name) { return std::string(ROPECHECK_TEST_SOURCE_DIR) + "/tests/usage/data/" + name; }

double q_value(long long s, long long l, long long h, long long t, long long c) {
  return static_cast<double>(((s * 7 + l * 5 + h * 3 + t * 2 + c) % 61) - 30) * 0.25;
}

double k_value(long long s, long long l, long long h, long long t, long long c) {
  return static_cast<double>(((s * 3 + l * 7 + h * 11 + t * 5 + c * 2) % 53) - 26) * 0.125;
}

TEST(NpzArchive, ListsMembersInArchiveOrderWithoutSuffix) {
  const NpzArchive a(data("stored_f32.npz"), "--capture");
  EXPECT_EQ(a.members(), (std::vector<std::string>{"q", "k", "positions", "source"}));
  EXPECT_TRUE(a.has("q"));
  EXPECT_TRUE(a.has("source"));
  EXPECT_FALSE(a.has("token_ids"));
  EXPECT_FALSE(a.has("q.npy"));
  EXPECT_EQ(a.path(), data("stored_f32.npz"));
  EXPECT_EQ(a.member_input("k"), "--capture: member 'k'");
}

TEST(NpzArchive, HeadersOfStoredAndDeflatedMembers) {
  const NpzArchive stored(data("stored_f32.npz"), "--capture");
  const NpyHeader q = stored.header("q");
  EXPECT_EQ(q.dtype, "<f4");
  EXPECT_EQ(q.shape, (std::vector<std::int64_t>{2, 3, 4, 5, 6}));
  const NpyHeader source = stored.header("source");
  EXPECT_EQ(source.dtype.substr(0, 2), "<U");
  EXPECT_TRUE(source.shape.empty());

  const NpzArchive deflated(data("compressed_f16.npz"), "--capture");
  EXPECT_EQ(deflated.header("q").dtype, "<f2");
  EXPECT_EQ(deflated.header("k").shape, (std::vector<std::int64_t>{2, 3, 2, 5, 6}));
  EXPECT_EQ(deflated.header("positions").shape, (std::vector<std::int64_t>{2, 5}));
}

TEST(NpzArchive, ReadsASmallMemberWhole) {
  const NpzArchive a(data("stored_f32.npz"), "--capture");
  const NpyArray p = a.read("positions", {"<i8", "<i4"});
  EXPECT_EQ(p.dtype, "<i8");
  ASSERT_EQ(p.bytes.size(), 5u * 8);
  std::vector<std::int64_t> values(5);
  std::memcpy(values.data(), p.bytes.data(), p.bytes.size());
  EXPECT_EQ(values, (std::vector<std::int64_t>{0, 1, 2, 3, 7}));

  const NpzArchive deflated(data("compressed_f16.npz"), "--capture");
  const NpyArray ids = deflated.read("token_ids", {});
  EXPECT_EQ(ids.dtype, "<i4");
  std::vector<std::int32_t> id_values(10);
  ASSERT_EQ(ids.bytes.size(), 40u);
  std::memcpy(id_values.data(), ids.bytes.data(), 40);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(id_values[static_cast<std::size_t>(i)], i);
}

// Stored (np.savez) and deflated (np.savez_compressed) members alike.
TEST(NpzArchive, StreamsAMemberInPieces) {
  for (const bool deflated : {false, true}) {
    const NpzArchive a(data(deflated ? "compressed_f16.npz" : "stored_f32.npz"), "--capture");
    NpzArchive::Stream s = a.open(deflated ? "k" : "q");
    const std::vector<std::int64_t> shape = s.header().shape;
    ASSERT_EQ(shape.size(), 5u);
    EXPECT_EQ(s.header().dtype, "<f4");
    EXPECT_EQ(s.remaining(), npy_data_size(s.header()));
    // Odd-sized pieces, so reads cross element boundaries.
    std::vector<unsigned char> bytes(static_cast<std::size_t>(s.remaining()));
    std::size_t done = 0;
    while (done < bytes.size()) {
      const std::size_t n = std::min<std::size_t>(37, bytes.size() - done);
      s.read(bytes.data() + done, n);
      done += n;
    }
    EXPECT_EQ(s.remaining(), 0u);
    s.finish();
    std::size_t i = 0;
    for (long long a0 = 0; a0 < shape[0]; ++a0)
      for (long long a1 = 0; a1 < shape[1]; ++a1)
        for (long long a2 = 0; a2 < shape[2]; ++a2)
          for (long long a3 = 0; a3 < shape[3]; ++a3)
            for (long long a4 = 0; a4 < shape[4]; ++a4, ++i) {
              float v;
              std::memcpy(&v, bytes.data() + 4 * i, 4);
              ASSERT_EQ(v, deflated ? k_value(a0, a1, a2, a3, a4) : q_value(a0, a1, a2, a3, a4)) << "at " << i;
            }
  }
}

TEST(NpzArchive, StreamRefusesReadsPastTheDataSection) {
  const NpzArchive a(data("stored_f32.npz"), "--capture");
  NpzArchive::Stream s = a.open("positions");
  std::vector<unsigned char> bytes(41);
  EXPECT_THROW(s.read(bytes.data(), 41), std::logic_error);
  s.read(bytes.data(), 40);
  EXPECT_THROW(s.read(bytes.data(), 1), std::logic_error);
}

TEST(NpzArchive, MovesKeepTheArchiveAndStreamsOpen) {
  NpzArchive a(data("compressed_f16.npz"), "--capture");
  NpzArchive b = std::move(a);
  NpzArchive::Stream s = b.open("positions");
  NpzArchive::Stream t = std::move(s);
  std::vector<unsigned char> bytes(static_cast<std::size_t>(t.remaining()));
  t.read(bytes.data(), bytes.size());
  t.finish();
  NpzArchive c(data("stored_f32.npz"), "--capture");
  c = std::move(b);
  EXPECT_TRUE(c.has("token_ids"));
}

TEST(NpzArchive, RefusesWhatIsNotAZipArchive) {
  test::expect_input_error([] { NpzArchive(data("bad_not_zip.npz"), "--capture"); }, "--capture",
                           {"a readable NumPy .npz file", "bad_not_zip.npz", "Not a zip archive"});
  test::expect_input_error([] { NpzArchive(data("bad_truncated.npz"), "--capture"); }, "--capture", {"bad_truncated.npz"});
  test::expect_input_error([] { NpzArchive(data("no_such_file.npz"), "--in"); }, "--in", {"no_such_file.npz"});
}

TEST(NpzArchive, RefusesAMissingMemberAndAnotherDtype) {
  const NpzArchive a(data("stored_f32.npz"), "--capture");
  test::expect_input_error([&] { a.header("token_ids"); }, "--capture: member 'token_ids'", {"no member 'token_ids.npy'"});
  test::expect_input_error([&] { a.read("q", {"<i8", "<i4"}); }, "--capture: member 'q'", {"'<i8' or '<i4'", "dtype '<f4'"});
}

TEST(NpzArchive, RefusesDataOfAnotherSizeThanItsHeader) {
  const NpzArchive shorter(data("bad_q_short.npz"), "--capture");
  test::expect_input_error([&] { shorter.header("q"); }, "--capture: member 'q'", {"is truncated", "needs 576 bytes", "found 572"});
  const NpzArchive longer(data("bad_q_long.npz"), "--capture");
  test::expect_input_error([&] { longer.open("q"); }, "--capture: member 'q'", {"trailing bytes", "found 580"});
  const NpzArchive overflow(data("bad_q_overflow.npz"), "--capture");
  test::expect_input_error([&] { overflow.header("q"); }, "--capture: member 'q'", {"fewer than 2^62 bytes"});
  const NpzArchive not_npy(data("bad_q_not_npy.npz"), "--capture");
  test::expect_input_error([&] { not_npy.header("q"); }, "--capture: member 'q'", {"not a .npy file"});
}

// Writes a stored (uncompressed) .npz at `path` holding the members (name, bytes).
void write_npz(const std::string& path, const std::vector<std::pair<std::string, std::string>>& members) {
  int code = 0;
  zip_t* z = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &code);
  ASSERT_NE(z, nullptr) << code;
  for (const auto& [name, bytes] : members) {
    zip_source_t* src = zip_source_buffer(z, bytes.data(), bytes.size(), 0);
    ASSERT_NE(src, nullptr);
    const zip_int64_t index = zip_file_add(z, name.c_str(), src, ZIP_FL_OVERWRITE);
    ASSERT_GE(index, 0);
    ASSERT_EQ(zip_set_file_compression(z, static_cast<zip_uint64_t>(index), ZIP_CM_STORE, 0), 0);
  }
  ASSERT_EQ(zip_close(z), 0) << zip_error_strerror(zip_get_error(z));
}

// Found by the fuzz target npz (tests/fuzz/corpus/npz/crash-npy-header-length-0): a member whose
// version 1.0 header length is 0 or 1 ends its header inside the 12 bytes read first, and open()
// copied those 12 bytes into a prefix buffer of 10 or 11 (a heap overflow under `usage --capture`).
TEST(NpzArchive, RefusesAHeaderThatEndsInsideItsFixedFields) {
  const test::TempDir dir("npz_short_header");
  const std::string path = (dir.path / "short.npz").string();
  for (const std::string& member : {std::string("\x93NUMPY\x01\x00\x00\x00{}", 12), std::string("\x93NUMPY\x01\x00\x01\x00{}xyz", 15)}) {
    write_npz(path, {{"q.npy", member}});
    const NpzArchive a(path, "--capture");
    test::expect_input_error([&] { a.header("q"); }, "--capture: member 'q'", {"header holds its dict", "short.npz"});
    test::expect_input_error([&] { a.read("q", {}); }, "--capture: member 'q'", {"header holds its dict"});
  }
}

TEST(NpzArchive, FindsACorruptedByteByItsCrcOrItsDeflateStream) {
  for (const char* file : {"bad_crc_stored.npz", "bad_crc_deflated.npz"}) {
    test::expect_input_error(
        [&] {
          const NpzArchive a(data(file), "--capture");
          NpzArchive::Stream s = a.open("q");
          std::vector<unsigned char> bytes(static_cast<std::size_t>(s.remaining()));
          s.read(bytes.data(), bytes.size());
          s.finish();
        },
        "--capture: member 'q'", {file, "uncorrupted"});
  }
  const NpzArchive stored(data("bad_crc_stored.npz"), "--capture");
  test::expect_input_error([&] { stored.read("q", {}); }, "--capture: member 'q'", {"CRC error"});
}

TEST(NpzNpyHeader, ParsesFloat16AndStringHeadersFromMemory) {
  EXPECT_EQ(npy_item_size("<f2"), 2u);
  EXPECT_EQ(npy_item_size("<U5"), 20u);
  EXPECT_EQ(npy_item_size("|O"), 0u);
  for (const auto& [descr, shape, size] : std::vector<std::tuple<std::string, std::string, std::uint64_t>>{
           {"<f2", "(3, 4)", 24}, {"<U5", "()", 20}, {"<i8", "(0,)", 0}}) {
    std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
    header += std::string(63 - (10 + header.size()) % 64, ' ') + "\n";
    std::string file = std::string("\x93NUMPY\x01\x00", 8);
    file += static_cast<char>(header.size() & 0xFF);
    file += static_cast<char>(header.size() >> 8);
    file += header;
    const auto* bytes = reinterpret_cast<const unsigned char*>(file.data());
    EXPECT_EQ(npy_prefix_size(bytes, 12, "x", "mem"), file.size());
    const NpyHeader h = parse_npy_header(bytes, file.size(), "x", "mem", {});
    EXPECT_EQ(h.dtype, descr);
    EXPECT_EQ(npy_data_size(h), size);
    test::expect_input_error([&] { parse_npy_header(bytes, file.size() - 1, "x", "mem", {}); }, "x", {"mem: file is truncated"});
    test::expect_input_error([&] { parse_npy_header(bytes, file.size(), "x", "mem", {"<f4"}); }, "x", {"'<f4'", "mem: dtype"});
  }
}

TEST(NpzNpyHeader, ReadNpyStillRefusesStringsWhenAnyNumericDtypeIsAccepted) {
  const test::TempDir dir("npz_npy_strings");
  std::string header = "{'descr': '<U2', 'fortran_order': False, 'shape': (), }";
  header += std::string(63 - (10 + header.size()) % 64, ' ') + "\n";
  std::string file = std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(header.size()) + '\0' + header;
  file += std::string("a\0\0\0b\0\0\0", 8);
  test::write_bytes(dir.path / "s.npy", file);
  test::expect_input_error([&] { read_npy((dir.path / "s.npy").string(), "--input", {}); }, "--input",
                           {"a little-endian numeric dtype", "dtype '<U2'"});
  EXPECT_EQ(read_npy((dir.path / "s.npy").string(), "--input", {"<U2"}).bytes.size(), 8u);
}

}  // namespace ropecheck::npz_test
