// The C ABI over kernel/apply_rope.h. Everything a C caller passes is checked here first, so that
// every message names the C argument ("spec->layout", "in->tokens"), not a CLI flag; no exception
// ever crosses the ABI.
#include "kernel/c_api.h"

#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <span>
#include <string>

#include "io/input_error.h"
#include "kernel/apply_rope.h"
#include "cpu/path.h"
#include "kernel/rope_plan.h"
#include "spectrum/spectrum.h"

// Only these functions leave the shared library: the target is compiled with hidden visibility and
// linked with kernel/c_api.map, which also hides the C++ symbols of the static library it embeds.
#define ROPECHECK_EXPORT __attribute__((visibility("default")))

namespace {

using ropecheck::InputError;
namespace kernel = ropecheck::kernel;
namespace cpu = ropecheck::cpu;

thread_local std::string last_error;

// The C field a library parameter (io/input_error.h) comes from.
std::string c_name(const std::string& parameter) {
  if (parameter == "dim") return "spec->head_dim";
  if (parameter == "theta" || parameter == "fraction") return "spec->" + parameter;
  return parameter;
}

// Returns: the message of `e` naming the C argument its input came from.
std::string c_message(const InputError& e) { return e.message_for(c_name(e.input())); }

ropecheck::Variant parse_variant(const std::string& v) {
  if (v == "rope") return ropecheck::Variant::rope;
  if (v == "nope") return ropecheck::Variant::nope;
  if (v == "p-rope") return ropecheck::Variant::p_rope;
  if (v == "reversed") return ropecheck::Variant::reversed;
  if (v == "partial") return ropecheck::Variant::partial;
  throw InputError("spec->variant", "rope, nope, p-rope, reversed or partial", v);
}

const char* required_text(const char* field, const char* name) {
  if (field == nullptr) throw InputError(name, "a NUL-terminated string", "NULL");
  return field;
}

// Plans cached per spec: a plan's frequencies are computed in MPFR (slow next to applying a
// tensor), and a caller applies the same spec to q and k of every layer. Plans are shared and
// immutable, so a plan in use stays valid when the cache is cleared.
std::shared_ptr<const kernel::RopePlan> plan_for(const ropecheck_rope_spec& spec) {
  if (spec.head_dim < 2 || spec.head_dim % 2 != 0)
    throw InputError("spec->head_dim", "an even integer >= 2", std::to_string(spec.head_dim));
  const std::string theta = required_text(spec.theta, "spec->theta");
  const std::string variant = required_text(spec.variant, "spec->variant");
  const std::string fraction = spec.fraction == nullptr ? "1" : spec.fraction;
  const std::string layout = required_text(spec.layout, "spec->layout");
  if (layout != "interleaved" && layout != "half") throw InputError("spec->layout", "interleaved or half", layout);
  const ropecheck::Variant v = parse_variant(variant);
  // Every field that changes the plan, joined by '\0' (which no C string contains), so distinct
  // specs never share a key.
  std::string key = std::to_string(spec.head_dim);
  for (const std::string* s : {&theta, &variant, &fraction, &layout}) key += std::string(1, '\0') + *s;

  static std::mutex cache_mutex;
  static std::map<std::string, std::shared_ptr<const kernel::RopePlan>> cache;
  {
    std::lock_guard<std::mutex> lock(cache_mutex);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
  }
  // Building a spectrum and a plan uses Boost.Multiprecision's default precision, which is
  // process-wide and not thread-safe: one construction at a time. The cache lock is not held
  // meanwhile, so threads whose plan is cached are never blocked behind a slow construction.
  static std::mutex build_mutex;
  std::shared_ptr<const kernel::RopePlan> plan;
  {
    std::lock_guard<std::mutex> lock(build_mutex);
    {
      std::lock_guard<std::mutex> cache_lock(cache_mutex);
      if (auto it = cache.find(key); it != cache.end()) return it->second;
    }
    ropecheck::Spectrum spectrum(spec.head_dim, theta, v, fraction);
    plan = std::make_shared<const kernel::RopePlan>(spectrum, kernel::parse_layout(layout, "spec->layout"));
  }
  std::lock_guard<std::mutex> lock(cache_mutex);
  // A bound on the memory a caller cycling through many specs can pin.
  if (cache.size() >= 256) cache.clear();
  cache.emplace(key, plan);
  return plan;
}

template <typename T>
kernel::TensorView<T> view_of(const ropecheck_tensor* t, const char* name) {
  const std::string n = name;
  if (t == nullptr) throw InputError(n, "a non-NULL pointer to a ropecheck_tensor", "NULL");
  if (t->tokens < 0) throw InputError(n + "->tokens", "an integer >= 0", std::to_string(t->tokens));
  if (t->heads < 0) throw InputError(n + "->heads", "an integer >= 0", std::to_string(t->heads));
  if (t->token_stride < 0) throw InputError(n + "->token_stride", "an integer >= 0", std::to_string(t->token_stride));
  if (t->head_stride < 0) throw InputError(n + "->head_stride", "an integer >= 0", std::to_string(t->head_stride));
  if (t->data == nullptr && t->tokens > 0 && t->heads > 0)
    throw InputError(n + "->data", "a non-NULL pointer when tokens and heads are > 0", "NULL");
  return kernel::TensorView<T>{static_cast<T*>(t->data), t->tokens, t->heads, t->token_stride, t->head_stride};
}

template <typename T>
int apply(const ropecheck_rope_spec* spec, const int64_t* positions, const ropecheck_tensor* in,
          const ropecheck_tensor* out, int32_t threads) {
  try {
    last_error.clear();
    if (spec == nullptr) throw InputError("spec", "a non-NULL pointer to a ropecheck_rope_spec", "NULL");
    // 256: the CLI's bound, far above any core count this kernel is run on, and a guard against a
    // garbage count asking for millions of threads.
    if (threads < 1 || threads > 256) throw InputError("threads", "an integer in [1, 256]", std::to_string(threads));
    const kernel::TensorView<const T> in_view = view_of<const T>(in, "in");
    const kernel::TensorView<T> out_view = view_of<T>(out, "out");
    if (positions == nullptr && in_view.tokens > 0)
      throw InputError("positions", "a non-NULL pointer to in->tokens positions", "NULL");
    const std::shared_ptr<const kernel::RopePlan> plan = plan_for(*spec);
    const kernel::KernelOptions options{cpu::default_path(), threads};
    kernel::apply_rope(*plan, std::span<const std::int64_t>(positions, static_cast<size_t>(in_view.tokens)), in_view,
                       out_view, options);
    return ROPECHECK_OK;
  } catch (const InputError& e) {
    last_error = c_message(e);
    return ROPECHECK_BAD_ARGUMENT;
  } catch (const std::bad_alloc&) {
    last_error = "internal error: out of memory";
    return ROPECHECK_INTERNAL_ERROR;
  } catch (const std::exception& e) {
    last_error = std::string("internal error: ") + e.what();
    return ROPECHECK_INTERNAL_ERROR;
  } catch (...) {
    last_error = "internal error: unknown exception";
    return ROPECHECK_INTERNAL_ERROR;
  }
}

}  // namespace

extern "C" {

ROPECHECK_EXPORT int ropecheck_apply_rope_f32(const ropecheck_rope_spec* spec, const int64_t* positions,
                                              const ropecheck_tensor* in, const ropecheck_tensor* out, int32_t threads) {
  return apply<float>(spec, positions, in, out, threads);
}

ROPECHECK_EXPORT int ropecheck_apply_rope_bf16(const ropecheck_rope_spec* spec, const int64_t* positions,
                                               const ropecheck_tensor* in, const ropecheck_tensor* out, int32_t threads) {
  return apply<std::uint16_t>(spec, positions, in, out, threads);
}

ROPECHECK_EXPORT const char* ropecheck_last_error(void) { return last_error.c_str(); }

ROPECHECK_EXPORT const char* ropecheck_kernel_path(void) {
  static thread_local std::string name;
  try {
    name = cpu::path_name(cpu::default_path());
    last_error.clear();
  } catch (const InputError& e) {
    name.clear();
    last_error = e.what();
  } catch (...) {
    name.clear();
    last_error = "internal error: unknown exception";
  }
  return name.c_str();
}

ROPECHECK_EXPORT int ropecheck_abi_version(void) { return 1; }

}  // extern "C"
