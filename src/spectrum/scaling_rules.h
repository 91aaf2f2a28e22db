// File: scaling_rules.h
// The formulas of scaling.h, generic over the scalar types. Each kind writes its own in its file,
// spectrum/scaling/<kind>.cpp: a FrequencyMap<T> subclass template (built once per spectrum: it
// precomputes theta', yarn's correction range; then maps each unscaled frequency) and, when the
// kind has one, its attention factor. formulas_of<> instantiates both there for float, double,
// Real and Interval, and the registry (ScalingRuleInfo::formulas) carries them to ScalingRule<T>
// and attention_factor<T>: no switch over kinds outside the registry.
// float/double evaluate the formulas in that type; Real at its precision; Interval encloses the
// exact real rule. Where a rule branches on a real comparison (llama3's bands, yarn's floor/ceil
// and max/min, its "low == high" guard), an Interval decides the branch from its endpoints or,
// when it cannot, encloses every branch it meets (the hull) and decided() says so.
#pragma once

#include <cmath>
#include <memory>
#include <tuple>

#include "numeric/scalar.h"
#include "spectrum/scaling.h"
#include "spectrum/scaling_registry.h"

namespace ropecheck {

// One scaling's frequency rule in T, for one spectrum. The base class is the identity (none).
template <Scalar T>
class FrequencyMap {
 public:
  // theta: the spectrum's base; d: its rotary width (the exponent's denominator). Preconditions:
  // check_scaling(s, d/2) passed.
  explicit FrequencyMap(const T& theta) : theta_(theta) {}
  virtual ~FrequencyMap() = default;

  // Returns: the scaled frequency of rotating pair i (0-based) whose unscaled frequency is
  // g = theta()^(-2i/d); 0 stays 0.
  virtual T operator()(const T& g, int /*i*/) const { return g; }
  // Returns: the base the unscaled frequencies are powers of (theta' for dynamic, else theta).
  const T& theta() const { return theta_; }
  // Returns: false when an Interval could not decide one of the rule's branches (the results are
  // then the hull of the branches met, still enclosures of the exact rule).
  bool decided() const { return decided_; }

 protected:
  T theta_;
  mutable bool decided_ = true;
};

template <Scalar T>
using FrequencyMapMaker = std::unique_ptr<FrequencyMap<T>> (*)(const Scaling& s, const T& theta, int d);
template <Scalar T>
using AttentionFactorRule = T (*)(const Scaling& s);

// One kind's formulas in every scalar type. attention: null for a kind whose factor is exactly 1;
// a kind with an attention factor returns the config's attention_factor when it states one
// (stated_attention_factor, attention_factor.h, relies on it).
struct ScalingFormulas {
  std::tuple<FrequencyMapMaker<float>, FrequencyMapMaker<double>, FrequencyMapMaker<Real>, FrequencyMapMaker<Interval>> frequencies;
  std::tuple<AttentionFactorRule<float>, AttentionFactorRule<double>, AttentionFactorRule<Real>, AttentionFactorRule<Interval>> attention;

  template <Scalar T>
  FrequencyMapMaker<T> frequency_map() const {
    return std::get<FrequencyMapMaker<T>>(frequencies);
  }
  template <Scalar T>
  AttentionFactorRule<T> attention_factor() const {
    return std::get<AttentionFactorRule<T>>(attention);
  }
  bool has_attention_factor() const { return std::get<AttentionFactorRule<Interval>>(attention) != nullptr; }
};

namespace scaling_detail {

template <template <class> class Map, Scalar T>
std::unique_ptr<FrequencyMap<T>> make_map(const Scaling& s, const T& theta, int d) {
  return std::make_unique<Map<T>>(s, theta, d);
}

template <template <class> class Map, Scalar T>
constexpr AttentionFactorRule<T> attention_of() {
  if constexpr (requires(const Scaling& s) { Map<T>::attention_factor(s); }) return &Map<T>::attention_factor;
  else return nullptr;
}

// f(x) for a nondecreasing f applied to both endpoints of an interval (exact for floor, ceil,
// max and min against exact constants): an enclosure of {f(t) : t in x}.
template <Scalar T, class F>
T monotone(const T& x, F f) {
  if constexpr (is_interval_v<T>) {
    Interval out(f(lower_of(x)), f(upper_of(x)));
    return out;
  } else if constexpr (is_real_v<T>) {
    return f(x);
  } else {
    return static_cast<T>(f(Real(x)));
  }
}

}  // namespace scaling_detail

// For a kind's file: the formulas of Map, a FrequencyMap subclass template constructible as
// Map<T>(s, theta, d), with, when the kind has an attention factor, a static
// T Map<T>::attention_factor(const Scaling&). Instantiated for the four scalar types.
template <template <class> class Map>
constexpr ScalingFormulas formulas_of() {
  using namespace scaling_detail;
  return ScalingFormulas{{&make_map<Map, float>, &make_map<Map, double>, &make_map<Map, Real>, &make_map<Map, Interval>},
                         {attention_of<Map, float>(), attention_of<Map, double>(), attention_of<Map, Real>(), attention_of<Map, Interval>()}};
}

// The frequency rule of a scaling in T: the kind's FrequencyMap, through the registry.
template <Scalar T>
class ScalingRule {
 public:
  // theta: the spectrum's base; d: its rotary width. Preconditions: check_scaling(s, d/2) passed.
  ScalingRule(const Scaling& s, const T& theta, int d)
      : map_(scaling_rule(s.kind).formulas->template frequency_map<T>()(s, theta, d)) {}

  // Returns: the base the unscaled frequencies are powers of (theta' for dynamic, else theta).
  const T& theta() const { return map_->theta(); }
  // Returns: the scaled frequency of rotating pair i (0-based) whose unscaled frequency is
  // g = theta()^(-2i/d); 0 stays 0.
  T operator()(const T& g, int i) const { return (*map_)(g, i); }
  // Returns: false when an Interval could not decide one of the rule's branches.
  bool decided() const { return map_->decided(); }

 private:
  std::unique_ptr<const FrequencyMap<T>> map_;
};

}  // namespace ropecheck
