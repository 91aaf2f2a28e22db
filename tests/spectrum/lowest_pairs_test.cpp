#include "spectrum/lowest_pairs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "io/input_error.h"
#include "numeric/precision.h"
#include "spectrum/config.h"
#include "spectrum/frequencies.h"
#include "spectrum/model_zoo.h"
#include "spectrum/request.h"

namespace ropecheck {
namespace {

// lowest_pairs orders by the frequencies' enclosures; this checks the choice against certified
// comparisons, on every variant and scaling rule and on every zoo model's layer types.
TEST(LowestPairs, AreCertifiedLowestForEveryVariantScalingAndZooModel) {
  ScopedPrecision precision(128);
  const std::vector<Spectrum> spectra = {
      config_spectrum("gemma-7b"),
      config_spectrum("llama-3.1-8b"),
      Spectrum(256, "10000", Variant::p_rope, "0.75"),
      Spectrum(128, "500000", Variant::reversed, "0.5", Scaling::llama3_1()),
      Spectrum(64, "10000", Variant::partial, "0.25", Scaling::linear("4")),
      Spectrum(16, "1.5", Variant::rope, "1", Scaling::llama3_1()),
  };
  for (const Spectrum& s : spectra) {
    SCOPED_TRACE(s.describe());
    const std::vector<Interval> g = frequencies<Interval>(s);
    for (int k : {1, 3, 8}) {
      const std::vector<int> chosen = lowest_pairs(s, k);
      ASSERT_EQ(static_cast<int>(chosen.size()), k);
      EXPECT_TRUE(std::is_sorted(chosen.begin(), chosen.end()));
      const std::set<int> set(chosen.begin(), chosen.end());
      EXPECT_EQ(static_cast<int>(set.size()), k);
      for (int c : chosen) {
        EXPECT_TRUE(s.rotated(c)) << c;
        for (int r = 0; r < s.pairs(); ++r) {
          if (!s.rotated(r) || set.count(r)) continue;
          EXPECT_TRUE(certainly_less(g[static_cast<size_t>(c)], g[static_cast<size_t>(r)])) << "pair " << c << " vs " << r;
        }
      }
    }
  }
  // Every zoo model and layer type (yarn, longrope, dynamic, proportional, llama3 with any
  // parameters): no pair left out is certainly lower than a chosen one (ties allowed).
  for (const std::string& name : zoo_names()) {
    for (const LayerType& lt : zoo_model(name).layer_types) {
      if (!lt.spectrum || lt.spectrum->rotated_pairs() < 8) continue;
      SCOPED_TRACE(name + " " + lt.name);
      const Spectrum& s = *lt.spectrum;
      const std::vector<Interval> g = frequencies<Interval>(s);
      const std::vector<int> chosen = lowest_pairs(s, 8);
      const std::set<int> set(chosen.begin(), chosen.end());
      for (int c : chosen)
        for (int r = 0; r < s.pairs(); ++r)
          if (s.rotated(r) && !set.count(r)) {
            EXPECT_FALSE(certainly_less(g[static_cast<size_t>(r)], g[static_cast<size_t>(c)])) << r << " vs " << c;
          }
    }
  }
  // LongRoPE's per-pair factors need not follow the exponent: pair 0 divided by 2000 is the lowest.
  Scaling longrope;
  longrope.kind = Scaling::Kind::longrope;
  longrope.original_context = 4096;
  longrope.max_position = 4096;
  longrope.short_factor = {"2000", "1", "1", "1"};
  longrope.long_factor = {"2000", "1", "1", "1"};
  EXPECT_EQ(lowest_pairs(Spectrum(8, "10000", Variant::rope, "1", longrope), 1), (std::vector<int>{0}));
  EXPECT_EQ(lowest_pairs(Spectrum(256, "10000", Variant::p_rope, "0.75"), 2), (std::vector<int>{94, 95}));
  EXPECT_TRUE(lowest_pairs(Spectrum(8, "10000", Variant::nope), 0).empty());
  EXPECT_THROW(lowest_pairs(Spectrum(8, "10000", Variant::nope), 1), InputError);
  EXPECT_THROW(lowest_pairs(config_spectrum("gemma-7b"), 129), InputError);
  EXPECT_THROW(lowest_pairs(config_spectrum("gemma-7b"), -1), InputError);
}

}  // namespace
}  // namespace ropecheck
