// File: fuzz_support.h
// What every fuzz harness (tests/fuzz/<target>.cpp) shares. The contract each harness checks on
// every input: the code under test either accepts it or refuses it with ropecheck::InputError
// (io/input_error.h: what the CLI turns into one line and exit 2). Any other exception escapes
// LLVMFuzzerTestOneInput, which libFuzzer (and replay_main.cpp) report as a crash, as they do a
// sanitizer report, a timeout or running out of memory. A harness that can cheaply check more (a
// round trip: parse, write, parse again gives the same value) fails through fuzz::check, which
// prints what differed and aborts.
// Header-only, for the harnesses alone.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/input_error.h"

namespace ropecheck::fuzz {

// Prints "fuzz harness: <what>" and aborts (a crash for libFuzzer and for the replay).
[[noreturn]] inline void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz harness: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

// Fails with `what` unless `ok`.
inline void check(bool ok, const std::string& what) {
  if (!ok) fail(what);
}
// Fails with the message what() returns unless `ok`: built only on failure (for messages that
// print values, such as JSON).
template <typename Message>
  requires std::is_invocable_r_v<std::string, Message>
inline void check(bool ok, Message&& what) {
  if (!ok) fail(what());
}

// Returns: j as compact JSON for a message, cut to 300 characters; never throws (invalid UTF-8 in
// a string, which dump() refuses, is replaced).
inline std::string shown(const nlohmann::json& j) {
  const std::string text = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return text.size() > 300 ? text.substr(0, 300) + "..." : text;
}

// Runs `body`; an InputError is a refusal, the other outcome the contract allows. Returns: true
// when `body` returned (the input was accepted).
template <typename F>
bool accepted(F&& body) {
  try {
    body();
    return true;
  } catch (const InputError&) {
    return false;
  }
}

// The input as text (the bytes as they are: no encoding is assumed).
inline std::string text_of(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// A directory of this process ($TMPDIR/ropecheck_fuzz_<pid>), for the readers that take a path:
// created on first use, removed with its files when the process exits normally.
class ScratchDir {
 public:
  static const std::filesystem::path& path() {
    static const ScratchDir dir;
    return dir.path_;
  }

 private:
  ScratchDir() : path_(std::filesystem::temp_directory_path() / ("ropecheck_fuzz_" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::filesystem::path path_;
};

// Returns: ScratchDir's file `name` holding exactly `bytes` (rewritten for every input).
inline std::string scratch_file(const std::string& name, std::string_view bytes) {
  const std::filesystem::path p = ScratchDir::path() / name;
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) fail("cannot write the scratch file " + p.string());
  return p.string();
}

// Returns: the deepest nesting of JSON arrays and objects in `text` (brackets inside strings not
// counted), for a harness that parses a document itself: nlohmann's dump and copies recurse once per
// level, so a harness must leave documents deeper than the project's readers accept to them.
inline std::size_t nesting_depth(std::string_view text) {
  std::size_t depth = 0, deepest = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

// The separator of the harnesses that read two documents from one input (mc_partial's merge,
// run_json's comparison): "OLD<kSeparator>NEW". Without it the input is one document.
inline constexpr std::string_view kSeparator = "\n--8<--\n";

// Returns: the input's parts around the first kSeparator (one part when there is none).
inline std::vector<std::string> split_parts(const std::string& text) {
  const std::size_t at = text.find(kSeparator);
  if (at == std::string::npos) return {text};
  return {text.substr(0, at), text.substr(at + kSeparator.size())};
}

}  // namespace ropecheck::fuzz
