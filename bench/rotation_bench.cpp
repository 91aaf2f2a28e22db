// Cost of one RoPE activation q^T R^rel k (d = 128) in each working type, against binary64 as the
// baseline in the same run, and of the interval sin/cos (midpoint-radius) against MPFI's own
// mpfi_sin + mpfi_cos. Run:
//   build/bench/ropecheck_bench --benchmark_out=bench.json --benchmark_out_format=json
// and compare the ratios, not the absolute times (the machine is shared).
#include <benchmark/benchmark.h>
#include <mpfi.h>

#include "attention/activation.h"
#include "numeric/precision.h"
#include "random/dyadic_vector.h"
#include "spectrum/frequencies.h"

namespace ropecheck {
namespace {

template <class T>
void BM_Activation(benchmark::State& state) {
  ScopedPrecision p(static_cast<unsigned>(state.range(0)));
  const Spectrum s(128, "10000");
  const auto g = frequencies<T>(s);
  const Vector<T> q = random_dyadic_vector<T>(128, 1, 1), k = random_dyadic_vector<T>(128, 1, 2);
  std::int64_t rel = 1;
  for (auto _ : state) {
    benchmark::DoNotOptimize(activation(q, k, rel, g));
    rel = rel * 3 % 100003;
  }
  state.SetItemsProcessed(state.iterations() * 64);  // items = chunks
}
BENCHMARK(BM_Activation<double>)->Arg(53)->Name("activation_d128/double");
BENCHMARK(BM_Activation<Real>)->Arg(256)->Name("activation_d128/mpfr_256");
BENCHMARK(BM_Activation<Interval>)->Arg(256)->Name("activation_d128/mpfi_256");

void BM_IntervalSinCos(benchmark::State& state) {
  ScopedPrecision p(256);
  Interval x = from_decimal<Interval>("710.25"), s, c;
  for (auto _ : state) {
    sin_cos(x, s, c);
    benchmark::DoNotOptimize(s);
  }
}
void BM_MpfiSinCos(benchmark::State& state) {
  ScopedPrecision p(256);
  Interval x = from_decimal<Interval>("710.25"), s, c;
  for (auto _ : state) {
    mpfi_sin(s.backend().data(), x.backend().data());
    mpfi_cos(c.backend().data(), x.backend().data());
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_MpfiSinCos)->Name("interval_sin_cos_256/mpfi_sin+mpfi_cos");
BENCHMARK(BM_IntervalSinCos)->Name("interval_sin_cos_256/midpoint_radius");

}  // namespace
}  // namespace ropecheck

BENCHMARK_MAIN();
