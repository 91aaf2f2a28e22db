#include "finite/finite_text.h"

#include <algorithm>
#include <sstream>

#include "io/printf_string.h"

namespace ropecheck::finite {

namespace {

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

}  // namespace

std::string preamble_text(cpu::Path path) {
  std::ostringstream out;
  out << "ropecheck finite: kernel path " << cpu::path_name(path)
      << "; layout interleaved; activations are float32 dot products (products rounded, summed left to right)\n"
      << "Every finite figure is measured on one deterministic run (exhaustive over the stated ranges unless marked"
         " sampled); exact verdicts are certified (MPFI) for the same rounded inputs.\n";
  return out.str();
}

std::string to_text(const ArgmaxConstruction& c) {
  std::ostringstream out;
  out << "\nProposition 3.1: the argmax at distance r  [" << c.label << ": " << c.spectrum << "; query seed " << c.seed << "]\n"
      << "  context of r+1 tokens, query q at position r, every key k = R^r q; the key at position 0 (distance r)\n"
      << "  must have the strictly largest activation (a tie fails). Exhaustive: every r <= the limit, every key.\n";
  for (size_t t = 0; t < c.dtypes.size(); ++t) {
    const ExactArgmax& e = c.exact[t];
    out << printf_string("  exact (certified, MPFI; q rounded to %s): %s for every r <= %lld, min margin in [%.6g, %.6g] at offset %lld\n",
                         dtype_name(c.dtypes[t]).c_str(), e.holds ? "holds" : "NOT certified", e.limit, e.margin_lower,
                         e.margin_upper, e.runner_up_offset);
  }
  out << printf_string("  %-10s %-5s %-14s %-12s %-s\n", "rotator", "dtype", "holds up to r", "min margin", "first failure / probes r = 2^e beyond (keys within 64 of target and query; sampled)");
  for (const ArgmaxScan& s : c.scans) {
    const std::string upto = s.first_failure.r < 0 ? ">= " + std::to_string(s.holds_up_to) : std::to_string(s.holds_up_to);
    std::string tail = failure_text(s.first_failure);
    if (s.first_failure.r < 0) {
      if (s.probed.empty()) tail = "no failure (no probes beyond the limit)";
      else if (s.first_probe_failure.r < 0) tail = "no failure; probes to " + power_of_two(s.probed.back()) + ": none failed";
      else tail = "probe failure " + failure_text(s.first_probe_failure);
    }
    out << printf_string("  %-10s %-5s %-14s %-12.4g %s\n", accuracy::implementation_name(s.rotator).c_str(), dtype_name(s.dtype).c_str(),
                         upto.c_str(), s.min_margin, tail.c_str());
  }
  return out.str();
}

std::string to_text(const HeadConstruction& c) {
  std::ostringstream out;
  out << "\nTheorem 5.3: " << c.head << " head  [" << c.label << ": " << c.spectrum << "; norm on the " << c.K
      << " fastest pairs, ||psi||^2 = " << c.s << ", rows 1.." << c.N << "]\n"
      << "  strict: a_{i,target} > a_{i,j} for every row i <= N and key j <= i (exhaustive); margin = a_target - a_j\n";
  for (size_t t = 0; t < c.dtypes.size(); ++t)
    out << printf_string("  exact (certified, MPFI; psi rounded to %s): %s, min margin in [%.6g, %.6g] at offset %lld\n",
                         dtype_name(c.dtypes[t]).c_str(), c.exact_strict[t] ? "strict" : "NOT certified strict",
                         c.exact_margin_lower[t], c.exact_margin_upper[t], c.exact_offset[t]);
  out << printf_string("  %-10s %-5s %-7s %-12s %-12s %s\n", "rotator", "dtype", "strict", "min margin", "rows failing", "at (row, key): a_target, a_key");
  for (const HeadStrictness& r : c.rows)
    out << printf_string("  %-10s %-5s %-7s %-12.4g %-12lld (%lld, %lld): %a, %a\n", accuracy::implementation_name(r.rotator).c_str(),
                         dtype_name(r.dtype).c_str(), r.strict ? "yes" : "NO", r.min_margin, r.failing_rows, r.min_row,
                         r.min_key, static_cast<double>(r.a_target), static_cast<double>(r.a_other));
  return out.str();
}

std::string to_text(const Cos710& c) {
  return printf_string("\nd = 2, g = 1 at 710 (710/113 is a convergent of 2 pi): cos(710) in [%.17g, %.17g] (certified) < 1,\n"
                       "  fl32(cos 710) = %s; the kernel's float32 rotation of (1, 0) at position 710 = (%s, %s)\n",
                       c.cos_lower, c.cos_upper, hex_float(c.cos_f32).c_str(), hex_float(c.kernel_x).c_str(), hex_float(c.kernel_y).c_str());
}

std::string to_text(const ShiftInvariance& s) {
  std::ostringstream out;
  out << "\nShift invariance: |a(m+s, n+s) - a(m, n)|, m = " << s.m << ", n = " << s.n << "  [" << s.label << ": "
      << s.spectrum << "; q, k seeded dyadic, seed " << s.seed << "]\n";
  for (size_t t = 0; t < s.dtypes.size(); ++t)
    out << printf_string("  exact a(m, n) (inputs rounded to %s): %.9g\n", dtype_name(s.dtypes[t]).c_str(), s.exact[t]);
  out << "  measured on each s (one deterministic run); kernel rows end with the bound proved from its ulp contract\n";
  out << printf_string("  %-6s", "s");
  for (const ShiftSeries& r : s.series) out << printf_string(" %-16s", (accuracy::implementation_name(r.rotator) + " " + dtype_name(r.dtype)).c_str());
  out << "\n";
  size_t longest = 0;
  for (const ShiftSeries& r : s.series) longest = std::max(longest, r.points.size());
  for (size_t i = 0; i < longest; ++i) {
    std::string label;
    for (const ShiftSeries& r : s.series)
      if (i < r.points.size()) label = r.points[i].log2_shift < 0 ? "0" : "2^" + std::to_string(r.points[i].log2_shift);
    out << printf_string("  %-6s", label.c_str());
    for (const ShiftSeries& r : s.series)
      out << (i < r.points.size() ? printf_string(" %-16.3e", r.points[i].error) : printf_string(" %-16s", "(int32 limit)"));
    out << "\n";
  }
  out << printf_string("  %-6s", "bound");
  for (const ShiftSeries& r : s.series)
    out << (r.bound >= 0 ? printf_string(" %-16s", printf_string("%.3e %s", r.bound, r.within_bound ? "ok" : "EXCEEDED").c_str())
                         : printf_string(" %-16s", "-"));
  out << "\n";
  return out.str();
}

}  // namespace ropecheck::finite
