#include "io/npy.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/input_error.h"

namespace ropecheck {
namespace {

namespace fs = std::filesystem;

class Npy : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("ropecheck_npy_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string write_raw(const std::string& name, const std::string& bytes) const {
    std::ofstream(path(name), std::ios::binary) << bytes;
    return path(name);
  }
  static std::string slurp(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  // Returns: the message of the InputError that `f` throws (empty when it throws none), after
  // checking that it names `input`.
  template <typename F>
  static std::string error_of(F&& f, const std::string& input) {
    try {
      f();
    } catch (const InputError& e) {
      EXPECT_EQ(e.input(), input) << e.what();
      return e.what();
    }
    ADD_FAILURE() << "no InputError";
    return "";
  }

  fs::path dir_;
};

std::string hex_dump(const std::string& s) {
  std::string out;
  char buf[4];
  for (unsigned char c : s) {
    std::snprintf(buf, sizeof buf, "%02x ", c);
    out += buf;
  }
  return out;
}

NpyArray f32_array(const std::vector<std::int64_t>& shape) {
  NpyArray a;
  a.dtype = "<f4";
  a.shape = shape;
  a.bytes.resize(static_cast<size_t>(a.elements()) * 4);
  for (std::int64_t i = 0; i < a.elements(); ++i) {
    // Bit patterns that a value round trip would not preserve: -0, NaN with payload, subnormal.
    const std::uint32_t bits[] = {0x80000000u, 0x7FA00001u, 0x00000001u, 0x3F800000u, 0xC2F6E979u};
    std::memcpy(a.bytes.data() + 4 * i, &bits[i % 5], 4);
  }
  return a;
}

// NumPy 1.24's np.save(f, np.zeros((2, 3), '<f4')) header, written out by hand: the dict, 20
// growth-axis spaces (21 - len("2")), 38 alignment spaces, a newline; header length 118 = 'v', so
// the data starts at byte 128.
const std::string kNumpy124Header = std::string("\x93NUMPY\x01\x00v\x00", 10) +
                                    "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }" +
                                    std::string(58, ' ') + "\n";

TEST_F(Npy, RoundTripKeepsShapeDtypeAndEveryBit) {
  for (const auto& shape : std::vector<std::vector<std::int64_t>>{{2, 3, 4}, {5}, {}, {0, 4}, {1, 1, 1, 1, 7}}) {
    const NpyArray a = f32_array(shape);
    write_npy(path("a.npy"), a, "--output");
    const NpyArray b = read_npy(path("a.npy"), "--input", {"<f4"});
    EXPECT_EQ(b.dtype, a.dtype);
    EXPECT_EQ(b.shape, a.shape);
    EXPECT_EQ(b.bytes, a.bytes) << hex_dump(slurp(path("a.npy")));
    const std::string file = slurp(path("a.npy"));
    EXPECT_EQ((file.size() - a.bytes.size()) % 64, 0u) << "data must start at a multiple of 64";
  }
  NpyArray u;
  u.dtype = "<u2";
  u.shape = {3, 2};
  u.bytes = {0xC0, 0x7F, 0x80, 0x3F, 0x00, 0x80, 0x01, 0x00, 0x80, 0xFF, 0x7F, 0x7F};
  write_npy(path("u.npy"), u, "--output");
  const NpyArray v = read_npy(path("u.npy"), "--input", {"<f4", "<u2"});
  EXPECT_EQ(v.dtype, "<u2");
  EXPECT_EQ(v.shape, u.shape);
  EXPECT_EQ(v.bytes, u.bytes);
}

TEST_F(Npy, WritesTheBytesNumPy124Writes) {
  NpyArray a;
  a.dtype = "<f4";
  a.shape = {2, 3};
  a.bytes.assign(24, 0);
  write_npy(path("z.npy"), a, "--output");
  const std::string file = slurp(path("z.npy"));
  EXPECT_EQ(file, kNumpy124Header + std::string(24, '\0')) << hex_dump(file.substr(0, 128));
  // A 1-d array: shape (3,), growth padding 21 - len("3") = 20.
  NpyArray i;
  i.dtype = "<i8";
  i.shape = {3};
  i.bytes.assign(24, 0);
  write_npy(path("i.npy"), i, "--output");
  const std::string dict = "{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }";
  const std::string expected_header = dict + std::string(20, ' ');
  const size_t pad = 64 - (10 + expected_header.size() + 1) % 64;
  EXPECT_EQ(slurp(path("i.npy")).substr(10, expected_header.size() + pad + 1), expected_header + std::string(pad, ' ') + "\n");
}

TEST_F(Npy, ReadsHeadersAsRealNumPyVersionsWriteThem) {
  const std::string data(24, '\0');
  struct Case {
    const char* what;
    std::string bytes;
    std::vector<std::int64_t> shape;
  };
  const std::string dict23 = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  const Case cases[] = {
      {"NumPy 1.24, v1.0", kNumpy124Header + data, {2, 3}},
      // NumPy < 1.14 aligned to 16 bytes and had no growth padding: header length 70 = 'F'.
      {"NumPy 1.13, v1.0", std::string("\x93NUMPY\x01\x00" "F\x00", 10) + dict23 + std::string(10, ' ') + "\n" + data, {2, 3}},
      // np.save(..., allow_pickle) with a header over 65535 bytes switches to v2.0: a 4-byte length.
      {"v2.0", std::string("\x93NUMPY\x02\x00" "t\x00\x00\x00", 12) + dict23 + std::string(56, ' ') + "\n" + data, {2, 3}},
      // v3.0: UTF-8 header, otherwise as v2.0.
      {"v3.0", std::string("\x93NUMPY\x03\x00" "t\x00\x00\x00", 12) + dict23 + std::string(56, ' ') + "\n" + data, {2, 3}},
      {"double quotes, no trailing comma, other key order",
       std::string("\x93NUMPY\x01\x00" "8\x00", 10) + "{\"shape\": (6,), \"descr\": \"<f4\", \"fortran_order\": False}\n" + data, {6}},
      {"Python 2 long literals", std::string("\x93NUMPY\x01\x00" "F\x00", 10) + "{'descr': '<f4', 'fortran_order': False, 'shape': (2L, 3L), }" + std::string(8, ' ') + "\n" + data, {2, 3}},
      {"scalar", std::string("\x93NUMPY\x01\x00" "8\x00", 10) + "{'descr': '<f4', 'fortran_order': False, 'shape': (), }" + std::string(0, ' ') + "\n" + data.substr(0, 4), {}},
  };
  for (const Case& c : cases) {
    const std::string p = write_raw("h.npy", c.bytes);
    try {
      const NpyArray a = read_npy(p, "--input", {"<f4"});
      EXPECT_EQ(a.shape, c.shape) << c.what;
      EXPECT_EQ(a.dtype, "<f4") << c.what;
      EXPECT_EQ(a.bytes.size(), static_cast<size_t>(a.elements()) * 4) << c.what;
    } catch (const InputError& e) {
      ADD_FAILURE() << c.what << ": " << e.what() << "\n" << hex_dump(c.bytes.substr(0, 140));
    }
  }
}

TEST_F(Npy, TruncatedAndOverlongDataNameTheSizes) {
  NpyArray a = f32_array({4, 2, 8});  // 256 bytes of data
  write_npy(path("full.npy"), a, "--output");
  const std::string full = slurp(path("full.npy"));
  const size_t data_at = full.size() - 256;
  write_raw("short.npy", full.substr(0, data_at + 100));
  const std::string m = error_of([&] { read_npy(path("short.npy"), "--input", {"<f4"}); }, "--input");
  EXPECT_NE(m.find("file is truncated: shape (4, 2, 8) needs 256 bytes of data, found 100"), std::string::npos) << m;
  EXPECT_NE(m.find(path("short.npy")), std::string::npos) << m;
  write_raw("long.npy", full + "xyz");
  const std::string l = error_of([&] { read_npy(path("long.npy"), "--input", {"<f4"}); }, "--input");
  EXPECT_NE(l.find("needs 256 bytes of data, found 259"), std::string::npos) << l;
  // Cut inside the header.
  write_raw("head.npy", full.substr(0, 40));
  const std::string h = error_of([&] { read_npy(path("head.npy"), "--input", {"<f4"}); }, "--input");
  EXPECT_NE(h.find("truncated"), std::string::npos) << h;
  write_raw("len.npy", full.substr(0, 9));
  EXPECT_NE(error_of([&] { read_npy(path("len.npy"), "--input", {"<f4"}); }, "--input").find("truncated"), std::string::npos);
}

TEST_F(Npy, RejectsBigEndianAndUnlistedDtypesListingTheAcceptedOnes) {
  std::string be = kNumpy124Header + std::string(24, '\0');
  be.replace(be.find("<f4"), 3, ">f4");
  const std::string m = error_of([&] { read_npy(write_raw("be.npy", be), "--input", {"<f4", "<u2"}); }, "--input");
  EXPECT_NE(m.find("'<f4' or '<u2'"), std::string::npos) << m;
  EXPECT_NE(m.find("'>f4'"), std::string::npos) << m;
  EXPECT_NE(m.find("big-endian"), std::string::npos) << m;
  // Big-endian is refused even when the caller lists no dtypes.
  EXPECT_NE(error_of([&] { read_npy(path("be.npy"), "--input", {}); }, "--input").find("big-endian"), std::string::npos);

  std::string f8 = kNumpy124Header + std::string(48, '\0');
  f8.replace(f8.find("<f4"), 3, "<f8");
  const std::string w = error_of([&] { read_npy(write_raw("f8.npy", f8), "--input", {"<f4"}); }, "--input");
  EXPECT_NE(w.find("'<f8'"), std::string::npos) << w;
  EXPECT_NE(w.find("'<f4'"), std::string::npos) << w;
  EXPECT_EQ(read_npy(path("f8.npy"), "--input", {"<f4", "<f8"}).dtype, "<f8");
}

TEST_F(Npy, RejectsEveryMalformedHeader) {
  auto with_dict = [](const std::string& dict) {
    std::string h = dict + "\n";
    std::string out("\x93NUMPY\x01\x00", 8);
    out += static_cast<char>(h.size() & 0xFF);
    out += static_cast<char>(h.size() >> 8);
    return out + h + std::string(24, '\0');
  };
  struct Case {
    const char* what;
    std::string bytes;
    const char* says;  // a part of the message
  };
  const Case cases[] = {
      {"not npy", "PK\x03\x04 this is a zip", "not a .npy file"},
      {"empty file", "", "not a .npy file"},
      {"version 4.0", std::string("\x93NUMPY\x04\x00" "F\x00", 10) + std::string(70, ' '), "version 4.0"},
      {"version 1.1", std::string("\x93NUMPY\x01\x01" "F\x00", 10) + std::string(70, ' '), "version 1.1"},
      {"fortran order", with_dict("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }"), "fortran_order True"},
      {"missing shape", with_dict("{'descr': '<f4', 'fortran_order': False, }"), "'shape'"},
      {"extra key", with_dict("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'x': 1, }"), "'x'"},
      {"structured dtype", with_dict("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2, 3), }"), "structured"},
      {"negative dimension", with_dict("{'descr': '<f4', 'fortran_order': False, 'shape': (-2, 3), }"), "non-negative"},
      {"list shape", with_dict("{'descr': '<f4', 'fortran_order': False, 'shape': [2, 3], }"), "header"},
      {"not a dict", with_dict("('<f4', False, (2, 3))"), "header"},
      {"garbage after dict", with_dict("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } x"), "closing brace"},
      {"bool as int", with_dict("{'descr': '<f4', 'fortran_order': 0, 'shape': (2, 3), }"), "True or False"},
      {"huge shape", with_dict("{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 4), }"), "2^62"},
      {"unknown dtype", with_dict("{'descr': '<c8', 'fortran_order': False, 'shape': (2, 3), }"), "'<c8'"},
  };
  for (const Case& c : cases) {
    const std::string p = write_raw("bad.npy", c.bytes);
    const std::string m = error_of([&] { read_npy(p, "--input", {"<f4"}); }, "--input");
    EXPECT_NE(m.find(c.says), std::string::npos) << c.what << ": " << m;
    EXPECT_NE(m.find(p), std::string::npos) << c.what << ": the message names the file: " << m;
  }
  EXPECT_NE(error_of([&] { read_npy(path("missing.npy"), "--positions", {"<i8"}); }, "--positions").find("readable"),
            std::string::npos);
}

// Found by the fuzz target npy (tests/fuzz/corpus/npy/crash-shape-of-2-to-the-62-bytes): a data
// section of exactly 2^62 bytes passed the size check that refuses 2^62 bytes or more.
TEST_F(Npy, RefusesAShapeOfExactly2To62BytesAndAcceptsOneByteLess) {
  auto header = [](const std::string& descr, const std::string& shape) {
    const std::string h = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }\n";
    std::string out("\x93NUMPY\x01\x00", 8);
    out += static_cast<char>(h.size() & 0xFF);
    out += static_cast<char>(h.size() >> 8);
    return out + h;
  };
  for (const auto& [descr, shape] : std::vector<std::pair<std::string, std::string>>{
           {"|u1", "(4611686018427387904,)"}, {"<f4", "(1152921504606846976,)"}, {"<i8", "(2, 288230376151711744)"}, {"<f4", "(0, 1152921504606846976)"}}) {
    const std::string bytes = header(descr, shape);
    const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
    if (shape.rfind("(0,", 0) == 0) {
      EXPECT_EQ(npy_data_size(parse_npy_header(data, bytes.size(), "member", "x.npz", {})), 0u) << shape;  // no data at all
      continue;
    }
    EXPECT_NE(error_of([&] { parse_npy_header(data, bytes.size(), "member", "x.npz", {}); }, "member").find("2^62"), std::string::npos)
        << descr << " " << shape;
  }
  const std::string largest = header("|u1", "(4611686018427387903,)");
  EXPECT_EQ(npy_data_size(parse_npy_header(reinterpret_cast<const unsigned char*>(largest.data()), largest.size(), "member", "x.npz", {})),
            (std::uint64_t{1} << 62) - 1);
}

TEST_F(Npy, WriteToABadDirectoryIsAnInputErrorAndLeavesNothing) {
  const NpyArray a = f32_array({2});
  error_of([&] { write_npy("/nonexistent-ropecheck-dir/y.npy", a, "--output"); }, "--output");
  EXPECT_FALSE(fs::exists("/nonexistent-ropecheck-dir"));
}

NpyArray positions_array(const std::string& dtype, const std::vector<double>& values) {
  NpyArray a;
  a.dtype = dtype;
  a.shape = {static_cast<std::int64_t>(values.size())};
  for (double v : values) {
    unsigned char buf[8];
    size_t n = 0;
    if (dtype == "<f8") std::memcpy(buf, &v, n = 8);
    if (dtype == "<f4") {
      const float f = static_cast<float>(v);
      std::memcpy(buf, &f, n = 4);
    }
    if (dtype == "<i8") {
      const auto i = static_cast<std::int64_t>(v);
      std::memcpy(buf, &i, n = 8);
    }
    if (dtype == "<i4") {
      const auto i = static_cast<std::int32_t>(v);
      std::memcpy(buf, &i, n = 4);
    }
    if (dtype == "<u2") {
      const auto i = static_cast<std::uint16_t>(v);
      std::memcpy(buf, &i, n = 2);
    }
    a.bytes.insert(a.bytes.end(), buf, buf + n);
  }
  return a;
}

TEST(NpyPositions, EveryIntegerDtypeAndIntegralFloats) {
  const std::vector<double> v = {0, 1, -1, 4095, -2147483648.0, 2147483647.0};
  for (const char* dtype : {"<i8", "<i4", "<f8"}) {
    const std::vector<std::int64_t> p = positions_from_npy(positions_array(dtype, v), 6, "--positions");
    EXPECT_EQ(p, (std::vector<std::int64_t>{0, 1, -1, 4095, -2147483648LL, 2147483647LL})) << dtype;
  }
  EXPECT_EQ(positions_from_npy(positions_array("<f4", {0, -3, 16777216}), 3, "--positions"),
            (std::vector<std::int64_t>{0, -3, 16777216}));
  // The ends of the int64 range as doubles: -2^63 is an int64, 2^63 is not.
  EXPECT_EQ(positions_from_npy(positions_array("<f8", {-0x1p63}), 1, "--positions")[0], INT64_MIN);
  NpyArray big;
  big.dtype = "<i8";
  big.shape = {1, 2};  // any shape with the right count: a (1, T) tensor from PyTorch
  const std::int64_t values[2] = {INT64_MAX, INT64_MIN};
  big.bytes.assign(reinterpret_cast<const unsigned char*>(values), reinterpret_cast<const unsigned char*>(values) + 16);
  EXPECT_EQ(positions_from_npy(big, 2, "--positions"), (std::vector<std::int64_t>{INT64_MAX, INT64_MIN}));
  // No positions for no tokens (shape (0,) or (0, 4)): nothing is copied. The fuzz campaign found
  // memcpy called with the empty vector's null data() (UBSan: null pointer passed as argument 1;
  // tests/fuzz/corpus/npy/crash-memcpy-of-zero-positions).
  for (const char* dtype : {"<i8", "<i4", "<f8", "<f4"}) EXPECT_TRUE(positions_from_npy(positions_array(dtype, {}), 0, "--positions").empty()) << dtype;
}

TEST(NpyPositions, RejectsNaNNonIntegersOutOfRangeWrongCountAndDtype) {
  struct Case {
    NpyArray array;
    std::int64_t expected;
    const char* says;
  };
  const Case cases[] = {
      {positions_array("<f8", {0, std::nan("")}), 2, "nan at index 1"},
      {positions_array("<f4", {std::nanf("")}), 1, "nan at index 0"},
      {positions_array("<f8", {2.5}), 1, "2.5 at index 0"},
      {positions_array("<f8", {INFINITY}), 1, "inf"},
      {positions_array("<f8", {0x1p63}), 1, "index 0"},
      // Beyond 2^24 a float32 holds only every other integer: 16777218 may stand for 16777217.
      {positions_array("<f4", {16777218.0}), 1, "16777218 at index 0"},
      {positions_array("<f4", {-33554432.0}), 1, "within [-2^24, 2^24]"},
      {positions_array("<i8", {0, 1, 2}), 4, "4 positions"},
      {positions_array("<i8", {0, 1, 2}), 2, "got 3 positions, shape (3,)"},
      {positions_array("<u2", {0}), 1, "'<u2'"},
  };
  for (const Case& c : cases) {
    try {
      positions_from_npy(c.array, c.expected, "--positions");
      ADD_FAILURE() << "accepted: " << c.says;
    } catch (const InputError& e) {
      EXPECT_EQ(e.input(), "--positions");
      EXPECT_NE(std::string(e.what()).find(c.says), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace ropecheck
