#include "spectrum/spectrum.h"

#include <cmath>

#include "io/input_error.h"
#include "numeric/scalar.h"
#include "spectrum/limits.h"

namespace ropecheck {

namespace {

// The paper's count: Python int(P * head_dim // 2) evaluates fl(P*d) in binary64, then floors /2.
int kept_pairs(int dim, double fraction) { return static_cast<int>(std::floor((fraction * dim) / 2)); }

}  // namespace

Spectrum::Spectrum(int dim, std::string theta, Variant variant, std::string fraction, Scaling scaling)
    : dim_(dim), theta_(std::move(theta)), variant_(variant), fraction_(std::move(fraction)), scaling_(std::move(scaling)) {
  if (dim_ < 2 || dim_ > kMaxHeadDim || dim_ % 2 != 0)
    throw InputError("dim", "an even integer in [2, " + std::to_string(kMaxHeadDim) + "]", std::to_string(dim_));
  double t = 0;
  try {
    t = from_decimal<double>(theta_);
  } catch (const std::invalid_argument&) {
    throw InputError("theta", "a decimal number > 1", theta_);
  }
  // Decide theta > 1 exactly: the decimal is parsed as an enclosure, so 1.0000000000000000001
  // (which rounds to 1 in binary64) is still accepted.
  {
    const Interval exact = from_decimal<Interval>(theta_);
    if (!(lower_of(exact) > 1) || !std::isfinite(t)) throw InputError("theta", "a decimal number > 1", theta_);
  }
  int fraction_pairs = 0;
  if (variant_takes_fraction(variant_)) {
    double f = -1;
    try {
      f = from_decimal<double>(fraction_);
    } catch (const std::invalid_argument&) {
    }
    if (!(f >= 0 && f <= 1)) throw InputError("fraction", "a decimal in [0, 1]", fraction_);
    fraction_pairs = kept_pairs(dim_, f);
  }
  kept_ = variant_info(variant_).rotated_pairs(pairs(), fraction_pairs);
  if (kept_ > 0) check_scaling(scaling_, rotary_width() / 2);  // a rule's constraints on the spectrum too (dynamic: d > 2)
}

bool Spectrum::rotated(int k) const { return variant_info(variant_).rotated(k, pairs(), kept_); }

int Spectrum::rotary_width() const { return variant_info(variant_).rotary_width(dim_, kept_); }

int Spectrum::rotated_pairs() const { return kept_; }

void Spectrum::exponent(int k, long long& numerator, long long& denominator) const {
  numerator = 2LL * k;
  denominator = rotary_width();
}

std::string Spectrum::describe() const {
  std::string v = variant_name(variant_);
  if (variant_takes_fraction(variant_)) v += " " + fraction_;
  return v + ", d=" + std::to_string(dim_) + ", theta=" + theta_ + ", scaling " + scaling_.describe();
}

}  // namespace ropecheck
