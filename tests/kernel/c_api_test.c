/* The C ABI (kernel/c_api.h) from a C11 program that includes nothing else of ropecheck and links
 * libropecheck.so, as a ctypes or C user does. It checks what it can verify by itself:
 *   - position 0 and the nope variant are identities (bit for bit),
 *   - at small positions each output is within the documented bound of a long double reference,
 *   - threads 1 and 2, in place and out of place, dense and strided views give the same bits,
 *   - every bad argument returns ROPECHECK_BAD_ARGUMENT with a message naming it,
 *   - version 2's plans from model descriptions (YaRN, LongRoPE, MLA, NeoX partial, GLM): the
 *     geometry and attention factor each model's config implies, pass-through channels bit for bit,
 *     position 0 giving the correctly rounded a * x, the slow-path counts, and every bad model,
 *     config, layer type or argument reported, never an abort.
 * The bit-for-bit comparison of version 2 with the C++ kernel on every zoo model is the C++ test
 * beside this one (c_api_plan_test.cpp).  * Random inputs come from splitmix64 with the seed printed at start; every failure prints its
 * operands as %a and raw bits. Exit code 0 when every check passes. */
#include "kernel/c_api.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

_Static_assert(LDBL_MANT_DIG >= 64, "the reference rotation needs x87 extended long double (64-bit significand)");

static int checks = 0;
static int failures = 0;

#define CHECK(cond, ...)                                            \
  do {                                                              \
    ++checks;                                                       \
    if (!(cond)) {                                                  \
      ++failures;                                                   \
      fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                 \
      fputc('\n', stderr);                                          \
    }                                                               \
  } while (0)

static const uint64_t kSeed = 20240404u;
static uint64_t rng_state;

/* splitmix64: a fixed, documented generator, so the inputs are the same on every libc. */
static uint64_t next_bits(void) {
  uint64_t z = (rng_state += 0x9E3779B97F4A7C15u);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
  return z ^ (z >> 31);
}

static uint32_t f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
static float f32_of(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static float bf16_value(uint16_t b) { return f32_of((uint32_t)b << 16); }

/* A float of random sign and significand with magnitude in [2^-4, 2^4): moderate values, so a
 * pair's components are within a factor 2^8 of each other. */
static float moderate_f32(void) {
  const uint64_t r = next_bits();
  const uint32_t exponent = 123u + (uint32_t)((r >> 32) % 8u);
  return f32_of((uint32_t)(r & 0x807FFFFFu) | (exponent << 23));
}
/* The same as an exact bfloat16 value (the low 16 bits of the float dropped). */
static uint16_t moderate_bf16(void) { return (uint16_t)(f32_bits(moderate_f32()) >> 16); }

/* IEEE binary16 decoded exactly (every value is a double). */
static double f16_value(uint16_t h) {
  const int e = (h >> 10) & 0x1F, m = h & 0x3FF;
  const double mag = e == 0x1F ? (m ? NAN : INFINITY) : e == 0 ? ldexp(m, -24) : ldexp(1024 + m, e - 25);
  return (h & 0x8000) ? -mag : mag;
}
/* A float16 of random sign and significand with magnitude in [2^-4, 2^4). */
static uint16_t moderate_f16(void) {
  const uint64_t r = next_bits();
  return (uint16_t)((r & 0x83FFu) | ((11u + (uint32_t)((r >> 32) % 8u)) << 10));
}

static ropecheck_rope_spec make_spec(int32_t dim, const char* variant, const char* fraction, const char* layout) {
  ropecheck_rope_spec s;
  s.head_dim = dim;
  s.theta = "10000";
  s.variant = variant;
  s.fraction = fraction;
  s.layout = layout;
  return s;
}

static ropecheck_tensor dense(void* data, int64_t tokens, int64_t heads, int64_t dim) {
  ropecheck_tensor t;
  t.data = data;
  t.tokens = tokens;
  t.heads = heads;
  t.token_stride = heads * dim;
  t.head_stride = dim;
  return t;
}

/* Position 0: the table's cos and sin are within 2^-50 of 1 and 0 (sincos_table.h), so
 * |y_a - x_a| <= 2^-50 |x_a| + 2^-50 |x_b| <= 2^-50 (1 + 2^8) |x_a| < 2^-41 |x_a| for moderate
 * inputs; the float (or bf16) nearest to y_a is then x_a itself, whose neighbours are at least
 * 2^-24 |x_a| (bf16: 2^-8 |x_a|) away. So the output equals the input bit for bit. */
static void identity_at_position_zero(const char* layout) {
  enum { T = 3, H = 2, D = 8, N = T * H * D };
  const ropecheck_rope_spec spec = make_spec(D, "rope", NULL, layout);
  const int64_t positions[T] = {0, 0, 0};
  float x[N], y[N];
  uint16_t xb[N], yb[N];
  for (int i = 0; i < N; ++i) x[i] = moderate_f32(), xb[i] = moderate_bf16();
  ropecheck_tensor in = dense(x, T, H, D), out = dense(y, T, H, D);
  int rc = ropecheck_apply_rope_f32(&spec, positions, &in, &out, 1);
  CHECK(rc == ROPECHECK_OK, "f32 %s: rc %d: %s", layout, rc, ropecheck_last_error());
  for (int i = 0; i < N && rc == ROPECHECK_OK; ++i)
    CHECK(f32_bits(x[i]) == f32_bits(y[i]), "f32 %s position 0 element %d: in %a (0x%08x) out %a (0x%08x)", layout, i,
          x[i], f32_bits(x[i]), y[i], f32_bits(y[i]));
  ropecheck_tensor inb = dense(xb, T, H, D), outb = dense(yb, T, H, D);
  rc = ropecheck_apply_rope_bf16(&spec, positions, &inb, &outb, 1);
  CHECK(rc == ROPECHECK_OK, "bf16 %s: rc %d: %s", layout, rc, ropecheck_last_error());
  for (int i = 0; i < N && rc == ROPECHECK_OK; ++i)
    CHECK(xb[i] == yb[i], "bf16 %s position 0 element %d: in %a (0x%04x) out %a (0x%04x)", layout, i, bf16_value(xb[i]),
          xb[i], bf16_value(yb[i]), yb[i]);
}

/* nope: every pair has frequency 0 and is copied (rope_plan.h), so any bit pattern, NaN payloads,
 * infinities and signed zeros included, comes out unchanged at any position. */
static void nope_is_identity(const char* layout) {
  enum { T = 4, H = 3, D = 6, N = T * H * D };
  const ropecheck_rope_spec spec = make_spec(D, "nope", NULL, layout);
  int64_t positions[T];
  float x[N], y[N];
  uint16_t xb[N], yb[N];
  for (int t = 0; t < T; ++t) positions[t] = (int64_t)(next_bits() >> 1) * (t % 2 ? -1 : 1);
  for (int i = 0; i < N; ++i) {
    const uint64_t r = next_bits();
    x[i] = f32_of((uint32_t)r);
    xb[i] = (uint16_t)(r >> 32);
  }
  x[0] = f32_of(0x7FA00001u); /* a signalling NaN with a payload */
  x[1] = f32_of(0x80000000u); /* -0 */
  ropecheck_tensor in = dense(x, T, H, D), out = dense(y, T, H, D);
  int rc = ropecheck_apply_rope_f32(&spec, positions, &in, &out, 1);
  CHECK(rc == ROPECHECK_OK, "nope f32 %s: rc %d: %s", layout, rc, ropecheck_last_error());
  for (int i = 0; i < N && rc == ROPECHECK_OK; ++i)
    CHECK(f32_bits(x[i]) == f32_bits(y[i]), "nope f32 %s element %d: in 0x%08x out 0x%08x", layout, i, f32_bits(x[i]),
          f32_bits(y[i]));
  ropecheck_tensor inb = dense(xb, T, H, D), outb = dense(yb, T, H, D);
  rc = ropecheck_apply_rope_bf16(&spec, positions, &inb, &outb, 1);
  CHECK(rc == ROPECHECK_OK, "nope bf16 %s: rc %d: %s", layout, rc, ropecheck_last_error());
  for (int i = 0; i < N && rc == ROPECHECK_OK; ++i)
    CHECK(xb[i] == yb[i], "nope bf16 %s element %d: in 0x%04x out 0x%04x", layout, i, xb[i], yb[i]);
}

/* The ulp of the format at magnitude v: 2^(e - p) for v in [2^(e-1), 2^e), p = 24 (f32) or
 * 8 (bf16), never below the smallest subnormal's. */
static long double format_ulp(long double v, int precision, int min_exponent) {
  int e = 0;
  if (v <= 0) return ldexpl(1.0L, min_exponent);
  frexpl(v, &e);
  const int u = e - precision;
  return ldexpl(1.0L, u < min_exponent ? min_exponent : u);
}

/* Accuracy at small positions against a long double reference, with head_dim 4, theta 10000:
 * g_0 = 1 and g_1 = 10000^(-1/2) = 0.01 exactly as real numbers.
 *
 * The bound checked, per component y of pair (x_a, x_b) with norm n (c_api.h / apply_rope.h):
 *   |y - exact| <= (0.5 + 2^-25) ulp          f32,  ulp = max(ulp_f32(exact), 2^-24 n)
 *   |y - exact| <= (0.5 + 2^-14) ulp          bf16, ulp = max(ulp_bf16(exact), 2^-8 n)
 * The reference `ref` is not the exact value; its error budget (|p| <= 65535):
 *   angle: for g_0 = 1, p * 1 is exact; for g_1, 0.01L has relative error <= 2^-64 and the product
 *          another 2^-64, on an angle < 656 < 2^10: |error| <= 2 * 2^-64 * 2^10 = 2^-53.
 *   sinl/cosl of an argument below 2^16: glibc's ldbl-96 kernels reduce exactly and err by about
 *          one long double ulp (2^-64); even the x87 fsin with its 66-bit pi would err by at most
 *          2^16 * 2^-66 = 2^-50. Take 2^-50 each.
 *   So |c_ref - cos| and |s_ref - sin| <= 2^-53 + 2^-50 < 1.2 * 2^-50, and the rotation
 *   x_a c - x_b s then errs by <= (|x_a| + |x_b|) 1.2 * 2^-50 + (three long double roundings)
 *   3 * 2^-64 n <= sqrt(2) 1.2 * 2^-50 n + 2^-62 n < 2^-49 n.
 * eps = 2^-48 n covers that with a factor 2 to spare. The check is therefore
 *   |y - ref| <= (0.5 + 2^-25) ulp + eps,   ulp computed at |ref| + eps (the largest magnitude the
 * exact value can have, so a binade boundary between ref and exact never makes the check stricter
 * than the contract). Since eps = 2^-24 (2^-24 n) <= 2^-24 ulp, the check allows at most
 * 0.5 + 2^-25 + 2^-24 ulp: a kernel that is off by more than about half an ulp fails it. */
static void accuracy_against_long_double(const char* layout, int bf16) {
  enum { D = 4, P = 12 };
  const int64_t positions[P] = {1, 2, 3, 7, 10, 100, 1000, 4095, 65535, -1, -7, -4095};
  const long double g[2] = {1.0L, 0.01L};
  const ropecheck_rope_spec spec = make_spec(D, "rope", NULL, layout);
  const int interleaved = strcmp(layout, "interleaved") == 0;
  enum { ROUNDS = 64 };
  long double worst = 0;
  for (int round = 0; round < ROUNDS; ++round) {
    float x[P * D], y[P * D];
    uint16_t xb[P * D], yb[P * D];
    for (int i = 0; i < P * D; ++i) {
      xb[i] = moderate_bf16();
      x[i] = bf16 ? bf16_value(xb[i]) : moderate_f32();
    }
    ropecheck_tensor in = bf16 ? dense(xb, P, 1, D) : dense(x, P, 1, D);
    ropecheck_tensor out = bf16 ? dense(yb, P, 1, D) : dense(y, P, 1, D);
    const int rc = bf16 ? ropecheck_apply_rope_bf16(&spec, positions, &in, &out, 1)
                        : ropecheck_apply_rope_f32(&spec, positions, &in, &out, 1);
    CHECK(rc == ROPECHECK_OK, "%s %s: rc %d: %s", bf16 ? "bf16" : "f32", layout, rc, ropecheck_last_error());
    if (rc != ROPECHECK_OK) return;
    if (bf16)
      for (int i = 0; i < P * D; ++i) y[i] = bf16_value(yb[i]);
    for (int t = 0; t < P; ++t) {
      for (int k = 0; k < D / 2; ++k) {
        const int a = t * D + (interleaved ? 2 * k : k);
        const int b = t * D + (interleaved ? 2 * k + 1 : k + D / 2);
        const long double xa = x[a], xbv = x[b];
        const long double angle = (long double)positions[t] * g[k];
        const long double c = cosl(angle), s = sinl(angle);
        const long double ref[2] = {xa * c - xbv * s, xa * s + xbv * c};
        const float got[2] = {y[a], y[b]};
        const long double n = sqrtl(xa * xa + xbv * xbv);
        const long double eps = ldexpl(n, -48);
        for (int j = 0; j < 2; ++j) {
          long double ulp = bf16 ? format_ulp(fabsl(ref[j]) + eps, 8, -133) : format_ulp(fabsl(ref[j]) + eps, 24, -149);
          const long double floor_ulp = ldexpl(n, bf16 ? -8 : -24);
          if (ulp < floor_ulp) ulp = floor_ulp;
          const long double err = fabsl((long double)got[j] - ref[j]);
          const long double bound = (0.5L + ldexpl(1.0L, bf16 ? -14 : -25)) * ulp + eps;
          if (err / ulp > worst) worst = err / ulp;
          CHECK(err <= bound,
                "%s %s position %lld pair %d component %d: x_a %a (0x%08x) x_b %a (0x%08x) out %a (0x%08x) "
                "ref %La, error %Lg ulp > bound %Lg ulp",
                bf16 ? "bf16" : "f32", layout, (long long)positions[t], k, j, x[a], f32_bits(x[a]), x[b], f32_bits(x[b]),
                got[j], f32_bits(got[j]), ref[j], err / ulp, bound / ulp);
        }
      }
    }
  }
  printf("c_api %s %s: max error %.6Lf ulp over %d sampled outputs (a lower bound on the worst case; "
         "ulp floored at 2^-%d times the pair's norm)\n",
         bf16 ? "bf16" : "f32", layout, worst, ROUNDS * P * D, bf16 ? 8 : 24);
}

/* Threads, in place and strides: the same bits whatever the split and the view. */
static void same_bits_for_threads_in_place_and_strides(int bf16) {
  enum { T = 64, H = 4, D = 16, N = T * H * D };
  const ropecheck_rope_spec spec = make_spec(D, "rope", NULL, "half");
  static int64_t positions[T];
  static float x[N], y1[N], y2[N], inplace[N], qkv[3 * N], qkv_before[3 * N];
  static uint16_t xb[N], yb1[N], yb2[N], inplaceb[N], qkvb[3 * N], qkvb_before[3 * N];
  for (int t = 0; t < T; ++t) positions[t] = (int64_t)(next_bits() % (2u * (UINT64_C(1) << 40))) - (INT64_C(1) << 40);
  for (int i = 0; i < N; ++i) x[i] = moderate_f32(), xb[i] = moderate_bf16();
  for (int i = 0; i < 3 * N; ++i) qkv[i] = moderate_f32(), qkvb[i] = moderate_bf16();
  /* q of a fused [tokens][3][heads][head_dim] buffer is x. */
  for (int t = 0; t < T; ++t) {
    memcpy(qkv + t * 3 * H * D, x + t * H * D, sizeof(float) * H * D);
    memcpy(qkvb + t * 3 * H * D, xb + t * H * D, sizeof(uint16_t) * H * D);
  }
  memcpy(qkv_before, qkv, sizeof qkv);
  memcpy(qkvb_before, qkvb, sizeof qkvb);
  memcpy(inplace, x, sizeof x);
  memcpy(inplaceb, xb, sizeof xb);

  void* in_data = bf16 ? (void*)xb : (void*)x;
  ropecheck_tensor in = dense(in_data, T, H, D);
  ropecheck_tensor o1 = dense(bf16 ? (void*)yb1 : (void*)y1, T, H, D);
  ropecheck_tensor o2 = dense(bf16 ? (void*)yb2 : (void*)y2, T, H, D);
  ropecheck_tensor ip = dense(bf16 ? (void*)inplaceb : (void*)inplace, T, H, D);
  ropecheck_tensor q = dense(bf16 ? (void*)qkvb : (void*)qkv, T, H, D);
  q.token_stride = 3 * H * D;
  int (*apply)(const ropecheck_rope_spec*, const int64_t*, const ropecheck_tensor*, const ropecheck_tensor*, int32_t) =
      bf16 ? ropecheck_apply_rope_bf16 : ropecheck_apply_rope_f32;
  const char* name = bf16 ? "bf16" : "f32";
  CHECK(apply(&spec, positions, &in, &o1, 1) == ROPECHECK_OK, "%s threads 1: %s", name, ropecheck_last_error());
  CHECK(apply(&spec, positions, &in, &o2, 2) == ROPECHECK_OK, "%s threads 2: %s", name, ropecheck_last_error());
  CHECK(apply(&spec, positions, &ip, &ip, 2) == ROPECHECK_OK, "%s in place: %s", name, ropecheck_last_error());
  CHECK(apply(&spec, positions, &q, &q, 2) == ROPECHECK_OK, "%s strided: %s", name, ropecheck_last_error());
  const size_t item = bf16 ? 2 : 4;
  const unsigned char* r1 = bf16 ? (const unsigned char*)yb1 : (const unsigned char*)y1;
  const unsigned char* r2 = bf16 ? (const unsigned char*)yb2 : (const unsigned char*)y2;
  const unsigned char* ri = bf16 ? (const unsigned char*)inplaceb : (const unsigned char*)inplace;
  for (int i = 0; i < N; ++i) {
    CHECK(memcmp(r1 + i * item, r2 + i * item, item) == 0, "%s element %d: threads 1 %a (0x%08x) threads 2 %a (0x%08x)",
          name, i, bf16 ? bf16_value(yb1[i]) : y1[i], bf16 ? (uint32_t)yb1[i] : f32_bits(y1[i]),
          bf16 ? bf16_value(yb2[i]) : y2[i], bf16 ? (uint32_t)yb2[i] : f32_bits(y2[i]));
    CHECK(memcmp(r1 + i * item, ri + i * item, item) == 0, "%s element %d: in place differs from out of place", name, i);
  }
  for (int t = 0; t < T; ++t)
    for (int j = 0; j < 3 * H * D; ++j) {
      const int i = t * 3 * H * D + j;
      if (j < H * D) {
        const int dense_index = t * H * D + j;
        CHECK(bf16 ? qkvb[i] == yb1[dense_index] : f32_bits(qkv[i]) == f32_bits(y1[dense_index]),
              "%s strided q token %d element %d differs from the dense result", name, t, j);
      } else {
        CHECK(bf16 ? qkvb[i] == qkvb_before[i] : f32_bits(qkv[i]) == f32_bits(qkv_before[i]),
              "%s strided: k/v element %d of token %d was written", name, j, t);
      }
    }
}

/* Plans built concurrently: the plan cache and the MPFR code behind it (Boost's default precision
 * is process-wide) must give every thread the same plan as a sequential build. Each thread writes
 * theta with its own number of trailing zeros, so its specs miss the cache and are built while
 * the other threads build theirs; the same real theta must still give the same bits as the
 * sequential reference (theta "10000"). */
enum { CONC_THREADS = 4, CONC_DIMS = 8, CONC_TOKENS = 2, CONC_MAX_D = 2 * CONC_DIMS };
static float conc_input[CONC_TOKENS * CONC_MAX_D];
static float conc_out[CONC_THREADS + 1][CONC_DIMS][CONC_TOKENS * CONC_MAX_D];
static int conc_rc[CONC_THREADS + 1];
static const int64_t conc_positions[CONC_TOKENS] = {7, INT64_C(1) << 40};

static int concurrent_worker(void* arg) {
  const int j = *(const int*)arg;
  char theta[32] = "10000";
  if (j < CONC_THREADS) {
    strcat(theta, ".");
    for (int z = 0; z <= j; ++z) strcat(theta, "0");
  }
  conc_rc[j] = ROPECHECK_OK;
  for (int i = 0; i < CONC_DIMS; ++i) {
    const int k = (i + j) % CONC_DIMS; /* a different order in every thread */
    const int d = 2 * (k + 1);
    ropecheck_rope_spec spec = make_spec(d, "rope", NULL, "interleaved");
    spec.theta = theta;
    ropecheck_tensor in = dense(conc_input, CONC_TOKENS, 1, d), out = dense(conc_out[j][k], CONC_TOKENS, 1, d);
    const int rc = ropecheck_apply_rope_f32(&spec, conc_positions, &in, &out, 1);
    if (rc != ROPECHECK_OK) conc_rc[j] = rc;
  }
  return 0;
}

static void plans_built_concurrently_match_a_sequential_build(void) {
  for (int i = 0; i < CONC_TOKENS * CONC_MAX_D; ++i) conc_input[i] = moderate_f32();
  thrd_t threads[CONC_THREADS];
  int ids[CONC_THREADS + 1];
  for (int j = 0; j <= CONC_THREADS; ++j) ids[j] = j;
  for (int j = 0; j < CONC_THREADS; ++j)
    CHECK(thrd_create(&threads[j], concurrent_worker, &ids[j]) == thrd_success, "thread %d not started", j);
  for (int j = 0; j < CONC_THREADS; ++j) thrd_join(threads[j], NULL);
  concurrent_worker(&ids[CONC_THREADS]); /* the sequential reference, theta "10000" */
  for (int j = 0; j <= CONC_THREADS; ++j) CHECK(conc_rc[j] == ROPECHECK_OK, "thread %d: rc %d", j, conc_rc[j]);
  for (int j = 0; j < CONC_THREADS; ++j)
    for (int k = 0; k < CONC_DIMS; ++k)
      for (int i = 0; i < CONC_TOKENS * 2 * (k + 1); ++i)
        CHECK(f32_bits(conc_out[j][k][i]) == f32_bits(conc_out[CONC_THREADS][k][i]),
              "thread %d, d %d, element %d: %a (0x%08x), sequential %a (0x%08x)", j, 2 * (k + 1), i, conc_out[j][k][i],
              f32_bits(conc_out[j][k][i]), conc_out[CONC_THREADS][k][i], f32_bits(conc_out[CONC_THREADS][k][i]));
}

static void expect_bad(int rc, const char* what, const char* names) {
  const char* message = ropecheck_last_error();
  CHECK(rc == ROPECHECK_BAD_ARGUMENT, "%s: rc %d, message \"%s\"", what, rc, message);
  CHECK(message != NULL && message[0] != '\0', "%s: empty message", what);
  CHECK(message != NULL && strstr(message, names) != NULL, "%s: message \"%s\" does not name %s", what, message, names);
}

static void every_bad_argument_is_reported(void) {
  float x[16] = {0}, y[16];
  const int64_t positions[2] = {0, 1};
  const ropecheck_rope_spec good = make_spec(8, "rope", NULL, "half");
  ropecheck_tensor in = dense(x, 2, 1, 8), out = dense(y, 2, 1, 8);

  expect_bad(ropecheck_apply_rope_f32(NULL, positions, &in, &out, 1), "NULL spec", "spec");
  expect_bad(ropecheck_apply_rope_bf16(NULL, positions, &in, &out, 1), "NULL spec (bf16)", "spec");
  ropecheck_rope_spec s = good;
  s.head_dim = 7;
  expect_bad(ropecheck_apply_rope_f32(&s, positions, &in, &out, 1), "odd head_dim", "spec->head_dim");
  s = good;
  s.layout = "diagonal";
  expect_bad(ropecheck_apply_rope_f32(&s, positions, &in, &out, 1), "bad layout", "spec->layout");
  CHECK(strcmp(ropecheck_last_error(), "spec->layout must be interleaved or half (got diagonal)") == 0, "got \"%s\"",
        ropecheck_last_error());
  s = good;
  s.layout = NULL;
  expect_bad(ropecheck_apply_rope_f32(&s, positions, &in, &out, 1), "NULL layout", "spec->layout");
  s = good;
  s.variant = "yarn";
  expect_bad(ropecheck_apply_rope_f32(&s, positions, &in, &out, 1), "bad variant", "spec->variant");
  s = good;
  s.theta = "1";
  expect_bad(ropecheck_apply_rope_f32(&s, positions, &in, &out, 1), "theta 1", "spec->theta");
  s = good;
  s.theta = NULL;
  expect_bad(ropecheck_apply_rope_f32(&s, positions, &in, &out, 1), "NULL theta", "spec->theta");
  s = good;
  s.variant = "p-rope";
  s.fraction = "1.5";
  expect_bad(ropecheck_apply_rope_f32(&s, positions, &in, &out, 1), "fraction 1.5", "spec->fraction");
  expect_bad(ropecheck_apply_rope_f32(&good, positions, &in, &out, 0), "threads 0", "threads");
  expect_bad(ropecheck_apply_rope_f32(&good, positions, &in, &out, -3), "threads -3", "threads");
  expect_bad(ropecheck_apply_rope_f32(&good, NULL, &in, &out, 1), "NULL positions", "positions");
  expect_bad(ropecheck_apply_rope_f32(&good, positions, NULL, &out, 1), "NULL in", "in");
  expect_bad(ropecheck_apply_rope_f32(&good, positions, &in, NULL, 1), "NULL out", "out");
  ropecheck_tensor bad = in;
  bad.tokens = -1;
  expect_bad(ropecheck_apply_rope_f32(&good, positions, &bad, &out, 1), "negative tokens", "in->tokens");
  bad = out;
  bad.head_stride = -8;
  expect_bad(ropecheck_apply_rope_bf16(&good, positions, &in, &bad, 1), "negative head stride", "out->head_stride");
  bad = in;
  bad.data = NULL;
  expect_bad(ropecheck_apply_rope_f32(&good, positions, &bad, &out, 1), "NULL data", "in->data");
  /* Disagreeing views are the kernel's to refuse: any message, but a bad-argument code. */
  bad = out;
  bad.tokens = 1;
  const int rc = ropecheck_apply_rope_f32(&good, positions, &in, &bad, 1);
  CHECK(rc == ROPECHECK_BAD_ARGUMENT && ropecheck_last_error()[0] != '\0', "token counts 2 and 1: rc %d \"%s\"", rc,
        ropecheck_last_error());
  /* A success clears the message. */
  CHECK(ropecheck_apply_rope_f32(&good, positions, &in, &out, 1) == ROPECHECK_OK, "%s", ropecheck_last_error());
  CHECK(ropecheck_last_error()[0] == '\0', "message after a success: \"%s\"", ropecheck_last_error());
}

/* ---- Version 2: plans from model descriptions ---- */

static ropecheck_plan* make_plan(const char* model, const char* config, const char* layer_type, int64_t sequence_length) {
  ropecheck_plan* plan = NULL;
  const int rc = ropecheck_plan_from_model(model, config, layer_type, sequence_length, &plan);
  CHECK(rc == ROPECHECK_OK && plan != NULL, "plan %s / %s: rc %d: %s", model ? model : "(config text)",
        layer_type ? layer_type : "(default)", rc, ropecheck_last_error());
  return plan;
}

/* What each model's config implies (the zoo's config files, src/spectrum/zoo; hf_config.h's rules). The attention
 * factors as real numbers:
 *   gpt-oss-20b       yarn, factor 32, no attention_factor:  0.1 ln 32 + 1
 *   qwen2.5-7b-yarn   yarn, factor 4:                        0.1 ln 4 + 1
 *   phi-3.5-mini      longrope, M/C = 131072/4096 = 32:      sqrt(1 + ln 32 / ln 4096)
 *   deepseek-v3       yarn, mscale = mscale_all_dim:         1 (the rest goes into the softmax)
 *   gpt-neox-20b, glm-4-9b: no scaling:                      1
 * The plan's double is its exact factor rounded to nearest; the long double expressions below are
 * within a few 2^-64 relative of the same real, so they agree to 2^-50 relative. */
typedef struct model_case {
  const char* model;
  int32_t head_dim, rotary_offset, rotary_dims;
  const char* layout;
  long double factor;
} model_case;

static long double relative_difference(long double a, long double b) { return fabsl(a - b) / fabsl(b); }

/* The float32 nearest a * x (ties to even) for the exact factor a, given a_ld within 2^-60
 * relative of a: long double a_ld * x is then within 2^-59 relative of a x, and rounding it to
 * float can only differ from RN(a x) when a x lies within 2^-59 relative of a midpoint between two
 * floats; the check below allows that case, flagged as unresolved, instead of guessing. */
static int near_midpoint_f32(long double v) {
  const float r = (float)v;
  const long double lo = (long double)nextafterf(r, -INFINITY), hi = (long double)nextafterf(r, INFINITY);
  const long double m1 = ((long double)r + lo) / 2, m2 = ((long double)r + hi) / 2;
  const long double tol = fabsl(v) * ldexpl(1.0L, -58);
  return fabsl(v - m1) <= tol || fabsl(v - m2) <= tol;
}

static void plan_geometry_passthrough_and_position_zero(const model_case* mc) {
  ropecheck_plan* plan = make_plan(mc->model, NULL, NULL, 0);
  if (plan == NULL) return;
  const int32_t d = ropecheck_plan_head_dim(plan), o = ropecheck_plan_rotary_offset(plan),
                r = ropecheck_plan_rotary_dims(plan);
  CHECK(d == mc->head_dim && o == mc->rotary_offset && r == mc->rotary_dims,
        "%s: head_dim %d rotary_offset %d rotary_dims %d, expected %d %d %d", mc->model, d, o, r, mc->head_dim,
        mc->rotary_offset, mc->rotary_dims);
  CHECK(strcmp(ropecheck_plan_layout(plan), mc->layout) == 0, "%s: layout %s, expected %s", mc->model,
        ropecheck_plan_layout(plan), mc->layout);
  const double a = ropecheck_plan_attention_factor(plan);
  CHECK(relative_difference((long double)a, mc->factor) <= ldexpl(1.0L, -50), "%s: attention factor %.17g, expected %.20Lg",
        mc->model, a, mc->factor);
  const char* text = ropecheck_plan_attention_factor_text(plan);
  CHECK(relative_difference(strtold(text, NULL), mc->factor) <= ldexpl(1.0L, -50), "%s: attention factor text %s",
        mc->model, text);
  CHECK(strstr(ropecheck_plan_describe(plan), mc->model) != NULL, "%s: describe \"%s\"", mc->model,
        ropecheck_plan_describe(plan));
  printf("c_api v2 %s: %s\n", mc->model, ropecheck_plan_describe(plan));
  if (d != mc->head_dim || d > 256) {
    ropecheck_plan_free(plan);
    return;
  }

  /* Random bit patterns everywhere (NaN payloads, infinities, subnormals): pass-through channels
   * must come out unchanged at any position; rotary ones are the kernel's (compared bit for bit
   * in c_api_plan_test.cpp). Then moderate values at position 0, where the exact map is a * x. */
  enum { T = 6, H = 3, MAXD = 256 };
  static float x[T * H * MAXD], y[T * H * MAXD], y2[T * H * MAXD];
  static uint16_t xb[T * H * MAXD], yb[T * H * MAXD];
  const int n = T * H * d;
  int64_t positions[T];
  for (int t = 0; t < T; ++t) positions[t] = (int64_t)(next_bits() >> (t * 10)) * (t % 2 ? -1 : 1);
  for (int i = 0; i < n; ++i) {
    const uint64_t bits = next_bits();
    x[i] = f32_of((uint32_t)bits);
    xb[i] = (uint16_t)(bits >> 32);
  }
  ropecheck_tensor in = dense(x, T, H, d), out = dense(y, T, H, d), out2 = dense(y2, T, H, d);
  ropecheck_stats stats = {0, 0, 0};
  int rc = ropecheck_plan_apply_f32(plan, positions, &in, &out, 1, &stats);
  CHECK(rc == ROPECHECK_OK, "%s f32: rc %d: %s", mc->model, rc, ropecheck_last_error());
  CHECK(stats.outputs == (int64_t)T * H * r && stats.unresolved == 0, "%s: stats outputs %lld slow %lld unresolved %lld",
        mc->model, (long long)stats.outputs, (long long)stats.slow, (long long)stats.unresolved);
  rc = ropecheck_plan_apply_f32(plan, positions, &in, &out2, 2, NULL);
  CHECK(rc == ROPECHECK_OK, "%s f32 threads 2: rc %d: %s", mc->model, rc, ropecheck_last_error());
  CHECK(memcmp(y, y2, sizeof(float) * (size_t)n) == 0, "%s: threads 1 and 2 differ", mc->model);
  ropecheck_tensor inb = dense(xb, T, H, d), outb = dense(yb, T, H, d);
  rc = ropecheck_plan_apply_bf16(plan, positions, &inb, &outb, 1, &stats);
  CHECK(rc == ROPECHECK_OK, "%s bf16: rc %d: %s", mc->model, rc, ropecheck_last_error());
  CHECK(stats.outputs == 2 * (int64_t)T * H * r, "%s: stats are added to: outputs %lld", mc->model,
        (long long)stats.outputs);
  for (int i = 0; i < n; ++i) {
    const int c = i % d;
    if (c >= o && c < o + r) continue;
    CHECK(f32_bits(x[i]) == f32_bits(y[i]), "%s f32 pass-through channel %d element %d: in 0x%08x out 0x%08x", mc->model,
          c, i, f32_bits(x[i]), f32_bits(y[i]));
    CHECK(xb[i] == yb[i], "%s bf16 pass-through channel %d element %d: in 0x%04x out 0x%04x", mc->model, c, i, xb[i],
          yb[i]);
  }

  /* Position 0: cos 0 = 1 and sin 0 = 0 exactly, so the exact map is a * x, and the kernel's
   * output is its correctly rounded value (in place, this time). */
  for (int t = 0; t < T; ++t) positions[t] = 0;
  for (int i = 0; i < n; ++i) x[i] = y[i] = moderate_f32();
  rc = ropecheck_plan_apply_f32(plan, positions, &out, &out, 1, NULL);
  CHECK(rc == ROPECHECK_OK, "%s f32 position 0: rc %d: %s", mc->model, rc, ropecheck_last_error());
  int undecided = 0;
  for (int i = 0; i < n && rc == ROPECHECK_OK; ++i) {
    const int c = i % d;
    const long double exact = (c >= o && c < o + r) ? mc->factor * (long double)x[i] : (long double)x[i];
    if (near_midpoint_f32(exact)) {
      ++undecided;
      continue;
    }
    CHECK(f32_bits(y[i]) == f32_bits((float)exact), "%s position 0 channel %d: x %a, out %a (0x%08x), RN(a x) %a",
          mc->model, c, x[i], y[i], f32_bits(y[i]), (float)exact);
  }
  CHECK(undecided < n / 4, "%s: %d of %d outputs too close to a midpoint to check", mc->model, undecided, n);
  ropecheck_plan_free(plan);
}

static void plans_from_zoo_models(void) {
  const model_case cases[] = {
      {"gpt-oss-20b", 64, 0, 64, "half", 0.1L * logl(32.0L) + 1},
      {"qwen2.5-7b-yarn", 128, 0, 128, "half", 0.1L * logl(4.0L) + 1},
      {"phi-3.5-mini", 96, 0, 96, "half", sqrtl(1 + logl(32.0L) / logl(4096.0L))},
      {"deepseek-v3", 192, 128, 64, "interleaved", 1},
      {"gpt-neox-20b", 96, 0, 24, "half", 1},
      {"glm-4-9b", 128, 0, 64, "interleaved", 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) plan_geometry_passthrough_and_position_zero(&cases[i]);
}

/* A config.json given as text; its explicit attention_factor comes back as its own decimal. */
static void plan_from_config_text(void) {
  const char* config =
      "{\"model_type\": \"llama\", \"hidden_size\": 256, \"num_attention_heads\": 4, \"num_hidden_layers\": 2,"
      " \"max_position_embeddings\": 65536, \"rope_theta\": 500000,"
      " \"rope_scaling\": {\"rope_type\": \"yarn\", \"factor\": 8.0, \"original_max_position_embeddings\": 8192,"
      " \"attention_factor\": 1.25}}";
  ropecheck_plan* plan = make_plan(NULL, config, "", 0);
  if (plan == NULL) return;
  CHECK(ropecheck_plan_head_dim(plan) == 64 && ropecheck_plan_rotary_dims(plan) == 64, "config text: head %d rotary %d",
        ropecheck_plan_head_dim(plan), ropecheck_plan_rotary_dims(plan));
  CHECK(ropecheck_plan_attention_factor(plan) == 1.25, "config text: factor %.17g", ropecheck_plan_attention_factor(plan));
  CHECK(strcmp(ropecheck_plan_attention_factor_text(plan), "1.25") == 0, "config text: factor text \"%s\"",
        ropecheck_plan_attention_factor_text(plan));
  CHECK(strcmp(ropecheck_plan_layer_type(plan), "all") == 0, "config text: layer type \"%s\"",
        ropecheck_plan_layer_type(plan));
  /* a = 1.25: x = 1 at position 0 gives exactly 1.25, a sign flip gives -1.25. */
  float v[2 * 64];
  for (int i = 0; i < 2 * 64; ++i) v[i] = i % 2 ? -1.0f : 1.0f;
  const int64_t positions[2] = {0, 0};
  ropecheck_tensor t = dense(v, 2, 1, 64);
  CHECK(ropecheck_plan_apply_f32(plan, positions, &t, &t, 1, NULL) == ROPECHECK_OK, "%s", ropecheck_last_error());
  for (int i = 0; i < 2 * 64; ++i) CHECK(v[i] == (i % 2 ? -1.25f : 1.25f), "config text element %d: %a", i, v[i]);
  ropecheck_plan_free(plan);
}

static void expect_bad_plan(const char* model, const char* config, const char* layer_type, int64_t sequence_length,
                            const char* what, const char* names) {
  ropecheck_plan* plan = (ropecheck_plan*)&checks; /* must come back NULL */
  expect_bad(ropecheck_plan_from_model(model, config, layer_type, sequence_length, &plan), what, names);
  CHECK(plan == NULL, "%s: *out not NULL after a failure", what);
  printf("c_api v2 bad input, %s -> %s\n", what, ropecheck_last_error());
}

static void every_bad_plan_input_is_reported(void) {
  expect_bad_plan("no-such-model", NULL, NULL, 0, "unknown model", "model");
  expect_bad_plan(NULL, NULL, NULL, 0, "no model and no config", "model");
  expect_bad_plan("gpt-oss-20b", "{}", NULL, 0, "model and config both", "config_json");
  expect_bad_plan("gpt-oss-20b", NULL, "chunked_attention", 0, "a layer type the model lacks", "layer_type");
  expect_bad_plan("gpt-oss-20b", NULL, NULL, -1, "negative sequence length", "sequence_length");
  expect_bad_plan(NULL, "{\"model_type\": \"llama\", \"hidden_size\": ", NULL, 0, "malformed JSON", "config_json");
  expect_bad_plan(NULL, "[1, 2]", NULL, 0, "JSON that is no config", "config_json");
  /* Rotary dims beyond the head: a partial rotary factor or rotary_pct above 1. */
  expect_bad_plan(NULL,
                  "{\"model_type\": \"phi3\", \"hidden_size\": 3072, \"num_attention_heads\": 32, \"num_hidden_layers\": 2,"
                  " \"max_position_embeddings\": 4096, \"rope_theta\": 10000, \"partial_rotary_factor\": 1.5}",
                  NULL, 0, "rotary dims 144 > head_dim 96", "partial_rotary_factor");
  expect_bad_plan(NULL,
                  "{\"model_type\": \"gpt_neox\", \"hidden_size\": 6144, \"num_attention_heads\": 64, \"num_hidden_layers\": 2,"
                  " \"max_position_embeddings\": 2048, \"rotary_emb_base\": 10000, \"rotary_pct\": 2}",
                  NULL, 0, "rotary_pct 2", "rotary_pct");
  /* Attention factors that are not finite and positive (1e300 is finite but beyond the kernel's
   * range, 2^64; 1e999 overflows JSON's binary64 reading and is refused as malformed JSON). */
  const char* factors[] = {"0", "-1.5", "\"inf\"", "1e300"};
  for (size_t i = 0; i < sizeof factors / sizeof factors[0]; ++i) {
    char config[512], what[64];
    snprintf(config, sizeof config,
             "{\"model_type\": \"llama\", \"hidden_size\": 256, \"num_attention_heads\": 4, \"num_hidden_layers\": 2,"
             " \"max_position_embeddings\": 65536, \"rope_theta\": 500000, \"rope_scaling\": {\"rope_type\": \"yarn\","
             " \"factor\": 8.0, \"original_max_position_embeddings\": 8192, \"attention_factor\": %s}}",
             factors[i]);
    snprintf(what, sizeof what, "attention factor %s", factors[i]);
    expect_bad_plan(NULL, config, NULL, 0, what, "attention");
  }
  expect_bad_plan(NULL,
                  "{\"model_type\": \"llama\", \"hidden_size\": 256, \"num_attention_heads\": 4, \"num_hidden_layers\": 2,"
                  " \"max_position_embeddings\": 65536, \"rope_theta\": 500000, \"rope_scaling\": {\"rope_type\": \"yarn\","
                  " \"factor\": 8.0, \"original_max_position_embeddings\": 8192, \"attention_factor\": 1e999}}",
                  NULL, 0, "attention factor 1e999", "config_json");
  expect_bad(ropecheck_plan_from_model("gpt-oss-20b", NULL, NULL, 0, NULL), "NULL out", "out");

  ropecheck_plan* plan = make_plan("gpt-oss-20b", NULL, "full_attention", 0);
  if (plan == NULL) return;
  float x[2 * 64] = {0}, y[2 * 64];
  const int64_t positions[2] = {3, 4};
  ropecheck_tensor in = dense(x, 2, 1, 64), out = dense(y, 2, 1, 64);
  expect_bad(ropecheck_plan_apply_f32(NULL, positions, &in, &out, 1, NULL), "NULL plan", "plan");
  expect_bad(ropecheck_plan_apply_bf16(NULL, positions, &in, &out, 1, NULL), "NULL plan (bf16)", "plan");
  expect_bad(ropecheck_plan_apply_f32(plan, NULL, &in, &out, 1, NULL), "v2 NULL positions", "positions");
  expect_bad(ropecheck_plan_apply_f32(plan, positions, NULL, &out, 1, NULL), "v2 NULL in", "in");
  expect_bad(ropecheck_plan_apply_f32(plan, positions, &in, NULL, 1, NULL), "v2 NULL out", "out");
  expect_bad(ropecheck_plan_apply_f32(plan, positions, &in, &out, 0, NULL), "v2 threads 0", "threads");
  expect_bad(ropecheck_plan_apply_f32(plan, positions, &in, &out, 257, NULL), "v2 threads 257", "threads");
  ropecheck_tensor bad = in;
  bad.tokens = -2;
  expect_bad(ropecheck_plan_apply_f32(plan, positions, &bad, &out, 1, NULL), "v2 negative tokens", "in->tokens");
  bad = out;
  bad.tokens = 1;
  ropecheck_stats stats = {7, 7, 7};
  const int rc = ropecheck_plan_apply_f32(plan, positions, &in, &bad, 1, &stats);
  CHECK(rc == ROPECHECK_BAD_ARGUMENT && ropecheck_last_error()[0] != '\0', "v2 token counts 2 and 1: rc %d \"%s\"", rc,
        ropecheck_last_error());
  CHECK(stats.outputs == 7 && stats.slow == 7 && stats.unresolved == 7, "stats changed by a failed call");
  /* Queries on NULL: a sentinel and a message, no crash. */
  CHECK(ropecheck_plan_head_dim(NULL) == -1 && strstr(ropecheck_last_error(), "plan") != NULL, "head_dim(NULL): \"%s\"",
        ropecheck_last_error());
  CHECK(ropecheck_plan_rotary_offset(NULL) == -1 && ropecheck_plan_rotary_dims(NULL) == -1, "offset/dims(NULL)");
  CHECK(isnan(ropecheck_plan_attention_factor(NULL)), "attention_factor(NULL)");
  CHECK(strcmp(ropecheck_plan_layout(NULL), "") == 0 && strcmp(ropecheck_plan_describe(NULL), "") == 0 &&
            strcmp(ropecheck_plan_attention_factor_text(NULL), "") == 0 && strcmp(ropecheck_plan_layer_type(NULL), "") == 0,
        "string queries on NULL");
  ropecheck_plan_free(NULL);
  /* A success clears the message. */
  CHECK(ropecheck_plan_apply_f32(plan, positions, &in, &out, 1, NULL) == ROPECHECK_OK, "%s", ropecheck_last_error());
  CHECK(ropecheck_last_error()[0] == '\0', "v2 message after a success: \"%s\"", ropecheck_last_error());
  ropecheck_plan_free(plan);
}

/* Version 3: float16. Position 0 copies moderate inputs (the argument of identity_at_position_zero,
 * with float16's 2^-11 spacing); at other positions every output is the correctly rounded value,
 * so within half an ulp of a long double rotation (whose own error, ~2^-60 of the pair's norm with
 * libm's long double sinl/cosl of an angle formed to 2^-64 relative, is far below a float16 ulp:
 * eps below). The plan entry gives the same bits as the version-1 entry. */
static void float16_entries(const char* layout) {
  enum { T = 5, H = 2, D = 16, N = T * H * D };
  const ropecheck_rope_spec spec = make_spec(D, "rope", NULL, layout);
  const int64_t zero[T] = {0, 0, 0, 0, 0}, positions[T] = {1, 17, 4096, 100000, 3};
  uint16_t x[N], y[N], z[N];
  for (int i = 0; i < N; ++i) x[i] = moderate_f16();
  ropecheck_tensor in = dense(x, T, H, D), out = dense(y, T, H, D), out2 = dense(z, T, H, D);
  int rc = ropecheck_apply_rope_f16(&spec, zero, &in, &out, 1);
  CHECK(rc == ROPECHECK_OK, "f16 %s: rc %d: %s", layout, rc, ropecheck_last_error());
  for (int i = 0; i < N && rc == ROPECHECK_OK; ++i)
    CHECK(x[i] == y[i], "f16 %s position 0 element %d: in %a (0x%04x) out %a (0x%04x)", layout, i, f16_value(x[i]), x[i],
          f16_value(y[i]), y[i]);
  rc = ropecheck_apply_rope_f16(&spec, positions, &in, &out, 2);
  CHECK(rc == ROPECHECK_OK, "f16 %s: rc %d: %s", layout, rc, ropecheck_last_error());
  const int half = strcmp(layout, "half") == 0;
  for (int t = 0; t < T && rc == ROPECHECK_OK; ++t)
    for (int h = 0; h < H; ++h)
      for (int k = 0; k < D / 2; ++k) {
        const int a = t * H * D + h * D + (half ? k : 2 * k), b = t * H * D + h * D + (half ? k + D / 2 : 2 * k + 1);
        const long double g = powl(10000.0L, -(long double)(2 * k) / D), angle = (long double)positions[t] * g;
        const long double c = cosl(angle), s = sinl(angle), xa = f16_value(x[a]), xb = f16_value(x[b]);
        const long double ref[2] = {xa * c - xb * s, xa * s + xb * c};
        const int at[2] = {a, b};
        for (int j = 0; j < 2; ++j) {
          const long double got = f16_value(y[at[j]]), mag = fabsl(ref[j]);
          const long double ulp = mag < 0x1p-14L ? 0x1p-24L : ldexpl(1.0L, ilogbl(mag) - 10);
          const long double eps = ldexpl(fabsl(xa) + fabsl(xb), -56);
          CHECK(fabsl(got - ref[j]) <= 0.5L * ulp + eps, "f16 %s p=%lld k=%d: x=(%a, %a) ref=%La got=%a", layout, (long long)positions[t],
                k, (double)xa, (double)xb, ref[j], (double)got);
        }
      }
  ropecheck_plan* plan = NULL;
  rc = ropecheck_plan_from_model(NULL, "{\"head_dim\": 16, \"rope_theta\": 10000, \"num_attention_heads\": 2, \"hidden_size\": 32, \"num_hidden_layers\": 1, \"max_position_embeddings\": 4096}", NULL, 0,
                                 &plan);
  CHECK(rc == ROPECHECK_OK, "f16 plan: %s", ropecheck_last_error());
  if (rc == ROPECHECK_OK && strcmp(layout, ropecheck_plan_layout(plan)) == 0) {
    CHECK(ropecheck_plan_apply_f16(plan, positions, &in, &out2, 1, NULL) == ROPECHECK_OK, "%s", ropecheck_last_error());
    CHECK(memcmp(y, z, sizeof y) == 0, "f16 %s: the plan entry differs from the version-1 entry", layout);
  }
  ropecheck_plan_free(plan);
}

int main(void) {
  rng_state = kSeed;
  printf("c_api_test: seed %llu, ABI %d, kernel path %s\n", (unsigned long long)kSeed, ropecheck_abi_version(),
         ropecheck_kernel_path());
  CHECK(ropecheck_abi_version() == 3, "ABI version %d", ropecheck_abi_version());
  CHECK(ropecheck_kernel_path()[0] != '\0', "empty kernel path: %s", ropecheck_last_error());
  identity_at_position_zero("interleaved");
  identity_at_position_zero("half");
  nope_is_identity("interleaved");
  nope_is_identity("half");
  accuracy_against_long_double("interleaved", 0);
  accuracy_against_long_double("half", 0);
  accuracy_against_long_double("interleaved", 1);
  accuracy_against_long_double("half", 1);
  same_bits_for_threads_in_place_and_strides(0);
  same_bits_for_threads_in_place_and_strides(1);
  float16_entries("interleaved");
  float16_entries("half");
  plans_built_concurrently_match_a_sequential_build();
  every_bad_argument_is_reported();
  plans_from_zoo_models();
  plan_from_config_text();
  every_bad_plan_input_is_reported();
  printf("c_api_test: %d checks, %d failures\n", checks, failures);
  return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
