#include "cli/usage_command.h"

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <cmath>
#include <limits>

#include "cli/flags.h"
#include "io/atomic_write.h"
#include "io/input_error.h"
#include "io/printf_string.h"
#include "io/temporaries.h"
#include "report/usage_figures.h"
#include "spectrum/model_zoo.h"
#include "usage/usage_json.h"
#include "usage/usage_compare.h"
#include "usage/usage_text.h"

namespace ropecheck::cli {

void UsageCommand::attach(CLI::App& app) {
  command = app.add_subcommand("usage",
                               "how a trained model uses its RoPE, measured on a capture of its pre-rotation queries and keys: frequency "
                               "usage per layer/head/pair, positional heads, the Section 5 ranking, frequency ablations, and certified "
                               "breaking distances of its semantic heads (Theorem 6.1)");
  command->add_option("--model", model, "a zoo name or a config.json path")->required();
  command->add_option("--capture", capture, ".npz with q [seq, layers, heads, tokens, head_dim], k, positions (docs/usage.md)")->required();
  command->add_option("--compare", compare,
                      "a second capture of the same model (another domain, length or seed): its usage beside this one's, one number for how "
                      "alike their per-pair usage is (Fig. 19), and with --out the usage-compare figure");
  command->add_option("--json", json_out, "write the ropecheck-usage/2 JSON to this file");
  command->add_option("--out", out_dir, "write usage.json and the figures (SVG, PNG, CSV) into this new directory");
  command->add_option("--threads", threads, "worker threads (results do not depend on it; default 1)");
  command->add_option("--content-distance", content_distance, "a content match lies at least this many tokens back (default 64)");
  command->add_option("--break-limit", break_limit, "breaking distances are certified over [0, N], N in [1, 2^40] (default 2^20)");
  command->add_option("--strong-match", strong_match, "a content match holds at least this weight of its row, in (0, 1] (default 0.5)");
  command->add_option("--break-rows", break_rows, "strong content matches certified per content head, in [1, 1024] (default 8)");
  command->add_flag("--no-breaks", no_breaks, "skip the breaking-distance certificates");
  command->add_flag("--no-break-mechanisms", no_break_mechanisms,
                    "certify with every pair rotating only (skip the slow-only and slow-still certificates)");
  command->add_option("--channel-epsilon", channel_epsilon,
                      "Theorem 6.1's channel: the key must hold more than 1 - epsilon of its row, epsilon in (0, 1) (default 0.5)");
  command->add_flag("--no-channel", no_channel, "skip the 1 - epsilon channel certificates");
  command->add_option("--max-offset", max_offset, "head kinds: offsets 0..K scored, K in [1, 4096] (default 16)");
  command->add_option("--lift", lift, "head kinds: a kind needs more than this multiple of uniform attention, > 1 (default 2)");
  command->add_option("--min-mass", min_mass, "head kinds: and at least this mean attention, in (0, 1] (default 0.1)");
  command->add_option("--alpha", alpha, "head kinds: family-wise level, Bonferroni over every score tested, in (0, 1) (default 0.01)");
  command->add_option("--null-sequences", null_sequences,
                      "sequences of the Gaussian null that measures the kind rule's false-positive rate: 0 none, default all");
  command->add_option("--null-repeats", null_repeats, "Gaussian null captures (seeds S, S+1, ...), in [1, 1000] (default 1)");
  command->add_option("--null-seed", null_seed, "the Gaussian null's seed, an integer in [0, 2^63) (default 0)");
}

int UsageCommand::run() {
  usage::UsageOptions o;
  if (threads) o.threads = parse_threads("--threads", *threads);
  if (content_distance) o.content_distance = parse_integer("--content-distance", *content_distance, 1, 1LL << 40);
  if (break_limit) o.break_limit = parse_integer("--break-limit", *break_limit, 1, 1LL << 40);
  if (strong_match) o.strong_match = parse_decimal("--strong-match", *strong_match, "a decimal in (0, 1]", 0, 1, true);
  if (break_rows) o.break_rows = static_cast<int>(parse_integer("--break-rows", *break_rows, 1, 1024));
  o.certify_breaks = !no_breaks;
  o.break_mechanisms = !no_break_mechanisms;
  o.certify_channel = !no_channel;
  if (channel_epsilon) {
    o.channel_epsilon = parse_decimal("--channel-epsilon", *channel_epsilon, "a decimal in (0, 1)", 0, 1, true);
    if (o.channel_epsilon == 1) throw InputError("--channel-epsilon", "a decimal in (0, 1)", *channel_epsilon);
  }
  if (max_offset) o.kind_rule.max_offset = static_cast<int>(parse_integer("--max-offset", *max_offset, 1, 4096));
  if (lift) o.kind_rule.lift = parse_decimal("--lift", *lift, "a decimal > 1", 1, 1e300, true);
  if (min_mass) o.kind_rule.min_mass = parse_decimal("--min-mass", *min_mass, "a decimal in (0, 1]", 0, 1, true);
  if (alpha) o.kind_rule.alpha = parse_decimal("--alpha", *alpha, "a decimal in (0, 1)", 0, std::nextafter(1.0, 0.0), true);
  if (null_sequences) o.null_sequences = parse_integer("--null-sequences", *null_sequences, 0, 1LL << 40);
  if (null_repeats) o.null_repeats = static_cast<int>(parse_integer("--null-repeats", *null_repeats, 1, 1000));
  if (null_seed) o.null_seed = static_cast<std::uint64_t>(parse_integer("--null-seed", *null_seed, 0, std::numeric_limits<long long>::max()));
  if (out_dir && std::filesystem::exists(*out_dir)) throw InputError("--out", "a directory that does not exist yet", *out_dir);
  if (out_dir) {
    const std::string swept = sweep_stale_temporaries(*out_dir);  // a killed run's leftovers
    if (!swept.empty()) std::cerr << swept << "\n";
  }
  const ModelDescription m = load_model(model);
  const usage::UsageResult r = [&] {
    auto source = usage::open_capture(capture, "--capture");
    return usage::analyse_usage(m, *source, o);
  }();
  std::cout << usage::usage_text(r);
  std::optional<usage::UsageResult> other;
  std::optional<usage::UsageSimilarity> similarity;
  if (compare) {
    auto source = usage::open_capture(*compare, "--compare");
    other = usage::analyse_usage(m, *source, o);
    similarity = usage::compare_usage(r, *other);
    std::cout << "compare: " << similarity->statement << "\nper layer r:";
    for (double v : similarity->per_layer) std::cout << printf_string(" %.3f", v);
    std::cout << "\n";
  }
  std::cout.flush();
  std::cerr << printf_string("usage: analysed in %.1f s on %d thread(s)\n", r.seconds, o.threads);
  if (out_dir) {
    std::vector<report::AttentionPanel> panels = report::panels_to_draw(r);
    report::draw_panels(m, capture, "--capture", panels);
    std::vector<report::Figure> extra;
    if (similarity) extra.push_back(report::comparison_figure(r, *other, *similarity, "--capture", "--compare"));
    report::write_usage_directory(*out_dir, r, panels, extra);
  }
  if (json_out) {
    nlohmann::json j = usage::usage_json(r);
    if (similarity)
      j["comparison"] = {{"capture", other->capture},           {"correlation", similarity->correlation}, {"per_layer", similarity->per_layer},
                         {"max_difference", similarity->max_difference}, {"points", similarity->points},
                         {"kinds_agree", similarity->kinds_agree ? nlohmann::json(*similarity->kinds_agree) : nlohmann::json(nullptr)},
                         {"statement", similarity->statement}};
    atomic_write(*json_out, j.dump(2) + "\n", "--json");
  }
  return 0;
}

}  // namespace ropecheck::cli
