// File: flags.h
// Flag parsing shared by the subcommands. Numbers are taken as text and parsed here, so every bad
// value gets ropecheck's one-line message naming the flag and its accepted range (InputError).
#pragma once

#include <CLI/CLI.hpp>
#include <array>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "io/input_error.h"
#include "spectrum/request.h"
#include "spectrum/variant.h"

namespace ropecheck::montecarlo {
struct Shard;  // montecarlo/partial.h
}

namespace ropecheck::cli {

// Raw text of the spectrum flags, as CLI11 stores them.
struct SpectrumFlags {
  std::string config, dim, theta, scaling, context;
  std::string model, layer_type, sequence_length;
  bool vllm_dynamic = false;
  // Per variant of kVariants (spectrum/variant.h), at its index: --<name> FRACTION when it takes a
  // fraction, else the flag --<name> (rope, the default, has none).
  std::array<std::string, std::size(kVariants)> variant_fraction;
  std::array<bool, std::size(kVariants)> variant_flag{};
};

// Adds --config --dim --theta, a flag per variant (--nope --p-rope --reversed --partial, mutually
// exclusive), --scaling --context --model --layer-type --sequence-length --vllm-dynamic to `cmd`.
void add_spectrum_flags(CLI::App* cmd, SpectrumFlags& flags);

// Returns: the request the flags describe. Throws InputError.
SpectrumRequest to_request(const SpectrumFlags& flags);

// Returns: e's message as the CLI prints it: a library parameter of the spectrum (dim, theta,
// config, context, scaling, fraction; io/input_error.h) renamed to the flag that carries it
// (variant, fraction: the variant flag to_request read); any other input as is.
std::string cli_message(const InputError& e);

// Refuses an unwritable output path at once (io/atomic_write.h check_writable_target: InputError
// naming flag) and sweeps the stale temporaries a killed run left beside it (io/temporaries.h),
// printing what it did, in one line, on stderr.
void check_output(const std::string& path, const std::string& flag);

// Returns: text parsed as an integer in [min, max]. Throws InputError(flag, range, text).
long long parse_integer(const std::string& flag, const std::string& text, long long min, long long max);
std::uint64_t parse_seed(const std::string& text);

// Returns: text parsed as 1 to 8 comma-separated integers, each in [min, max] (montecarlo's
// --fig8-L). Throws InputError(flag, ...) naming the range of the first bad item, or the count.
std::vector<std::int64_t> parse_integer_list(const std::string& flag, const std::string& text, std::int64_t min, std::int64_t max);

// Returns: a --shard K/N value (montecarlo/partial.h Shard): integers 0 <= K < N, N at most the
// largest trial count. Throws InputError("--shard", ...).
montecarlo::Shard parse_shard(const std::string& text);

// Returns: text parsed as a finite decimal (std::from_chars: the whole text; no spaces, hex-floats,
// inf or nan) in [min, max], or in (min, max] when min_excluded. Throws InputError(flag, accepted,
// text) otherwise (`accepted` states the range as the flag's help does: "a decimal > 0").
double parse_decimal(const std::string& flag, const std::string& text, const std::string& accepted, double min, double max,
                     bool min_excluded = false);

// Returns: a --threads value, an integer in [1, cpu::kMaxThreads] (cpu/thread_count.h). Throws
// InputError(flag, ...).
int parse_threads(const std::string& flag, const std::string& text);

// Returns: --precision BITS, validated to [kMinPrecisionBits, kMaxPrecisionBits]; default if empty.
unsigned parse_precision(const std::string& text);

}  // namespace ropecheck::cli
