#include "numeric/precision.h"

#include <boost/multiprecision/detail/digits.hpp>

#include "numeric/scalar.h"

namespace ropecheck {
namespace {

unsigned digits10_for_bits(unsigned bits) {
  unsigned d = 1;
  while (boost::multiprecision::detail::digits10_2_2(d) < bits) ++d;
  return d;
}

}  // namespace

unsigned effective_precision_bits(unsigned bits) {
  return static_cast<unsigned>(boost::multiprecision::detail::digits10_2_2(digits10_for_bits(bits)));
}

ScopedPrecision::ScopedPrecision(unsigned bits)
    : saved_mpfr_digits_(Real::default_precision()),
      saved_mpfi_digits_(Interval::default_precision()),
      bits_(effective_precision_bits(bits)) {
  const unsigned d = digits10_for_bits(bits);
  Real::default_precision(d);
  Interval::default_precision(d);
}

ScopedPrecision::~ScopedPrecision() {
  Real::default_precision(saved_mpfr_digits_);
  Interval::default_precision(saved_mpfi_digits_);
}

std::mutex& default_precision_mutex() {
  static std::mutex m;
  return m;
}

}  // namespace ropecheck
