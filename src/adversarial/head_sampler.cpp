#include "adversarial/head_sampler.h"

#include <algorithm>
#include <cmath>

#include "adversarial/presets.h"
#include "random/counter_rng.h"
#include "random/uniform_below.h"

namespace ropecheck::adversarial {
namespace {

class Draws {
 public:
  Draws(std::uint64_t seed, std::uint64_t index) : rng_(seed, 0x6865'6164'0000'0000ULL ^ index) {}  // stream "head" ^ index
  std::uint64_t below(std::uint64_t n) {
    return uniform_below_u64(n, [&] { return rng_.bits(counter_++); });
  }
  bool coin(std::uint64_t one_in) { return below(one_in) == 0; }

 private:
  CounterRng rng_;
  std::uint64_t counter_ = 0;
};

// Simple, exactly representable components: quarters k/4 (|k| <= 64), signed powers of two
// 2^-2..2^8, and the Appendix E.1 values (binary64 of the printed decimals).
double component(Draws& r) {
  static constexpr double kPrinted[] = {-4.1, 11.3, -2.5, 1.3, 11.2, -3.5};
  switch (r.below(10)) {
    case 0: case 1: case 2: case 3: case 4:
      return (static_cast<double>(r.below(129)) - 64.0) / 4.0;
    case 5: case 6: {
      const double p = std::ldexp(1.0, static_cast<int>(r.below(11)) - 2);
      return r.coin(2) ? p : -p;
    }
    default:
      return kPrinted[r.below(6)];
  }
}

void random_chunk(Draws& r, std::vector<double>& v, int p, double scale) {
  do {
    v[2 * p] = component(r) * scale;
    v[2 * p + 1] = component(r) * scale;
  } while (v[2 * p] == 0 && v[2 * p + 1] == 0);
}

Head fresh(HeadFamily family, const SpectrumRequest& request, Draws& r) {
  Head h;
  h.spectrum_request = request;
  h.spectrum = resolve(request).spectrum;
  const int d = h.dim();
  h.query.assign(d, 0.0);
  h.target.assign(d, 0.0);
  h.distractors.assign(1, std::vector<double>(d, 0.0));
  std::vector<int> pairs = lowest_pairs(h.spectrum, 8);
  // A seeded Fisher-Yates shuffle, then the first m pairs carry the channel.
  for (size_t i = pairs.size(); i > 1; --i) std::swap(pairs[i - 1], pairs[r.below(i)]);
  const size_t m = family == HeadFamily::channel ? 1 : std::min(pairs.size(), static_cast<size_t>(2 + r.below(7)));
  // Norms from ~1 to ~1e3: the query scaled by 2^j, j in [0, 5].
  const double scale = std::ldexp(1.0, static_cast<int>(r.below(6)));
  for (size_t i = 0; i < m; ++i) {
    random_chunk(r, h.query, pairs[i], scale);
    random_chunk(r, h.target, pairs[i], 1.0);
    random_chunk(r, h.distractors[0], pairs[i], 1.0);
  }
  return h;
}

Head perturbed(const Head& base, Draws& r) {
  Head h = base;
  std::vector<std::vector<double>*> vectors = {&h.query, &h.target};
  for (auto& k : h.distractors) vectors.push_back(&k);
  if (h.bos) vectors.push_back(&*h.bos);
  const std::vector<int> active = active_chunks(base);
  for (int p : active) {
    if (active.size() > 1 && r.coin(8)) {
      for (auto* v : vectors) (*v)[2 * p] = (*v)[2 * p + 1] = 0.0;
      continue;
    }
    for (auto* v : vectors)
      for (int e : {2 * p, 2 * p + 1}) {
        if (r.coin(4)) (*v)[e] = std::ldexp((*v)[e], static_cast<int>(r.below(5)) - 2);  // exact unless it over/underflows
        if (r.coin(8)) (*v)[e] = -(*v)[e];
      }
  }
  if (active_chunks(h).empty()) return base;
  return h;
}

}  // namespace

Head sample_head(HeadFamily family, const SpectrumRequest& base_spectrum, const std::optional<Head>& base, std::uint64_t seed,
                 std::uint64_t index) {
  Draws r(seed, index);
  if (base) return index == 0 ? *base : perturbed(*base, r);
  return fresh(family, base_spectrum, r);
}

}  // namespace ropecheck::adversarial
