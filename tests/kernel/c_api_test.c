/* The C ABI (kernel/c_api.h) from a C11 program that includes nothing else of ropecheck and links
 * libropecheck.so, as a ctypes or C user does. It checks what it can verify by itself:
 *   - position 0 and the nope variant are identities (bit for bit),
 *   - at small positions each output is within the documented bound of a long double reference,
 *   - threads 1 and 2, in place and out of place, dense and strided views give the same bits,
 *   - every bad argument returns ROPECHECK_BAD_ARGUMENT with a message naming it.
 * Random inputs come from splitmix64 with the seed printed at start; every failure prints its
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

int main(void) {
  rng_state = kSeed;
  printf("c_api_test: seed %llu, ABI %d, kernel path %s\n", (unsigned long long)kSeed, ropecheck_abi_version(),
         ropecheck_kernel_path());
  CHECK(ropecheck_abi_version() == 1, "ABI version %d", ropecheck_abi_version());
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
  plans_built_concurrently_match_a_sequential_build();
  every_bad_argument_is_reported();
  printf("c_api_test: %d checks, %d failures\n", checks, failures);
  return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
