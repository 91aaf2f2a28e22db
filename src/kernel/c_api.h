/* File: c_api.h
 * The stable C ABI of ropecheck's RoPE kernel (libropecheck.so, CMake target ropecheck_c), for
 * ctypes, cffi or any C caller (example: examples/rope_ctypes.py).
 * Semantics and accuracy: exactly those of kernel/apply_rope.h: every output is the correctly
 * rounded (round to nearest even) float32, bfloat16 or float16 value of the exact map at any int64
 * position (bf16 and f16 passed as their uint16 bit patterns: IEEE binary16 for f16, as NumPy's
 * float16 and C's _Float16); within the version-1 documented bound of 0.5 + 2^-25 ulp (f32) and
 * 0.5 + 2^-14 bf16-ulp, ulp floored at 2^-24 (2^-8) times the pair's norm, a fortiori.
 * Functions never abort and never throw: they return an error code and, for codes other than
 * ROPECHECK_OK, ropecheck_last_error() gives a one-line message naming the bad argument and what
 * it accepts (thread-local, valid until the next call on the same thread).
 *
 * Version 1: a bare spectrum (ropecheck_rope_spec) over the whole head.
 * Version 2: a plan (ropecheck_plan) built from a model description, a zoo name or a config.json
 * text, and one of its layer types: the head geometry (rotary part at an offset, e.g. DeepSeek's
 * MLA; partial rotary dims, e.g. GPT-NeoX, GLM), its layout and the attention factor (YaRN,
 * LongRoPE: outputs a (x_a cos - x_b sin), a (x_a sin + x_b cos)); pass-through channels are
 * copied bit for bit. Version 1's functions and structs are unchanged.
 * Version 3: float16 (ropecheck_apply_rope_f16, ropecheck_plan_apply_f16), correctly rounded like
 * the others. Nothing else changed.
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
  const char* variant;     /* a name of kVariants (spectrum/variant.h): "rope", "nope", "p-rope", ... */
  const char* fraction;    /* P or F in [0, 1] for a variant that takes one (p-rope, ...), e.g. "0.75"; NULL = "1" */
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
/* Version 3: IEEE binary16 (uint16 bit patterns). */
int ropecheck_apply_rope_f16(const ropecheck_rope_spec* spec, const int64_t* positions, const ropecheck_tensor* in,
                             const ropecheck_tensor* out, int32_t threads);

/* ---- Version 2: plans from model descriptions ---- */

/* An immutable plan: one layer type of one model, resolved and ready to apply. Opaque; create with
 * ropecheck_plan_from_model, release with ropecheck_plan_free. A plan may be applied from several
 * threads at once. */
typedef struct ropecheck_plan ropecheck_plan;

/* What a call did (kernel/apply_rope.h KernelStats): added to, never reset, so one struct can sum
 * several calls; zero it first. */
typedef struct ropecheck_stats {
  int64_t outputs;    /* rotary components written (identity pairs and pass-through channels excluded) */
  int64_t slow;       /* of those, components the rounding test sent to the accurate path */
  int64_t unresolved; /* of those, components the accurate path could not decide at its cap (never seen) */
} ropecheck_stats;

/* Builds the plan of one layer type of a model, given by exactly one of
 *   model        a zoo name (`ropecheck models` lists them, e.g. "gpt-oss-20b") or a path to a
 *                config.json file;
 *   config_json  the text of a Hugging Face config.json (errors name its fields as
 *                "config_json: rope_scaling.factor").
 * layer_type: one of the model's layer types (e.g. "full_attention"); NULL or "" = the model's
 * default (its only one, else the first with RoPE). A layer type without RoPE is refused.
 * sequence_length: the sequence length at which dynamic and LongRoPE scaling are evaluated
 * (LongRoPE's short factors up to the original context); 0 = the model's context.
 * On success *out holds a new plan (free it with ropecheck_plan_free); on failure *out is NULL.
 * Building takes milliseconds (frequencies in MPFR): build once, apply many times. */
int ropecheck_plan_from_model(const char* model, const char* config_json, const char* layer_type,
                              int64_t sequence_length, ropecheck_plan** out);
/* Releases a plan (NULL is ignored). Strings returned by the queries below die with it. */
void ropecheck_plan_free(ropecheck_plan* plan);

/* Queries. On a NULL plan: -1, NaN or "" and a message in ropecheck_last_error(). */
int32_t ropecheck_plan_head_dim(const ropecheck_plan* plan);      /* width of a head vector */
int32_t ropecheck_plan_rotary_offset(const ropecheck_plan* plan); /* first rotary channel */
int32_t ropecheck_plan_rotary_dims(const ropecheck_plan* plan);   /* width of the rotary part */
const char* ropecheck_plan_layout(const ropecheck_plan* plan);    /* "interleaved" or "half" */
const char* ropecheck_plan_layer_type(const ropecheck_plan* plan); /* the layer type resolved */
/* The attention factor a rounded to double (exactly 1 when the map is a rotation), and as text:
 * the config's decimal when it gives one, else 17 significant digits ("1" when exactly 1). */
double ropecheck_plan_attention_factor(const ropecheck_plan* plan);
const char* ropecheck_plan_attention_factor_text(const ropecheck_plan* plan);
/* One line: model, layer type, spectrum, layout and geometry, attention factor. */
const char* ropecheck_plan_describe(const ropecheck_plan* plan);

/* Applies the plan to `in` into `out` (the same view for in place; head_dim is the plan's) at
 * positions[0..in->tokens). threads in [1, 256] (bit-identical results for every count).
 * stats may be NULL. */
int ropecheck_plan_apply_f32(const ropecheck_plan* plan, const int64_t* positions, const ropecheck_tensor* in,
                             const ropecheck_tensor* out, int32_t threads, ropecheck_stats* stats);
int ropecheck_plan_apply_bf16(const ropecheck_plan* plan, const int64_t* positions, const ropecheck_tensor* in,
                              const ropecheck_tensor* out, int32_t threads, ropecheck_stats* stats);
/* Version 3: IEEE binary16 (uint16 bit patterns). */
int ropecheck_plan_apply_f16(const ropecheck_plan* plan, const int64_t* positions, const ropecheck_tensor* in,
                             const ropecheck_tensor* out, int32_t threads, ropecheck_stats* stats);

/* ---- Both versions ---- */

/* The message of the last failed call on this thread ("" after a success). */
const char* ropecheck_last_error(void);
/* The kernel path that runs ("scalar", "avx2", "avx512", "avx512-bf16"; ROPECHECK_KERNEL forces one);
 * "" when ROPECHECK_KERNEL names no path this CPU runs (ropecheck_last_error() says why). */
const char* ropecheck_kernel_path(void);
/* The ABI version: 3. Bumped when a function or struct is added or changed; versions 2 and 3 only
 * added, so a program built against version 1 or 2 runs unchanged (the library's SONAME stays
 * libropecheck.so.1, which changes only with an incompatible change). */
int ropecheck_abi_version(void);

#ifdef __cplusplus
}
#endif

#endif /* ROPECHECK_KERNEL_C_API_H */
