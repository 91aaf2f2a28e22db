#include "cli/finite_command.h"

#include <chrono>
#include <iostream>

#include "certificate/environment.h"
#include "io/atomic_write.h"
#include "io/printf_string.h"
#include "finite/finite_verdicts.h"
#include "spectrum/request.h"

namespace ropecheck::cli {

namespace {

using namespace ropecheck::finite;

std::string power_of_two(long long x) {
  int e = 0;
  while ((1LL << e) < x) ++e;
  return (1LL << e) == x ? "2^" + std::to_string(e) : std::to_string(x);
}

std::string failure_text(const ArgmaxFailure& f) {
  if (f.r < 0) return "-";
  return printf_string("r=%lld: key at %lld (distance %lld) %a >= %a", f.r, f.position, f.r - f.position,
                static_cast<double>(f.a_other), static_cast<double>(f.a_target));
}

void print_argmax(const ArgmaxConstruction& c) {
  std::cout << "\nProposition 3.1: the argmax at distance r  [" << c.label << ": " << c.spectrum << "; query seed " << c.seed << "]\n"
            << "  context of r+1 tokens, query q at position r, every key k = R^r q; the key at position 0 (distance r)\n"
            << "  must have the strictly largest activation (a tie fails). Exhaustive: every r <= the limit, every key.\n";
  for (size_t t = 0; t < c.dtypes.size(); ++t) {
    const ExactArgmax& e = c.exact[t];
    std::cout << printf_string("  exact (certified, MPFI; q rounded to %s): %s for every r <= %lld, min margin in [%.6g, %.6g] at offset %lld\n",
                        dtype_name(c.dtypes[t]).c_str(), e.holds ? "holds" : "NOT certified", e.limit, e.margin_lower,
                        e.margin_upper, e.runner_up_offset);
  }
  std::cout << printf_string("  %-10s %-5s %-14s %-12s %-s\n", "rotator", "dtype", "holds up to r", "min margin", "first failure / probes r = 2^e beyond (keys within 64 of target and query; sampled)");
  for (const ArgmaxScan& s : c.scans) {
    const std::string upto = s.first_failure.r < 0 ? ">= " + std::to_string(s.holds_up_to) : std::to_string(s.holds_up_to);
    std::string tail = failure_text(s.first_failure);
    if (s.first_failure.r < 0) {
      if (s.probed.empty()) tail = "no failure (no probes beyond the limit)";
      else if (s.first_probe_failure.r < 0) tail = "no failure; probes to " + power_of_two(s.probed.back()) + ": none failed";
      else tail = "probe failure " + failure_text(s.first_probe_failure);
    }
    std::cout << printf_string("  %-10s %-5s %-14s %-12.4g %s\n", rotator_name(s.rotator).c_str(), dtype_name(s.dtype).c_str(),
                        upto.c_str(), s.min_margin, tail.c_str());
  }
}

void print_heads(const HeadConstruction& c) {
  std::cout << "\nTheorem 5.3: " << c.head << " head  [" << c.label << ": " << c.spectrum << "; norm on the " << c.K
            << " fastest pairs, ||psi||^2 = " << c.s << ", rows 1.." << c.N << "]\n"
            << "  strict: a_{i,target} > a_{i,j} for every row i <= N and key j <= i (exhaustive); margin = a_target - a_j\n";
  for (size_t t = 0; t < c.dtypes.size(); ++t)
    std::cout << printf_string("  exact (certified, MPFI; psi rounded to %s): %s, min margin in [%.6g, %.6g] at offset %lld\n",
                        dtype_name(c.dtypes[t]).c_str(), c.exact_strict[t] ? "strict" : "NOT certified strict",
                        c.exact_margin_lower[t], c.exact_margin_upper[t], c.exact_offset[t]);
  std::cout << printf_string("  %-10s %-5s %-7s %-12s %-12s %s\n", "rotator", "dtype", "strict", "min margin", "rows failing", "at (row, key): a_target, a_key");
  for (const HeadStrictness& r : c.rows)
    std::cout << printf_string("  %-10s %-5s %-7s %-12.4g %-12lld (%lld, %lld): %a, %a\n", rotator_name(r.rotator).c_str(),
                        dtype_name(r.dtype).c_str(), r.strict ? "yes" : "NO", r.min_margin, r.failing_rows, r.min_row,
                        r.min_key, static_cast<double>(r.a_target), static_cast<double>(r.a_other));
}

void print_cos710(const Cos710& c) {
  std::cout << printf_string("\nd = 2, g = 1 at 710 (710/113 is a convergent of 2 pi): cos(710) in [%.17g, %.17g] (certified) < 1,\n"
                      "  fl32(cos 710) = %s; the kernel's float32 rotation of (1, 0) at position 710 = (%s, %s)\n",
                      c.cos_lower, c.cos_upper, hex_float(c.cos_f32).c_str(), hex_float(c.kernel_x).c_str(), hex_float(c.kernel_y).c_str());
}

void print_shift(const ShiftInvariance& s) {
  std::cout << "\nShift invariance: |a(m+s, n+s) - a(m, n)|, m = " << s.m << ", n = " << s.n << "  [" << s.label << ": "
            << s.spectrum << "; q, k seeded dyadic, seed " << s.seed << "]\n";
  for (size_t t = 0; t < s.dtypes.size(); ++t)
    std::cout << printf_string("  exact a(m, n) (inputs rounded to %s): %.9g\n", dtype_name(s.dtypes[t]).c_str(), s.exact[t]);
  std::cout << "  measured on each s (one deterministic run); kernel rows end with the bound proved from its ulp contract\n";
  std::cout << printf_string("  %-6s", "s");
  for (const ShiftSeries& r : s.series) std::cout << printf_string(" %-16s", (rotator_name(r.rotator) + " " + dtype_name(r.dtype)).c_str());
  std::cout << "\n";
  size_t longest = 0;
  for (const ShiftSeries& r : s.series) longest = std::max(longest, r.points.size());
  for (size_t i = 0; i < longest; ++i) {
    std::string label;
    for (const ShiftSeries& r : s.series)
      if (i < r.points.size()) label = r.points[i].log2_shift < 0 ? "0" : "2^" + std::to_string(r.points[i].log2_shift);
    std::cout << printf_string("  %-6s", label.c_str());
    for (const ShiftSeries& r : s.series)
      std::cout << (i < r.points.size() ? printf_string(" %-16.3e", r.points[i].error) : printf_string(" %-16s", "(int32 limit)"));
    std::cout << "\n";
  }
  std::cout << printf_string("  %-6s", "bound");
  for (const ShiftSeries& r : s.series)
    std::cout << (r.bound >= 0 ? printf_string(" %-16s", printf_string("%.3e %s", r.bound, r.within_bound ? "ok" : "EXCEEDED").c_str())
                               : printf_string(" %-16s", "-"));
  std::cout << "\n";
}

}  // namespace

void FiniteCommand::attach(CLI::App& app) {
  command = app.add_subcommand("finite", "which positional constructions survive float32/bfloat16: this kernel and two baselines vs the exact verdicts");
  add_spectrum_flags(command, flags);
  command->add_option("--dtype", dtype, "f32, bf16 or both (default both)");
  command->add_option("--max-shift-log2", max_shift_log2, "largest shift 2^N for the shift-invariance table and the prop-3.1 probes (integer in [0, 40], default 40; baselines stop at 31)");
  command->add_option("--max-distance", max_distance, "prop-3.1: exhaustive limit of the distance r (integer in [1, 65536], default 1024)");
  command->add_option("--rows", rows, "thm-5.3: rows 1..N of the positional heads (integer in [2, 65536], default 1024)");
  command->add_option("--pairs", pairs, "thm-5.3: K, the fastest pairs carrying the norm in the configured spectrum (integer >= 1, default 16)");
  command->add_option("--seed", seed, "seed of the random query and shift vectors (default 1)");
  command->add_option("--json", json_path, "write every result as JSON to this file");
}

int FiniteCommand::run() {
  const auto start = std::chrono::steady_clock::now();
  if (!json_path.empty()) check_writable_target(json_path, "--json");
  const std::vector<Dtype> dtypes = parse_dtypes(dtype, "--dtype");
  const ResolvedSpectrum rs = resolve(to_request(flags), std::string("gemma-7b"));
  const cpu::Path path = cpu::default_path();
  const std::uint64_t s = seed.empty() ? 1 : parse_seed(seed);
  const int shift_log2 = max_shift_log2.empty() ? 40 : static_cast<int>(parse_integer("--max-shift-log2", max_shift_log2, 0, 40));

  ArgmaxSettings argmax;
  argmax.max_distance = max_distance.empty() ? 1024 : parse_integer("--max-distance", max_distance, 1, 65536);
  argmax.max_shift_log2 = shift_log2;
  argmax.seed = s;
  HeadSettings heads;
  heads.N = rows.empty() ? 1024 : parse_integer("--rows", rows, 2, 65536);
  heads.K = pairs.empty() ? 16 : static_cast<int>(parse_integer("--pairs", pairs, 1, 1 << 20));
  ShiftSettings shift;
  shift.max_shift_log2 = shift_log2;
  shift.seed = s;

  // The configured spectrum, and the single pair d = 2 (g = theta^0 = 1), where 710 tokens make
  // cos(710) = 1 - 1.8e-9 invisible in float32.
  const std::string label = short_label(rs);
  const Spectrum single(2, "10000");
  const std::string single_label = "d=2 (g=1)";
  HeadSettings single_heads = heads;
  single_heads.K = 1;

  std::cout << "ropecheck finite: kernel path " << cpu::path_name(path)
            << "; layout interleaved; activations are float32 dot products (products rounded, summed left to right)\n"
            << "Every finite figure is measured on one deterministic run (exhaustive over the stated ranges unless marked"
               " sampled); exact verdicts are certified (MPFI) for the same rounded inputs.\n";

  std::vector<ArgmaxConstruction> argmaxes{prop_3_1_finite(label, rs.spectrum, dtypes, argmax, path),
                                           prop_3_1_finite(single_label, single, dtypes, argmax, path)};
  for (const ArgmaxConstruction& c : argmaxes) print_argmax(c);

  std::vector<HeadConstruction> head_results;
  for (bool previous : {false, true}) {
    head_results.push_back(thm_5_3_finite(label, rs.spectrum, previous, dtypes, heads, path));
    head_results.push_back(thm_5_3_finite(single_label, single, previous, dtypes, single_heads, path));
  }
  for (const HeadConstruction& c : head_results) print_heads(c);
  const Cos710 c710 = cos_710(path);
  print_cos710(c710);

  const ShiftInvariance shifts = shift_invariance(label, rs.spectrum, dtypes, shift, path);
  print_shift(shifts);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << printf_string("\n(%.1f s)\n", seconds);

  if (!json_path.empty()) {
    nlohmann::json out = {{"tool", "ropecheck 0.1.0"}, {"arithmetic", arithmetic_environment()},
                          {"kernel_path", cpu::path_name(path)}, {"layout", "interleaved"},
                          {"dot_product", "float32: products rounded to float32, summed left to right from 0"},
                          {"ulp_definition", "kernel contract: ulp of an output component floored at 2^-24 (bf16: 2^-8) times its pair's norm"}};
    for (const ArgmaxConstruction& c : argmaxes) out["prop_3_1"].push_back(to_json(c));
    for (const HeadConstruction& c : head_results) out["thm_5_3"].push_back(to_json(c));
    out["cos_710"] = to_json(c710);
    out["shift_invariance"] = to_json(shifts);
    atomic_write(json_path, out.dump(2) + "\n", "--json");
  }
  return 0;
}

}  // namespace ropecheck::cli
