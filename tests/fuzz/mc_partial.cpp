// Fuzz target mc_partial: Monte Carlo partial files (montecarlo/partial.h parse_partial) and what
// `ropecheck merge` does with them: merge_partials, then analyse (montecarlo/analysis.h) when the
// shards are complete. The input is one partial, or two separated by fuzz::kSeparator (merged in
// both orders).
// A partial carries the sha256 of its content, so nearly every mutation is refused by the checksum
// alone: each document is also tried with its checksum recomputed (as partial_text computes it), so
// that the readers behind the checksum are reached.
// Checks: an accepted partial written by partial_text reads back as the same text; merging is
// order-free (partial_text of merge(a, b) and merge(b, a) agree, or both are refused).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "io/sha256.h"
#include "montecarlo/analysis.h"
#include "montecarlo/partial.h"

namespace {

using namespace ropecheck;
using namespace ropecheck::montecarlo;

// Returns: `text` with its "sha256" member recomputed, when text is a JSON object no deeper than
// any partial (the harness's own parse and dump must not overflow the stack where the reader
// refuses); else nothing.
std::optional<std::string> with_checksum(const std::string& text) {
  if (fuzz::nesting_depth(text) > 16) return std::nullopt;
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  j.erase("sha256");
  j["sha256"] = sha256_hex(j.dump());
  return j.dump() + "\n";
}

// Returns: the partial in `text` (tried as given, then with its checksum recomputed), checked to
// round-trip; nothing when refused both ways.
std::optional<Partial> parse(const std::string& text, const std::string& input) {
  std::optional<Partial> p;
  if (!fuzz::accepted([&] { p = parse_partial(text, input); })) {
    const std::optional<std::string> fixed = with_checksum(text);
    if (!fixed || !fuzz::accepted([&] { p = parse_partial(*fixed, input); })) return std::nullopt;
  }
  const std::string written = partial_text(*p);
  std::string again;
  if (!fuzz::accepted([&] { again = partial_text(parse_partial(written, input)); }))
    fuzz::fail("partial_text of an accepted partial is refused: " + written.substr(0, 300));
  fuzz::check(again == written, "partial_text -> parse_partial -> partial_text differs");
  return p;
}

std::optional<std::string> merged_text(const std::vector<Partial>& parts, const std::vector<std::string>& inputs) {
  std::optional<std::string> text;
  fuzz::accepted([&] {
    const Partial merged = merge_partials(parts, inputs);
    text = partial_text(merged);
    if (merged.complete()) analyse(merged);
  });
  return text;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::vector<std::string> texts = fuzz::split_parts(fuzz::text_of(data, size));
  std::vector<Partial> parts;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    std::optional<Partial> p = parse(texts[i], "part" + std::to_string(i) + ".json");
    if (!p) return 0;
    parts.push_back(std::move(*p));
  }
  if (parts.size() == 1) {
    merged_text(parts, {"part0.json"});
    return 0;
  }
  const std::optional<std::string> ab = merged_text({parts[0], parts[1]}, {"part0.json", "part1.json"});
  const std::optional<std::string> ba = merged_text({parts[1], parts[0]}, {"part1.json", "part0.json"});
  fuzz::check(ab.has_value() == ba.has_value(), "merge accepts the partials in one order only");
  if (ab) fuzz::check(*ab == *ba, "merge(a, b) and merge(b, a) differ");
  return 0;
}
