#include "cli/usage_command.h"

#include <cstdio>
#include <filesystem>
#include <iostream>

#include "cli/flags.h"
#include "io/atomic_write.h"
#include "io/input_error.h"
#include "io/printf_string.h"
#include "io/temporaries.h"
#include "report/usage_figures.h"
#include "spectrum/model_zoo.h"
#include "usage/usage_json.h"

namespace ropecheck::cli {

void UsageCommand::attach(CLI::App& app) {
  command = app.add_subcommand("usage",
                               "how a trained model uses its RoPE, measured on a capture of its pre-rotation queries and keys: frequency "
                               "usage per layer/head/pair, positional heads, the Section 5 ranking, frequency ablations, and certified "
                               "breaking distances of its semantic heads (Theorem 6.1)");
  command->add_option("--model", model, "a zoo name or a config.json path")->required();
  command->add_option("--capture", capture, ".npz with q [seq, layers, heads, tokens, head_dim], k, positions (docs/usage.md)")->required();
  command->add_option("--json", json_out, "write the ropecheck-usage/1 JSON to this file");
  command->add_option("--out", out_dir, "write usage.json and the figures (SVG, PNG, CSV) into this new directory");
  command->add_option("--threads", threads, "worker threads (results do not depend on it; default 1)");
  command->add_option("--content-distance", content_distance, "a content match lies at least this many tokens back (default 64)");
  command->add_option("--break-limit", break_limit, "breaking distances are certified over [0, N], N in [1, 2^40] (default 2^20)");
  command->add_flag("--no-breaks", no_breaks, "skip the breaking-distance certificates");
}

int UsageCommand::run() {
  usage::UsageOptions o;
  if (threads) o.threads = parse_threads("--threads", *threads);
  if (content_distance) o.content_distance = parse_integer("--content-distance", *content_distance, 1, 1LL << 40);
  if (break_limit) o.break_limit = parse_integer("--break-limit", *break_limit, 1, 1LL << 40);
  o.certify_breaks = !no_breaks;
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
  std::cout << "usage: " << r.capture << "; model " << r.model << ", scale " << r.scale_text << "\n";
  std::cout << "measured on the capture (not a certificate); kinds: mean attention >= 0.5 on j = i, i - 1 or 0 over rows i >= 1\n";
  std::cout << "layer head kv  kind            diag   prev   first  share  rank  slowTV top1   fastTV top1   break (certified)\n";
  for (const usage::LayerUsage& lu : r.layers)
    for (const usage::HeadUsage& h : lu.heads) {
      std::string brk = "-";
      if (h.breaking)
        brk = h.breaking->outcome == "found" ? printf_string("%lld (key at %lld, span %lld)", h.breaking->distance, h.breaking->key_distance, h.breaking->span)
              : h.breaking->outcome == "none" ? printf_string("none up to %lld", h.breaking->limit)
                                              : printf_string("undecided at %lld", h.breaking->distance);
      std::cout << printf_string("%5d %4d %3d  %-14s  %.3f  %.3f  %.3f  ", lu.layer, h.head, h.kv_head, h.kind.c_str(), h.diagonal, h.previous_token, h.first_token)
                << (h.high_frequency_share ? printf_string("%.3f  %4d  ", *h.high_frequency_share, *h.share_rank) : std::string("  -       -  "))
                << (h.slow_still ? printf_string("%.3f  %.3f  %.3f  %.3f  ", h.slow_still->tv, h.slow_still->top1, h.fast_removed->tv, h.fast_removed->top1)
                                 : std::string("  -      -      -      -    "))
                << brk << "\n";
    }
  std::cout << "Section 5: " << r.ranking.statement << "\n";
  std::cout.flush();
  std::cerr << printf_string("usage: analysed in %.1f s on %d thread(s)\n", r.seconds, o.threads);
  if (out_dir) {
    std::vector<report::AttentionPanel> panels = report::panels_to_draw(r);
    for (report::AttentionPanel& p : panels) {
      auto source = usage::open_capture(capture, "--capture");
      p.map = usage::attention_map(m, *source, p.layer, p.head, 0, 64);
    }
    report::write_usage_directory(*out_dir, r, panels);
  }
  if (json_out) atomic_write(*json_out, usage::usage_json(r).dump(2) + "\n", "--json");
  return 0;
}

}  // namespace ropecheck::cli
