// File: npz.h
// NumPy .npz archives (np.savez: stored members; np.savez_compressed: deflated members; zip64
// extra fields as NumPy writes them) read through libzip, member by member: a small member whole,
// a large one as a sequential stream of its data section, so a capture of gigabytes is never held
// in memory. Every member is a .npy file (io/npy.h) named "<name>.npy".
//
// Errors are InputErrors naming `input` (the flag, e.g. "--capture") for the archive, or
// "<input>: member '<name>'" for one member, with the path and libzip's reason in the "got" part.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "io/npy.h"

struct zip;       // libzip's zip_t, kept out of this header
struct zip_file;  // libzip's zip_file_t

namespace ropecheck {

class NpzArchive {
 public:
  // Opens `path` read-only, with libzip's stricter consistency checks. Throws InputError naming
  // `input`: unreadable file, not a zip archive, a truncated or inconsistent one.
  NpzArchive(const std::string& path, const std::string& input);
  ~NpzArchive();
  NpzArchive(NpzArchive&& other) noexcept;
  NpzArchive& operator=(NpzArchive&& other) noexcept;
  NpzArchive(const NpzArchive&) = delete;
  NpzArchive& operator=(const NpzArchive&) = delete;

  // Returns: the members' names in archive order, without the ".npy" suffix (a member not ending
  // in ".npy" keeps its whole name, so a caller can name it when refusing it).
  std::vector<std::string> members() const;
  // Returns: whether the archive has the member "<name>.npy".
  bool has(const std::string& name) const;

  // Returns: the member's .npy header (any little-endian dtype io/npy.h knows, numeric or '<U<n>').
  // Throws InputError naming the member: missing, unreadable, a header it cannot parse, or a data
  // section of another size than the header's shape and dtype say.
  NpyHeader header(const std::string& name) const;
  // Returns: the whole member (for small members), its dtype among `accepted_dtypes` (empty: any
  // dtype header() accepts). Throws as header() does, for another dtype, and as Stream::read does.
  NpyArray read(const std::string& name, const std::vector<std::string>& accepted_dtypes) const;

  // A sequential reader of one member's data section. Movable; closes the member when it goes.
  // Valid while its archive lives.
  class Stream {
   public:
    ~Stream();
    Stream(Stream&& other) noexcept;
    Stream& operator=(Stream&& other) noexcept;
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;

    // Reads the next `bytes` bytes of the data section into `out`. Requires bytes <= remaining()
    // (std::logic_error otherwise). Throws InputError naming the member: a member whose data ends
    // early (truncated), a libzip or zlib error (corrupt data; a CRC mismatch is only detected
    // once the member's last byte has been read, so by finish()).
    void read(unsigned char* out, std::size_t bytes);
    // Requires: the whole data section read. Checks that the member ends there and that its CRC
    // matches. Throws InputError naming the member otherwise.
    void finish();
    // Returns: the data section's bytes not read yet.
    std::uint64_t remaining() const { return remaining_; }
    const NpyHeader& header() const { return header_; }

   private:
    friend class NpzArchive;
    Stream(zip_file* file, NpyHeader header, std::uint64_t data_size, std::string input, std::string where);
    void close() noexcept;
    [[noreturn]] void fail(const std::string& what) const;

    zip_file* file_ = nullptr;
    NpyHeader header_;
    std::uint64_t remaining_ = 0;
    std::string input_;  // "<input>: member '<name>'"
    std::string where_;  // the archive's path
  };

  // Returns: a stream positioned at the start of the member's data section. Throws as header().
  Stream open(const std::string& name) const;

  const std::string& path() const { return path_; }
  const std::string& input() const { return input_; }
  // Returns: the name an InputError gives the member: "<input>: member '<name>'".
  std::string member_input(const std::string& name) const;

 private:
  zip* archive_ = nullptr;
  std::string path_;
  std::string input_;
};

}  // namespace ropecheck
