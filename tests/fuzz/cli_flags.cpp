// Fuzz target cli_flags: the CLI's parsers of number and range flags (cli/flags.h), called as
// functions: parse_integer with the ranges the commands use, parse_seed, parse_threads,
// parse_precision, parse_integer_list (--fig8-L), parse_shard (--shard K/N), parse_decimal
// (--max-ulp, --budget, --timing-tolerance), parse_scaling (--scaling), and the spectrum flags
// together (to_request, then resolve; --model is left out: it names a file to read). Every
// InputError is also rendered as the CLI prints it (cli_message).
// Input: one selector byte, then the flag's text; for the spectrum flags, the texts of --config,
// --dim, --theta, the variant's fraction, --scaling, --context and --sequence-length, one per line.
// Checks: an accepted value lies in the range the parser states, and prints back to the same value.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "cli/flags.h"
#include "cpu/thread_count.h"
#include "fuzz_support.h"
#include "montecarlo/partial.h"
#include "montecarlo/streams.h"
#include "numeric/precision.h"
#include "spectrum/spectrum_json.h"

namespace {

using namespace ropecheck;
using namespace ropecheck::cli;

constexpr long long kMax = std::numeric_limits<long long>::max();

void integer(const std::string& text, long long min, long long max) {
  long long v = 0;
  if (!fuzz::accepted([&] { v = parse_integer("--n", text, min, max); })) return;
  fuzz::check(v >= min && v <= max, [&] { return "parse_integer accepted '" + text + "' as " + std::to_string(v) + " outside its range"; });
  fuzz::check(parse_integer("--n", std::to_string(v), min, max) == v, [&] { return "parse_integer does not read back " + std::to_string(v); });
}

void integer_list(const std::string& text) {
  std::vector<std::int64_t> v;
  if (!fuzz::accepted([&] { v = parse_integer_list("--fig8-L", text, 11, std::int64_t{1} << 40); })) return;
  fuzz::check(!v.empty() && v.size() <= 8, [&] { return "parse_integer_list gave " + std::to_string(v.size()) + " items for '" + text + "'"; });
  for (std::int64_t x : v) fuzz::check(x >= 11 && x <= (std::int64_t{1} << 40), "parse_integer_list item outside its range");
}

void shard(const std::string& text) {
  montecarlo::Shard s;
  if (!fuzz::accepted([&] { s = parse_shard(text); })) return;
  fuzz::check(s.index >= 0 && s.index < s.count && s.count <= montecarlo::kMaxTrials, [&] { return "parse_shard accepted '" + text + "'"; });
  const montecarlo::Shard again = parse_shard(std::to_string(s.index) + "/" + std::to_string(s.count));
  fuzz::check(again.index == s.index && again.count == s.count, [&] { return "parse_shard does not read back '" + text + "'"; });
}

void decimal(const std::string& text) {
  double v = 0;
  if (fuzz::accepted([&] { v = parse_decimal("--max-ulp", text, "a decimal > 0", 0, std::numeric_limits<double>::max(), true); }))
    fuzz::check(std::isfinite(v) && v > 0, [&] { return "parse_decimal accepted '" + text + "' outside (0, max]"; });
  if (fuzz::accepted([&] { v = parse_decimal("--timing-tolerance", text, "a decimal in [0, 1000]", 0, 1000); }))
    fuzz::check(v >= 0 && v <= 1000, [&] { return "parse_decimal accepted '" + text + "' outside [0, 1000]"; });
}

void scaling(const std::string& text) {
  Scaling s;
  if (!fuzz::accepted([&] { s = parse_scaling(text); })) return;
  // The short --scaling text of the canonical JSON reads back as the same scaling.
  const nlohmann::json j = scaling_to_json(s);
  if (!j.is_string()) return;
  Scaling again;
  if (!fuzz::accepted([&] { again = parse_scaling(j.get<std::string>()); }))
    fuzz::fail("parse_scaling('" + text + "') is written as " + fuzz::shown(j) + ", which it refuses");
  fuzz::check(scaling_to_json(again) == j, [&] { return "--scaling '" + text + "' reads back as " + fuzz::shown(scaling_to_json(again)); });
}

void spectrum_flags(const std::string& text, unsigned char variant) {
  std::vector<std::string> fields;
  std::stringstream ss(text);
  for (std::string line; fields.size() < 7 && std::getline(ss, line);) fields.push_back(line);
  fields.resize(7);
  SpectrumFlags f;
  f.config = fields[0];
  f.dim = fields[1];
  f.theta = fields[2];
  // One variant flag, by its index in kVariants (0, rope: none given).
  const size_t v = variant % std::size(kVariants);
  if (kVariants[v].takes_fraction) f.variant_fraction[v] = fields[3];
  else if (kVariants[v].value != Variant::rope) f.variant_flag[v] = true;
  f.scaling = fields[4];
  f.context = fields[5];
  f.sequence_length = fields[6];
  try {
    const ResolvedSpectrum rs = resolve(to_request(f));
    fuzz::check(rs.spectrum.dim() >= 2 && rs.spectrum.dim() % 2 == 0, [&] { return "resolve gave dim " + std::to_string(rs.spectrum.dim()); });
    fuzz::check(rs.context >= 1, [&] { return "resolve gave context " + std::to_string(rs.context); });
  } catch (const InputError& e) {
    fuzz::check(!cli_message(e).empty(), "an empty CLI message");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const unsigned char selector = data[0];
  const std::string text = fuzz::text_of(data + 1, size - 1);
  switch (selector % 10) {
    case 0: integer(text, 1, kMaxLengthArgument); integer(text, 2, 1 << 20); break;
    case 1: integer(text, 0, kMax); integer(text, 0, 40); integer(text, 5, 5); break;
    case 2: {
      std::uint64_t v = 0;
      if (fuzz::accepted([&] { v = parse_seed(text); })) fuzz::check(parse_seed(std::to_string(v)) == v, [&] { return "parse_seed does not read back " + text; });
      break;
    }
    case 3: {
      int t = 0;
      if (fuzz::accepted([&] { t = parse_threads("--threads", text); })) fuzz::check(t >= 1 && t <= cpu::kMaxThreads, [&] { return "parse_threads accepted " + text; });
      unsigned bits = 0;
      if (fuzz::accepted([&] { bits = parse_precision(text); }))
        fuzz::check(bits >= kMinPrecisionBits && bits <= kMaxPrecisionBits, [&] { return "parse_precision accepted " + text; });
      break;
    }
    case 4: integer_list(text); break;
    case 5: shard(text); break;
    case 6: decimal(text); break;
    case 7: scaling(text); break;
    default: spectrum_flags(text, selector / 10); break;
  }
  return 0;
}
