#include "io/npz.h"

#include <zip.h>

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "io/input_error.h"

namespace ropecheck {

namespace {

const std::string kSuffix = ".npy";
const std::string kComplete = "a complete, uncorrupted .npz member";

std::string zip_code_text(int code) {
  zip_error_t error;
  zip_error_init_with_code(&error, code);
  std::string text = zip_error_strerror(&error);
  zip_error_fini(&error);
  return text;
}

}  // namespace

NpzArchive::NpzArchive(const std::string& path, const std::string& input) : path_(path), input_(input) {
  int code = 0;
  archive_ = zip_open(path.c_str(), ZIP_RDONLY | ZIP_CHECKCONS, &code);
  if (archive_ == nullptr)
    throw InputError(input, "a readable NumPy .npz file (a zip archive, as np.savez writes)", path + ": " + zip_code_text(code));
}

NpzArchive::~NpzArchive() {
  if (archive_ != nullptr) zip_discard(archive_);
}

NpzArchive::NpzArchive(NpzArchive&& other) noexcept
    : archive_(std::exchange(other.archive_, nullptr)), path_(std::move(other.path_)), input_(std::move(other.input_)) {}

NpzArchive& NpzArchive::operator=(NpzArchive&& other) noexcept {
  if (this != &other) {
    if (archive_ != nullptr) zip_discard(archive_);
    archive_ = std::exchange(other.archive_, nullptr);
    path_ = std::move(other.path_);
    input_ = std::move(other.input_);
  }
  return *this;
}

std::string NpzArchive::member_input(const std::string& name) const { return input_ + ": member '" + name + "'"; }

std::vector<std::string> NpzArchive::members() const {
  std::vector<std::string> out;
  const zip_int64_t n = zip_get_num_entries(archive_, 0);
  for (zip_int64_t i = 0; i < n; ++i) {
    const char* raw = zip_get_name(archive_, static_cast<zip_uint64_t>(i), 0);
    if (raw == nullptr) continue;
    std::string name = raw;
    if (name.size() > kSuffix.size() && name.compare(name.size() - kSuffix.size(), kSuffix.size(), kSuffix) == 0)
      name.resize(name.size() - kSuffix.size());
    out.push_back(std::move(name));
  }
  return out;
}

bool NpzArchive::has(const std::string& name) const { return zip_name_locate(archive_, (name + kSuffix).c_str(), 0) >= 0; }

NpzArchive::Stream NpzArchive::open(const std::string& name) const {
  const std::string member = member_input(name);
  const zip_int64_t index = zip_name_locate(archive_, (name + kSuffix).c_str(), 0);
  if (index < 0) throw InputError(member, "present in the archive", path_ + ": no member '" + name + kSuffix + "'");
  zip_stat_t st;
  zip_stat_init(&st);
  if (zip_stat_index(archive_, static_cast<zip_uint64_t>(index), 0, &st) != 0 || (st.valid & ZIP_STAT_SIZE) == 0)
    throw InputError(member, kComplete, path_ + ": " + zip_error_strerror(zip_get_error(archive_)));
  zip_file_t* file = zip_fopen_index(archive_, static_cast<zip_uint64_t>(index), 0);
  if (file == nullptr) throw InputError(member, kComplete, path_ + ": " + zip_error_strerror(zip_get_error(archive_)));
  // The stream owns the member from here; it reads the header's prefix itself, then the header.
  Stream stream(file, NpyHeader{}, st.size, member, path_);
  unsigned char start[12];
  const std::size_t first = static_cast<std::size_t>(std::min<zip_uint64_t>(st.size, sizeof start));
  stream.read(start, first);
  const std::size_t prefix_size = npy_prefix_size(start, first, member, path_);
  // A version 1.0 header length of 0 or 1 ends the header inside the 12 bytes just read: too short
  // for any header dict (and copying those 12 bytes into it would overrun it).
  if (prefix_size < first)
    throw InputError(member, "a .npy file whose header holds its dict",
                     path_ + ": the header length says the header ends at byte " + std::to_string(prefix_size));
  if (prefix_size > st.size)
    throw InputError(member, "a complete .npy file",
                     path_ + ": member is truncated: the header needs " + std::to_string(prefix_size) + " bytes, found " +
                         std::to_string(st.size));
  std::vector<unsigned char> prefix(prefix_size);
  std::copy(start, start + first, prefix.begin());
  stream.read(prefix.data() + first, prefix_size - first);
  stream.header_ = parse_npy_header(prefix.data(), prefix.size(), member, path_, {});
  const std::uint64_t needed = npy_data_size(stream.header_);
  const std::uint64_t found = st.size - prefix_size;
  if (found != needed)
    throw InputError(member, "a complete .npy file",
                     path_ + ": member " + (found < needed ? "is truncated" : "has trailing bytes") + ": shape " +
                         shape_repr(stream.header_.shape) + " of dtype '" + stream.header_.dtype + "' needs " +
                         std::to_string(needed) + " bytes of data, found " + std::to_string(found));
  stream.remaining_ = needed;
  return stream;
}

NpyHeader NpzArchive::header(const std::string& name) const { return open(name).header(); }

NpyArray NpzArchive::read(const std::string& name, const std::vector<std::string>& accepted_dtypes) const {
  Stream stream = open(name);
  NpyArray a;
  a.dtype = stream.header().dtype;
  a.shape = stream.header().shape;
  if (!accepted_dtypes.empty() && std::find(accepted_dtypes.begin(), accepted_dtypes.end(), a.dtype) == accepted_dtypes.end()) {
    std::vector<std::string> quoted;
    for (const std::string& d : accepted_dtypes) quoted.push_back("'" + d + "'");
    throw InputError(member_input(name), "a little-endian .npy file of dtype " + or_list(quoted),
                     path_ + ": dtype '" + a.dtype + "'");
  }
  a.bytes.resize(static_cast<std::size_t>(stream.remaining()));
  stream.read(a.bytes.data(), a.bytes.size());
  stream.finish();
  return a;
}

NpzArchive::Stream::Stream(zip_file* file, NpyHeader header, std::uint64_t data_size, std::string input, std::string where)
    : file_(file), header_(std::move(header)), remaining_(data_size), input_(std::move(input)), where_(std::move(where)) {}

NpzArchive::Stream::~Stream() { close(); }

NpzArchive::Stream::Stream(Stream&& other) noexcept
    : file_(std::exchange(other.file_, nullptr)),
      header_(std::move(other.header_)),
      remaining_(std::exchange(other.remaining_, 0)),
      input_(std::move(other.input_)),
      where_(std::move(other.where_)) {}

NpzArchive::Stream& NpzArchive::Stream::operator=(Stream&& other) noexcept {
  if (this != &other) {
    close();
    file_ = std::exchange(other.file_, nullptr);
    header_ = std::move(other.header_);
    remaining_ = std::exchange(other.remaining_, 0);
    input_ = std::move(other.input_);
    where_ = std::move(other.where_);
  }
  return *this;
}

void NpzArchive::Stream::close() noexcept {
  if (file_ != nullptr) zip_fclose(file_);
  file_ = nullptr;
}

void NpzArchive::Stream::fail(const std::string& what) const { throw InputError(input_, kComplete, where_ + ": " + what); }

void NpzArchive::Stream::read(unsigned char* out, std::size_t bytes) {
  if (file_ == nullptr) throw std::logic_error("NpzArchive::Stream::read: the stream is closed");
  if (bytes > remaining_) throw std::logic_error("NpzArchive::Stream::read: past the end of the data section");
  std::size_t done = 0;
  while (done < bytes) {
    const zip_int64_t n = zip_fread(file_, out + done, bytes - done);
    if (n < 0) fail(zip_error_strerror(zip_file_get_error(file_)));
    if (n == 0) fail("member ends " + std::to_string(remaining_ - done) + " bytes before the end its header states");
    done += static_cast<std::size_t>(n);
  }
  remaining_ -= bytes;
}

void NpzArchive::Stream::finish() {
  if (file_ == nullptr) throw std::logic_error("NpzArchive::Stream::finish: the stream is closed");
  if (remaining_ != 0) throw std::logic_error("NpzArchive::Stream::finish: data left unread");
  // One more read: libzip checks the CRC when it meets the member's end.
  unsigned char extra;
  const zip_int64_t n = zip_fread(file_, &extra, 1);
  if (n < 0) fail(zip_error_strerror(zip_file_get_error(file_)));
  if (n > 0) fail("member has bytes beyond the data section its header states");
  close();
}

}  // namespace ropecheck
