#include "cli/flags.h"

#include <charconv>
#include <cmath>
#include <iostream>
#include <limits>
#include <sstream>

#include "cpu/thread_count.h"
#include "io/atomic_write.h"
#include "io/input_error.h"
#include "io/temporaries.h"
#include "montecarlo/partial.h"
#include "montecarlo/streams.h"
#include "numeric/precision.h"
#include "spectrum/config.h"

namespace ropecheck::cli {
namespace {

// The flag that carried the spectrum's fraction on this command line (one command per process).
std::string fraction_flag = "--p-rope";

}  // namespace

std::string cli_message(const InputError& e) {
  const std::string& p = e.input();
  if (p == "dim" || p == "theta" || p == "config" || p == "context" || p == "scaling" || p == "model") return e.message_for("--" + p);
  if (p == "layer_type") return e.message_for("--layer-type");
  if (p == "variant") return e.message_for(fraction_flag);
  if (p.rfind("scaling.", 0) == 0) return e.message_for("--scaling (" + p.substr(8) + ")");
  if (p == "fraction") return e.message_for(fraction_flag);
  return e.what();
}

void add_spectrum_flags(CLI::App* cmd, SpectrumFlags& f) {
  cmd->add_option("--config", f.config, "named configuration: " + config_names());
  cmd->add_option("--dim", f.dim, "head dimension d (even, >= 2)");
  cmd->add_option("--theta", f.theta, "base wavelength theta (decimal > 1; default 10000)");
  std::vector<CLI::Option*> variants;
  for (size_t i = 0; i < std::size(kVariants); ++i) {
    const VariantInfo& v = kVariants[i];
    if (v.value == Variant::rope) continue;  // the default
    const std::string flag = "--" + std::string(v.name), help(v.help);
    CLI::Option* o = v.takes_fraction ? cmd->add_option(flag, f.variant_fraction[i], help) : cmd->add_flag(flag, f.variant_flag[i], help);
    for (CLI::Option* other : variants) o->excludes(other);
    variants.push_back(o);
  }
  cmd->add_option("--scaling", f.scaling, "frequency scaling: none, linear:F, llama3, llama3:F:LOW:HIGH:C");
  cmd->add_option("--context", f.context, "context length N in tokens (integer >= 1)");
  auto* model = cmd->add_option("--model", f.model, "a model: a zoo name (ropecheck models) or a Hugging Face config.json path");
  cmd->add_option("--layer-type", f.layer_type, "with --model: the layer type (default: the first with RoPE)")->needs(model);
  cmd->add_option("--sequence-length", f.sequence_length,
                  "with --model: the sequence length S of dynamic and longrope rules (default: the model's context)")->needs(model);
  cmd->add_flag("--vllm-dynamic", f.vllm_dynamic, "with --model: vLLM's static dynamic-NTK rule (S = factor x max_position)")->needs(model);
}

void check_output(const std::string& path, const std::string& flag) {
  check_writable_target(path, flag);
  const std::string swept = sweep_stale_temporaries(path);
  if (!swept.empty()) std::cerr << swept << "\n";
}

long long parse_integer(const std::string& flag, const std::string& text, long long min, long long max) {
  const std::string range = min == max ? std::to_string(min)
                          : max == std::numeric_limits<long long>::max() ? "an integer >= " + std::to_string(min)
                                                                         : "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
  long long v = 0;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(first, last, v);
  if (text.empty() || ec != std::errc() || ptr != last || v < min || v > max) throw InputError(flag, range, text);
  return v;
}

std::vector<std::int64_t> parse_integer_list(const std::string& flag, const std::string& text, std::int64_t min, std::int64_t max) {
  std::vector<std::int64_t> v;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) v.push_back(parse_integer(flag, item, min, max));
  if (v.empty() || v.size() > 8) throw InputError(flag, "1 to 8 comma-separated integers", text);
  return v;
}

montecarlo::Shard parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  if (slash == std::string::npos) throw InputError("--shard", "K/N with integers 0 <= K < N", text);
  montecarlo::Shard s;
  s.count = parse_integer("--shard", text.substr(slash + 1), 1, montecarlo::kMaxTrials);
  s.index = parse_integer("--shard", text.substr(0, slash), 0, montecarlo::kMaxTrials);
  if (s.index >= s.count) throw InputError("--shard", "K/N with 0 <= K < N", text);
  return s;
}

double parse_decimal(const std::string& flag, const std::string& text, const std::string& accepted, double min, double max, bool min_excluded) {
  double v = 0;
  const char* last = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), last, v);
  if (text.empty() || ec != std::errc() || ptr != last || !std::isfinite(v) || v > max || v < min || (min_excluded && v == min))
    throw InputError(flag, accepted, text);
  return v;
}

int parse_threads(const std::string& flag, const std::string& text) {
  return static_cast<int>(parse_integer(flag, text, 1, cpu::kMaxThreads));
}

std::uint64_t parse_seed(const std::string& text) {
  std::uint64_t v = 0;
  const char* last = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), last, v);
  if (text.empty() || ec != std::errc() || ptr != last) throw InputError("--seed", "an integer in [0, 2^64)", text);
  return v;
}

unsigned parse_precision(const std::string& text) {
  if (text.empty()) return kDefaultPrecisionBits;
  return static_cast<unsigned>(parse_integer("--precision", text, kMinPrecisionBits, kMaxPrecisionBits));
}

SpectrumRequest to_request(const SpectrumFlags& f) {
  SpectrumRequest r;
  if (!f.config.empty()) r.config = f.config;
  if (!f.dim.empty()) r.dim = static_cast<int>(parse_integer("--dim", f.dim, 2, 1 << 20));
  if (!f.theta.empty()) r.theta = f.theta;
  for (size_t i = 0; i < std::size(kVariants); ++i) {
    const VariantInfo& v = kVariants[i];
    if (!f.variant_flag[i] && f.variant_fraction[i].empty()) continue;
    r.variant = v.value;
    if (v.takes_fraction) r.fraction = f.variant_fraction[i];
    fraction_flag = "--" + std::string(v.name);
  }
  if (!f.scaling.empty()) r.scaling = parse_scaling(f.scaling);
  if (!f.context.empty()) r.context = parse_integer("--context", f.context, 1, kMaxLengthArgument);
  if (!f.model.empty()) r.model = f.model;
  if (!f.layer_type.empty()) r.layer_type = f.layer_type;
  if (!f.sequence_length.empty()) r.sequence_length = parse_integer("--sequence-length", f.sequence_length, 1, kMaxLengthArgument);
  r.vllm_dynamic = f.vllm_dynamic;
  return r;
}

}  // namespace ropecheck::cli
