// File: mp_handles.h
// RAII owners of raw GMP integers and rationals, MPFR numbers and MPFI intervals with an explicit precision, for code that may
// run in worker threads (Boost's mpfr_float takes its precision from a process-wide default, which
// is not thread-safe) or that must not leak when an exception passes through.
#pragma once

#include <gmp.h>
#include <mpfi.h>
#include <mpfr.h>

#include <algorithm>

namespace ropecheck {

struct Mpz {
  mpz_t v;
  Mpz() { mpz_init(v); }
  ~Mpz() { mpz_clear(v); }
  Mpz(const Mpz&) = delete;
  Mpz& operator=(const Mpz&) = delete;
};

struct Mpq {
  mpq_t v;
  Mpq() { mpq_init(v); }
  ~Mpq() { mpq_clear(v); }
  Mpq(const Mpq&) = delete;
  Mpq& operator=(const Mpq&) = delete;
};

struct Mpfr {
  mpfr_t v;
  explicit Mpfr(mpfr_prec_t bits) { mpfr_init2(v, std::max<mpfr_prec_t>(bits, MPFR_PREC_MIN)); }
  ~Mpfr() { mpfr_clear(v); }
  Mpfr(const Mpfr&) = delete;
  Mpfr& operator=(const Mpfr&) = delete;
};

struct Mpfi {
  mpfi_t v;
  explicit Mpfi(mpfr_prec_t bits) { mpfi_init2(v, std::max<mpfr_prec_t>(bits, MPFR_PREC_MIN)); }
  ~Mpfi() { mpfi_clear(v); }
  Mpfi(const Mpfi&) = delete;
  Mpfi& operator=(const Mpfi&) = delete;
};

}  // namespace ropecheck
