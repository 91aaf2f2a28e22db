#include "montecarlo/analysis.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>
#include <vector>

#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>

#include "io/input_error.h"
#include "io/printf_string.h"
#include "montecarlo/gap_law.h"
#include "montecarlo/simulate.h"
#include "statistics/inference.h"

namespace ropecheck::montecarlo {

namespace {

using statistics::Summary;
using statistics::TestResult;

// One number in a C format (the report's %.3g figures).
std::string fmt(const char* f, double x) { return printf_string(f, x); }

nlohmann::json test_json(const TestResult& t) {
  return {{"name", t.name}, {"statistic", t.statistic}, {"p_value", t.p_value}, {"rejects", t.rejects}, {"detail", t.detail}};
}

// Two-sided p-value of a t statistic with df degrees of freedom (normal when df is huge).
double t_p_value(double t, double df) {
  if (!std::isfinite(t)) return 0;
  const boost::math::students_t dist(df);
  return 2 * boost::math::cdf(boost::math::complement(dist, std::fabs(t)));
}

// Bonferroni over distances: rejects when some distance's two-sided p-value is below
// alpha / (number of distances). Valid under any dependence between distances, so it is the test
// used where the correlation between distances is unknown (fig8 with all-ones vectors).
TestResult bonferroni_test(const std::vector<Summary>& s, double mu0, double alpha) {
  double p_min = 1;
  std::int64_t arg = 0;
  bool deterministic_departure = false;
  for (size_t r = 0; r < s.size(); ++r) {
    double p;
    if (!(s[r].standard_error > 0)) {
      p = s[r].mean == mu0 ? 1.0 : 0.0;
      if (p == 0) deterministic_departure = true;
    } else {
      p = t_p_value((s[r].mean - mu0) / s[r].standard_error, static_cast<double>(s[r].n - 1));
    }
    if (p < p_min) p_min = p, arg = static_cast<std::int64_t>(r);
  }
  TestResult t;
  t.name = "Bonferroni over distances";
  t.statistic = p_min;
  t.p_value = std::min(1.0, p_min * static_cast<double>(s.size()));
  t.rejects = t.p_value < alpha;
  t.detail = "smallest per-distance p-value " + fmt("%.3g", p_min) + " at r = " + std::to_string(arg) + " over " + std::to_string(s.size()) +
             " distances" + (deterministic_departure ? " (deterministic values)" : "");
  return t;
}

struct SeriesOutcome {
  nlohmann::json json;
  std::string text;
  bool as_paper_says = true;
};

std::string test_line(const TestResult& t) {
  std::string line = "  " + t.name + ": " + t.detail + ", p = " + fmt("%.3g", t.p_value) + (t.rejects ? "  REJECTS" : "");
  return line + "\n";
}

SeriesOutcome analyse_series(const Params& p, const SeriesSpec& spec, const SeriesAccumulator& acc) {
  const std::int64_t R = p.max_distance;
  const std::int64_t distances = R + 1;
  const int d = spec.spectrum.dim();
  const bool ones = spec.vectors == Vectors::ones;
  const bool variance = p.experiment == Experiment::variance;
  std::vector<Summary> s(static_cast<size_t>(distances));
  std::vector<statistics::Interval2> ci(static_cast<size_t>(distances));
  for (std::int64_t r = 0; r < distances; ++r) {
    s[static_cast<size_t>(r)] = statistics::summarize(acc.distance[static_cast<size_t>(r)]);
    ci[static_cast<size_t>(r)] = statistics::mean_interval(s[static_cast<size_t>(r)], p.level);
  }

  // Closed forms: the all-ones curve f (fig2a's exact mean, fig9's correlation), and for fig8 its
  // expectation over the gap law (the all-ones mean, and the Gaussian correlation).
  std::vector<double> expected;
  std::vector<double> rho;  // correlation of the activations at index distances `lag` apart
  if (p.experiment == Experiment::fig9) rho = all_ones_curve(spec.spectrum, distances);
  if (p.experiment == Experiment::fig8) {
    const std::vector<double> f = all_ones_curve(spec.spectrum, spec.L + 1);
    const std::vector<double> gap = expected_gap_curve(p.fig8_n, spec.L, f);
    if (ones) expected = gap;
    else rho = gap;
  }

  std::vector<TestResult> tests;
  nlohmann::json extra = nlohmann::json::object();
  const double z = boost::math::quantile(boost::math::normal(), (1 + p.level) / 2);
  if (variance) {
    // H0: every distance has the law of q^T k: variance d, kurtosis 3 + 6/d.
    std::int64_t k = 0;
    for (const Summary& x : s)
      if (std::fabs(x.variance - d) > z * x.variance_standard_error) ++k;
    TestResult t = statistics::binomial_test(k, distances, 1 - p.level, p.alpha);
    t.name = "variance exceedance (binomial)";
    t.detail = std::to_string(k) + " of " + std::to_string(distances) + " distances have a " + fmt("%.3g", 100 * p.level) +
               "% variance interval excluding d = " + std::to_string(d) + " (expected " + fmt("%.1f", distances * (1 - p.level)) + ")";
    tests.push_back(t);
    statistics::Moments pooled;
    for (const statistics::Moments& m : acc.distance) pooled.add(m);
    const Summary all = statistics::summarize(pooled);
    const double kurt0 = 3.0 + 6.0 / d;
    auto z_test = [&](const std::string& name, double value, double se, double expect) {
      TestResult r;
      r.name = name;
      r.statistic = (value - expect) / se;
      r.p_value = 2 * boost::math::cdf(boost::math::complement(boost::math::normal(), std::fabs(r.statistic)));
      r.rejects = r.p_value < p.alpha;
      r.detail = fmt("%.6g", value) + " +- " + fmt("%.2g", se) + " (expected " + fmt("%.6g", expect) + ", z = " + fmt("%.2f", r.statistic) + ")";
      return r;
    };
    tests.push_back(z_test("pooled variance (z-test)", all.variance, all.variance_standard_error, d));
    // sqrt(24/n) is the standard error of the kurtosis of a near-normal law (true kurtosis 3 + 6/d).
    tests.push_back(z_test("pooled kurtosis (z-test)", all.kurtosis, all.kurtosis_standard_error, kurt0));
    extra["pooled"] = {{"n", all.n}, {"variance", all.variance}, {"variance_se", all.variance_standard_error}, {"kurtosis", all.kurtosis},
                       {"kurtosis_se", all.kurtosis_standard_error}, {"expected_variance", d}, {"expected_kurtosis", kurt0}};
  } else if (ones && p.experiment == Experiment::fig8) {
    tests.push_back(bonferroni_test(s, 0.0, p.alpha));
  } else {
    std::int64_t k = 0;
    for (const auto& c : ci)
      if (c.lo > 0 || c.hi < 0) ++k;
    const std::string what = std::to_string(k) + " of " + std::to_string(distances) + " distances have a " + fmt("%.3g", 100 * p.level) +
                             "% interval excluding 0 (expected " + fmt("%.1f", distances * (1 - p.level)) + ")";
    if (rho.empty() || p.deterministic()) {
      TestResult t = statistics::binomial_test(k, distances, 1 - p.level, p.alpha);
      t.name = "exceedance (binomial)";
      t.detail = what;
      tests.push_back(t);
    } else {
      TestResult t = statistics::dependent_exceedance_test(
          k, distances, p.level, [&](std::int64_t lag) { return rho[static_cast<size_t>(lag)]; }, p.alpha);
      t.name = "exceedance (correlated distances)";
      t.detail = what + "; " + t.detail;
      tests.push_back(t);
    }
  }

  // The slope of a(r) (of a(r)^2 for variance) on r, one per trial: independent across trials.
  {
    const Summary slope = statistics::summarize(acc.slope);
    const std::string name = variance ? "variance slope t-test" : "slope t-test";
    TestResult t;
    if (p.deterministic()) {
      // One exact curve: its slope is a number, not an estimate; any non-zero slope is a trend.
      t.name = name;
      t.statistic = slope.mean;
      t.p_value = slope.mean == 0 ? 1.0 : 0.0;
      t.rejects = t.p_value < p.alpha;
      t.detail = "least-squares slope " + fmt("%.3g", slope.mean) + " per token (deterministic curve: exact, no sampling error)";
    } else {
      t = statistics::t_test(slope, 0.0, p.alpha, name);
      t.detail = "least-squares slope " + fmt("%.3g", slope.mean) + " per token +- " + fmt("%.2g", slope.standard_error) + " over " +
                 std::to_string(slope.n) + " trials, t = " + fmt("%.3g", t.statistic) + ", df = " + std::to_string(slope.n - 1);
    }
    tests.push_back(t);
  }

  // Near against far distances.
  {
    std::vector<double> near, far;
    if (p.deterministic()) {
      for (std::int64_t r = 0; r <= p.near_end(); ++r) near.push_back(s[static_cast<size_t>(r)].mean);
      for (std::int64_t r = p.far_begin(); r <= R; ++r) far.push_back(s[static_cast<size_t>(r)].mean);
    } else {
      for (const auto& [t, v] : acc.choice) (t % 2 == 0 ? near : far).push_back(v);
    }
    TestResult t = statistics::ks_two_sample(near, far, p.alpha);
    t.detail = "near r in [0, " + std::to_string(p.near_end()) + "] vs far r in [" + std::to_string(p.far_begin()) + ", " + std::to_string(R) +
               "]: " + t.detail;
    tests.push_back(t);
  }

  // fig8, all-ones: the Monte Carlo mean against the gap law's closed form at every distance,
  // within simultaneous (Bonferroni) intervals. The closed form's own error (gap_law.h) is below
  // 1e-11, added to the half-width.
  if (!expected.empty()) {
    const double closed_form_error = 1e-11;
    double worst = 0;
    std::int64_t worst_r = 0, outside = 0;
    const double q = s.front().n > 1 ? boost::math::quantile(boost::math::complement(boost::math::students_t(static_cast<double>(s.front().n - 1)),
                                                                                    p.alpha / (2 * static_cast<double>(distances))))
                                     : 0.0;
    for (std::int64_t r = 0; r < distances; ++r) {
      const Summary& x = s[static_cast<size_t>(r)];
      const double dev = std::fabs(x.mean - expected[static_cast<size_t>(r)]);
      const double half = q * (x.standard_error > 0 ? x.standard_error : 0.0) + closed_form_error;
      const double ratio = dev / half;
      if (dev > half) ++outside;
      if (ratio > worst) worst = ratio, worst_r = r;
    }
    extra["closed_form"] = {{"agrees", outside == 0}, {"distances_outside", outside}, {"worst_ratio", worst}, {"worst_r", worst_r}};
  }

  bool any_reject = false;
  std::vector<std::string> deciders;
  for (const TestResult& t : tests)
    if (t.rejects) any_reject = true, deciders.push_back(t.name);
  const std::string verdict = any_reject ? "not-confirmed" : "confirmed";
  const bool expect_confirmed = !ones;
  SeriesOutcome out;
  out.as_paper_says = (any_reject != expect_confirmed);
  if (extra.contains("closed_form") && !extra["closed_form"]["agrees"].get<bool>()) out.as_paper_says = false;

  double max_se = 0;
  for (const Summary& x : s) max_se = std::max(max_se, x.standard_error);

  nlohmann::json per = {{"r", nlohmann::json::array()}, {"n", nlohmann::json::array()},     {"mean", nlohmann::json::array()},
                        {"se", nlohmann::json::array()}, {"ci_lo", nlohmann::json::array()}, {"ci_hi", nlohmann::json::array()},
                        {"variance", nlohmann::json::array()}, {"kurtosis", nlohmann::json::array()}};
  if (!expected.empty()) per["expected"] = expected;
  for (std::int64_t r = 0; r < distances; ++r) {
    const Summary& x = s[static_cast<size_t>(r)];
    per["r"].push_back(r);
    per["n"].push_back(x.n);
    per["mean"].push_back(x.mean);
    per["se"].push_back(std::isfinite(x.standard_error) ? nlohmann::json(x.standard_error) : nlohmann::json(nullptr));
    per["ci_lo"].push_back(ci[static_cast<size_t>(r)].lo);
    per["ci_hi"].push_back(ci[static_cast<size_t>(r)].hi);
    per["variance"].push_back(std::isfinite(x.variance) ? nlohmann::json(x.variance) : nlohmann::json(nullptr));
    per["kurtosis"].push_back(std::isfinite(x.kurtosis) ? nlohmann::json(x.kurtosis) : nlohmann::json(nullptr));
  }
  nlohmann::json tj = nlohmann::json::array();
  for (const TestResult& t : tests) tj.push_back(test_json(t));
  out.json = {{"label", spec.label},
              {"vectors", ones ? "ones" : "gaussian"},
              {"spectrum", spec.spectrum.describe()},
              {"claim", "the activation does not decay with distance"},
              {"verdict", verdict},
              {"decided_by", deciders},
              {"expected_verdict", expect_confirmed ? "confirmed" : "not-confirmed (decay detected)"},
              {"max_standard_error", max_se},
              {"tests", tj},
              {"per_distance", per}};
  for (auto it = extra.begin(); it != extra.end(); ++it) out.json[it.key()] = it.value();

  std::ostringstream text;
  text << experiment_name(p.experiment) << "  " << spec.label << "  (" << spec.spectrum.describe() << "; " << (ones ? "all-ones" : "Gaussian")
       << " q, k; " << spec.trials << (p.deterministic() ? " deterministic evaluation" : " trials") << "; distances 0.." << R << "; arith "
       << dtype_name(p.arith) << ")\n";
  if (!p.deterministic()) text << "  largest per-distance standard error " << fmt("%.3g", max_se) << "\n";
  for (const TestResult& t : tests) text << test_line(t);
  if (extra.contains("closed_form")) {
    const auto& c = extra["closed_form"];
    text << "  gap-law closed form: " << (c["agrees"].get<bool>() ? "agrees" : "DISAGREES") << " at every distance within simultaneous "
         << fmt("%.3g", 100 * (1 - p.alpha)) << "% intervals (" << c["distances_outside"].get<std::int64_t>() << " outside; largest |mean - E f(D_r)| / half-width "
         << fmt("%.3g", c["worst_ratio"].get<double>()) << " at r = " << c["worst_r"].get<std::int64_t>() << ")\n";
  }
  text << "  verdict: " << verdict;
  if (any_reject) {
    text << (ones ? " -- decay detected by: " : " -- rejected by: ");
    for (size_t i = 0; i < deciders.size(); ++i) text << (i ? ", " : "") << deciders[i];
  } else {
    text << " (no test rejects at alpha = " << fmt("%g", p.alpha) << ")";
  }
  text << (out.as_paper_says ? "" : "   [differs from the paper]") << "\n";
  out.text = text.str();
  return out;
}

std::string csv_number(double x) { return std::isfinite(x) ? printf_string("%.17g", x) : std::string(); }

// What an incomplete merge got, for its one-line message: the shards it has and the shards of N it
// lacks ("shards 0/4, 1/4, 3/4; shard 2/4 is missing"), the lack being what a user resubmits. At
// most kNamed of each are named and the rest counted ("48 of 64 shards; shards 2/64, 5/64, 50/64,
// 51/64, 52/64, 53/64, 54/64, 55/64 and 8 more are missing"), so that the line stays short for any
// N. The shards are those merge_partials accepted: indices in [0, N) of one N, each once.
std::string incomplete_shards(const std::vector<Shard>& shards) {
  constexpr size_t kNamed = 8;
  const auto name = [](std::int64_t k, std::int64_t n) { return std::to_string(k) + "/" + std::to_string(n); };
  const std::int64_t n = shards.empty() ? 0 : shards.front().count;
  std::vector<std::int64_t> have;
  for (const Shard& s : shards) have.push_back(s.index);
  std::sort(have.begin(), have.end());
  std::string got;
  if (have.size() <= kNamed) {
    for (const std::int64_t k : have) got += (got.empty() ? "shards " : ", ") + name(k, n);
    if (got.empty()) got = "no shard";
  } else {
    got = std::to_string(have.size()) + " of " + std::to_string(n) + " shards";
  }
  std::vector<std::int64_t> named;
  std::int64_t missing = 0, next = 0;
  have.push_back(n);  // closes the last gap
  for (const std::int64_t k : have) {
    if (k < next) continue;
    for (std::int64_t j = next; j < k && named.size() < kNamed; ++j) named.push_back(j);
    missing += k - next;
    next = k + 1;
  }
  if (missing == 0) return got;
  std::string lacks;
  for (const std::int64_t k : named) lacks += (lacks.empty() ? "" : ", ") + name(k, n);
  if (missing == 1) return got + "; shard " + lacks + " is missing";
  if (missing > static_cast<std::int64_t>(named.size())) lacks += " and " + std::to_string(missing - static_cast<std::int64_t>(named.size())) + " more";
  return got + "; shards " + lacks + " are missing";
}

}  // namespace

Analysis analyse(const Partial& p) {
  if (!p.complete()) throw InputError("merge", "partials covering every shard of the run", incomplete_shards(p.shards));
  Analysis a;
  a.json["format"] = "ropecheck-montecarlo-result";
  a.json["version"] = kFileVersion;
  a.json["params"] = p.params.to_json();
  a.json["series"] = nlohmann::json::array();
  std::ostringstream csv;
  csv << "series,label,r,n,mean,se,ci_lo,ci_hi,variance,kurtosis,expected\n";
  std::ostringstream text;
  text << "ropecheck montecarlo --experiment " << experiment_name(p.params.experiment) << " --seed " << p.params.seed << "\n";
  for (size_t i = 0; i < p.series.size(); ++i) {
    const SeriesOutcome o = analyse_series(p.params, p.params.series[i], p.series[i]);
    a.json["series"].push_back(o.json);
    a.as_paper_says = a.as_paper_says && o.as_paper_says;
    text << o.text;
    const nlohmann::json& per = o.json["per_distance"];
    for (size_t r = 0; r < per["r"].size(); ++r) {
      auto num = [&](const char* key) { return per.contains(key) && per[key][r].is_number() ? csv_number(per[key][r].get<double>()) : std::string(); };
      csv << i << "," << p.params.series[i].label << "," << per["r"][r].get<std::int64_t>() << "," << per["n"][r].get<std::int64_t>() << ","
          << num("mean") << "," << num("se") << "," << num("ci_lo") << "," << num("ci_hi") << "," << num("variance") << "," << num("kurtosis") << ","
          << num("expected") << "\n";
    }
  }
  a.json["as_paper_says"] = a.as_paper_says;
  a.csv = csv.str();
  a.text = text.str();
  return a;
}

}  // namespace ropecheck::montecarlo
