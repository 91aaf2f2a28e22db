/* File: c_api.h
 * The stable C ABI of ropecheck's RoPE kernel (libropecheck.so, CMake target ropecheck_c), for
 * ctypes, cffi or any C caller (example: scripts/rope_ctypes.py).
 * Semantics and accuracy: exactly those of kernel/apply_rope.h (float32 within 0.5 + 2^-25 ulp of
 * the exact rotation at any int64 position, ulp floored at 2^-24 times the pair's norm; bfloat16
 * within 0.5 + 2^-14 bf16-ulp, floored at 2^-8 times the norm; bf16 passed as uint16 bit patterns).
 * Functions never abort and never throw: they return an error code and, for codes other than
 * ROPECHECK_OK, ropecheck_last_error() gives a one-line message naming the bad argument
 * (thread-local, valid until the next call on the same thread).
 */
#ifndef ROPECHECK_KERNEL_C_API_H
#define ROPECHECK_KERNEL_C_API_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ROPECHECK_OK 0
#define ROPECHECK_BAD_ARGUMENT 2 /* same code the CLI uses for bad input */
#define ROPECHECK_INTERNAL_ERROR 3

/* The spectrum, as the CLI's flags name it. */
typedef struct ropecheck_rope_spec {
  int32_t head_dim;        /* even, >= 2 */
  const char* theta;       /* decimal text > 1, e.g. "10000" (text, so it is read exactly) */
  const char* variant;     /* "rope", "nope", "p-rope", "reversed", "partial" */
  const char* fraction;    /* P or F in [0, 1] for p-rope/reversed/partial, e.g. "0.75"; NULL = "1" */
  const char* layout;      /* "interleaved" or "half" */
} ropecheck_rope_spec;

/* A [tokens][heads][head_dim] view; strides in elements, head_dim contiguous. */
typedef struct ropecheck_tensor {
  void* data;
  int64_t tokens;
  int64_t heads;
  int64_t token_stride;
  int64_t head_stride;
} ropecheck_tensor;

/* Rotates `in` into `out` (the same view for in place) at positions[0..tokens).
 * threads in [1, 256] (results bit-identical for every count). Plans are cached per spec. */
int ropecheck_apply_rope_f32(const ropecheck_rope_spec* spec, const int64_t* positions, const ropecheck_tensor* in,
                             const ropecheck_tensor* out, int32_t threads);
int ropecheck_apply_rope_bf16(const ropecheck_rope_spec* spec, const int64_t* positions, const ropecheck_tensor* in,
                              const ropecheck_tensor* out, int32_t threads);

/* The message of the last failed call on this thread ("" after a success). */
const char* ropecheck_last_error(void);
/* The kernel path that runs ("scalar", "avx2", "avx512", "avx512-bf16"; ROPECHECK_KERNEL forces one);
 * "" when ROPECHECK_KERNEL names no path this CPU runs (ropecheck_last_error() says why). */
const char* ropecheck_kernel_path(void);
/* The ABI version: 1. Bumped only when a signature or struct above changes. */
int ropecheck_abi_version(void);

#ifdef __cplusplus
}
#endif

#endif /* ROPECHECK_KERNEL_C_API_H */
