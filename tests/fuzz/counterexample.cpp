// Fuzz target counterexample: a counterexample file's bytes, read as `ropecheck replay` reads them
// (adversarial/replay.h): the JSON file reader, then by its "target" either
//   - kernel: replay_kernel_counterexample (accuracy/kernel_counterexample.h), which parses the
//     document and recomputes the kernel's output against the MPFR reference. The kernel's contract
//     (every output correctly rounded, every path identical to the scalar twin, kernel/apply_rope.h)
//     means no document may replay as still_breaks: one that does is a kernel bug;
//   - channel or band: counterexample_from_json (adversarial/counterexample.h), its round trip
//     (to_json of the parsed file reads back as the same JSON), and check_attack (the certified
//     evaluation replay runs) for contexts short enough to stay within the harness's time.
#include <cstddef>
#include <cstdint>
#include <string>

#include "accuracy/kernel_counterexample.h"
#include "adversarial/certify.h"
#include "adversarial/counterexample.h"
#include "fuzz_support.h"
#include "io/json_reader.h"

namespace {

using namespace ropecheck;

// check_attack costs ~0.1 us per position and active chunk (adversarial/certify.h), more in MPFI.
constexpr long long kMaxCheckedLength = 4096;

void kernel_document(const nlohmann::json& doc, const std::string& where) {
  accuracy::KernelReplay r;
  if (!fuzz::accepted([&] { r = accuracy::replay_kernel_counterexample(doc, where); })) return;
  fuzz::check(r.verdict != ReplayVerdict::still_breaks, [&] { return "a kernel counterexample still breaks: " + r.detail; });
}

void attack_document(const nlohmann::json& doc, const std::string& where) {
  adversarial::Counterexample c;
  if (!fuzz::accepted([&] { c = adversarial::counterexample_from_json(doc, where); })) return;
  const nlohmann::json written = adversarial::to_json(c);
  adversarial::Counterexample again;
  if (!fuzz::accepted([&] { again = adversarial::counterexample_from_json(written, "written"); }))
    fuzz::fail("to_json of an accepted counterexample is refused: " + fuzz::shown(written));
  fuzz::check(adversarial::to_json(again) == written, "counterexample to_json -> from_json -> to_json differs");
  if (c.before.length <= kMaxCheckedLength) adversarial::check_attack(c.head, c.before, c.swaps);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = fuzz::scratch_file("cx.json", std::string_view(reinterpret_cast<const char*>(data), size));
  nlohmann::json doc;
  if (!fuzz::accepted([&] { doc = read_json_file(path); })) return 0;
  if (doc.is_object() && doc.contains("target") && doc["target"] == "kernel") kernel_document(doc, path);
  else attack_document(doc, path);
  return 0;
}
