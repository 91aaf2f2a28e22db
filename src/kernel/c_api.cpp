// The C ABI over kernel/apply_rope.h (version 1: bare spectra; version 2: plans from model
// descriptions). Everything a C caller passes is checked here first, so that
// every message names the C argument ("spec->layout", "in->tokens"), not a CLI flag; no exception
// ever crosses the ABI.
#include "kernel/c_api.h"

#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <span>
#include <string>

#include "io/input_error.h"
#include "spectrum/limits.h"
#include "kernel/apply_rope.h"
#include "cpu/path.h"
#include "cpu/thread_count.h"
#include "kernel/rope_plan.h"
#include "numeric/precision.h"
#include "spectrum/attention_factor.h"
#include "spectrum/hf_config.h"
#include "spectrum/model_zoo.h"
#include "spectrum/spectrum.h"
#include "spectrum/variant.h"

// Only these functions leave the shared library: the target is compiled with hidden visibility and
// linked with kernel/c_api.map, which also hides the C++ symbols of the static library it embeds.
#define ROPECHECK_EXPORT __attribute__((visibility("default")))

namespace {

using ropecheck::InputError;
namespace kernel = ropecheck::kernel;
namespace cpu = ropecheck::cpu;

thread_local std::string last_error;

std::string c_message(const InputError& e, bool spec_names);

// Building a spectrum, reading a model and building a plan use Boost.Multiprecision's default
// precision, which is process-wide and not thread-safe: one construction at a time, for version 1's
// cached plans and version 2's plans alike.
std::mutex& build_mutex() {
  static std::mutex m;
  return m;
}

// Runs `body`, turning every exception into an error code and last_error: no exception crosses the
// ABI. `body` returns the code of a success. spec_names: the call takes a version-1
// ropecheck_rope_spec, whose fields messages name (c_name).
template <typename F>
int guarded(F&& body, bool spec_names = false) {
  try {
    last_error.clear();
    return body();
  } catch (const InputError& e) {
    last_error = c_message(e, spec_names);
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

// The ropecheck_rope_spec field a library parameter (io/input_error.h) comes from.
std::string c_name(const std::string& parameter) {
  if (parameter == "dim") return "spec->head_dim";
  if (parameter == "theta" || parameter == "fraction") return "spec->" + parameter;
  return parameter;
}

// Returns: the message of `e` naming the C argument its input came from. Version 2's inputs are
// named where they are read: "model", "layer_type", "config_json: rope_scaling.factor", and the
// kernel's own names for geometry and views.
std::string c_message(const InputError& e, bool spec_names) {
  return spec_names ? e.message_for(c_name(e.input())) : std::string(e.what());
}

const char* required_text(const char* field, const char* name) {
  if (field == nullptr) throw InputError(name, "a NUL-terminated string", "NULL");
  return field;
}

// Plans cached per spec: a plan's frequencies are computed in MPFR (slow next to applying a
// tensor), and a caller applies the same spec to q and k of every layer. Plans are shared and
// immutable, so a plan in use stays valid when the cache is cleared.
std::shared_ptr<const kernel::RopePlan> plan_for(const ropecheck_rope_spec& spec) {
  if (spec.head_dim < 2 || spec.head_dim > ropecheck::kMaxHeadDim || spec.head_dim % 2 != 0)
    throw InputError("spec->head_dim", "an even integer in [2, " + std::to_string(ropecheck::kMaxHeadDim) + "]", std::to_string(spec.head_dim));
  const std::string theta = required_text(spec.theta, "spec->theta");
  const std::string variant = required_text(spec.variant, "spec->variant");
  const std::string fraction = spec.fraction == nullptr ? "1" : spec.fraction;
  const std::string layout = required_text(spec.layout, "spec->layout");
  const kernel::Layout parsed_layout = kernel::parse_layout(layout, "spec->layout");  // refused before the cache's key is built
  const ropecheck::Variant v = ropecheck::parse_variant(variant, "spec->variant");  // the library's one list (spectrum/variant.h)
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
  // One construction at a time (build_mutex). The cache lock is not held meanwhile, so threads
  // whose plan is cached are never blocked behind a slow construction.
  std::shared_ptr<const kernel::RopePlan> plan;
  {
    std::lock_guard<std::mutex> lock(build_mutex());
    {
      std::lock_guard<std::mutex> cache_lock(cache_mutex);
      if (auto it = cache.find(key); it != cache.end()) return it->second;
    }
    ropecheck::Spectrum spectrum(spec.head_dim, theta, v, fraction);
    plan = std::make_shared<const kernel::RopePlan>(spectrum, parsed_layout);
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

void check_threads(int32_t threads) { cpu::check_thread_count(threads, "threads"); }

template <typename T>
void run(const kernel::RopePlan& plan, const int64_t* positions, const kernel::TensorView<const T>& in_view,
         const kernel::TensorView<T>& out_view, int32_t threads, kernel::KernelStats* stats) {
  if (positions == nullptr && in_view.tokens > 0)
    throw InputError("positions", "a non-NULL pointer to in->tokens positions", "NULL");
  const kernel::KernelOptions options{cpu::default_path(), threads, stats};
  kernel::apply_rope(plan, std::span<const std::int64_t>(positions, static_cast<size_t>(in_view.tokens)), in_view,
                     out_view, options);
}

template <typename T>
int apply(const ropecheck_rope_spec* spec, const int64_t* positions, const ropecheck_tensor* in,
          const ropecheck_tensor* out, int32_t threads) {
  return guarded([&] {
    if (spec == nullptr) throw InputError("spec", "a non-NULL pointer to a ropecheck_rope_spec", "NULL");
    check_threads(threads);
    const kernel::TensorView<const T> in_view = view_of<const T>(in, "in");
    const kernel::TensorView<T> out_view = view_of<T>(out, "out");
    if (positions == nullptr && in_view.tokens > 0)
      throw InputError("positions", "a non-NULL pointer to in->tokens positions", "NULL");
    const std::shared_ptr<const kernel::RopePlan> plan = plan_for(*spec);
    run<T>(*plan, positions, in_view, out_view, threads, nullptr);
    return ROPECHECK_OK;
  }, true);
}

}  // namespace

// Version 2's plan: the kernel's plan and the strings the queries hand out (owned here, so they
// live as long as the plan).
struct ropecheck_plan {
  kernel::RopePlan plan;
  std::string model;
  std::string layer_type;
  std::string layout;
  std::string factor_text;
  std::string description;
};

namespace {

const ropecheck_plan& plan_ref(const ropecheck_plan* plan) {
  if (plan == nullptr) throw InputError("plan", "a plan from ropecheck_plan_from_model", "NULL");
  return *plan;
}

ropecheck_plan* build_plan(const char* model, const char* config_json, const char* layer_type, int64_t sequence_length) {
  if ((model == nullptr) == (config_json == nullptr))
    throw InputError("model, config_json", "exactly one non-NULL: a zoo name or config.json path, or a config.json text",
                     model == nullptr ? "both NULL" : "both given");
  if (sequence_length < 0)
    throw InputError("sequence_length", "0 (the model's context) or a length >= 1", std::to_string(sequence_length));
  ropecheck::ModelOptions options;
  if (sequence_length > 0) options.sequence_length = sequence_length;
  const std::string wanted = layer_type == nullptr ? "" : layer_type;
  std::lock_guard<std::mutex> lock(build_mutex());
  ropecheck::ModelDescription m;
  {
    // Reading decides comparisons in MPFI at the default precision, which the kernel's accurate
    // path of another thread's call may be changing (RopePlan takes the same lock itself).
    std::lock_guard<std::mutex> precision_lock(ropecheck::default_precision_mutex());
    m = model != nullptr ? ropecheck::load_model(model, options)
                         : ropecheck::read_hf_config_text(config_json, "config_json", options);
  }
  const ropecheck::LayerType& layer = m.layer_type(wanted);
  // The kernel names its own inputs "head_dim", "rotary_offset" and "attention factor"; from a
  // model they come from the config: say so.
  std::unique_ptr<ropecheck_plan> p;
  try {
    p.reset(new ropecheck_plan{kernel::RopePlan(layer), m.name, layer.name, "", "", ""});
  } catch (const InputError& e) {
    if (e.input() == "layer_type") throw;
    throw InputError((model != nullptr ? std::string("model ") + model : std::string("config_json")) + " layer type " +
                         layer.name + ": " + e.input(),
                     e.accepted(), e.got());
  }
  const ropecheck::Scaling& scaling = p->plan.spectrum().scaling();
  p->layout = ropecheck::layout_name(p->plan.layout());
  p->factor_text = scaling.attention_factor && !ropecheck::unit_attention_factor(scaling)
                       ? *scaling.attention_factor
                       : ropecheck::attention_factor_text(scaling);
  p->description = p->model + ", layer type " + p->layer_type + ": " + p->plan.describe() + "; attention factor " +
                   p->factor_text;
  return p.release();
}

template <typename T>
int apply_plan(const ropecheck_plan* plan, const int64_t* positions, const ropecheck_tensor* in,
               const ropecheck_tensor* out, int32_t threads, ropecheck_stats* stats) {
  return guarded([&] {
    const ropecheck_plan& p = plan_ref(plan);
    check_threads(threads);
    const kernel::TensorView<const T> in_view = view_of<const T>(in, "in");
    const kernel::TensorView<T> out_view = view_of<T>(out, "out");
    kernel::KernelStats counts;
    run<T>(p.plan, positions, in_view, out_view, threads, &counts);
    if (stats != nullptr) {
      stats->outputs += counts.outputs;
      stats->slow += counts.slow;
      stats->unresolved += counts.unresolved;
    }
    return ROPECHECK_OK;
  });
}

// A query's value, or `fallback` with last_error set when the plan is NULL.
template <typename R, typename F>
R query(const ropecheck_plan* plan, R fallback, F&& get) {
  R result = fallback;
  guarded([&] {
    result = get(plan_ref(plan));
    return ROPECHECK_OK;
  });
  return result;
}

}  // namespace

extern "C" {

ROPECHECK_EXPORT int ropecheck_apply_rope_f32(const ropecheck_rope_spec* spec, const int64_t* positions,
                                              const ropecheck_tensor* in, const ropecheck_tensor* out, int32_t threads) {
  return apply<float>(spec, positions, in, out, threads);
}

ROPECHECK_EXPORT int ropecheck_apply_rope_bf16(const ropecheck_rope_spec* spec, const int64_t* positions,
                                               const ropecheck_tensor* in, const ropecheck_tensor* out, int32_t threads) {
  return apply<ropecheck::Bf16Bits>(spec, positions, in, out, threads);
}

ROPECHECK_EXPORT int ropecheck_apply_rope_f16(const ropecheck_rope_spec* spec, const int64_t* positions,
                                              const ropecheck_tensor* in, const ropecheck_tensor* out, int32_t threads) {
  return apply<ropecheck::F16Bits>(spec, positions, in, out, threads);
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

ROPECHECK_EXPORT int ropecheck_plan_from_model(const char* model, const char* config_json, const char* layer_type,
                                               int64_t sequence_length, ropecheck_plan** out) {
  if (out != nullptr) *out = nullptr;
  return guarded([&] {
    if (out == nullptr) throw InputError("out", "a non-NULL pointer to a ropecheck_plan*", "NULL");
    *out = build_plan(model, config_json, layer_type, sequence_length);
    return ROPECHECK_OK;
  });
}

ROPECHECK_EXPORT void ropecheck_plan_free(ropecheck_plan* plan) { delete plan; }

ROPECHECK_EXPORT int32_t ropecheck_plan_head_dim(const ropecheck_plan* plan) {
  return query<int32_t>(plan, -1, [](const ropecheck_plan& p) { return p.plan.dim(); });
}

ROPECHECK_EXPORT int32_t ropecheck_plan_rotary_offset(const ropecheck_plan* plan) {
  return query<int32_t>(plan, -1, [](const ropecheck_plan& p) { return p.plan.rotary_offset(); });
}

ROPECHECK_EXPORT int32_t ropecheck_plan_rotary_dims(const ropecheck_plan* plan) {
  return query<int32_t>(plan, -1, [](const ropecheck_plan& p) { return 2 * p.plan.block_pairs(); });
}

ROPECHECK_EXPORT const char* ropecheck_plan_layout(const ropecheck_plan* plan) {
  return query<const char*>(plan, "", [](const ropecheck_plan& p) { return p.layout.c_str(); });
}

ROPECHECK_EXPORT const char* ropecheck_plan_layer_type(const ropecheck_plan* plan) {
  return query<const char*>(plan, "", [](const ropecheck_plan& p) { return p.layer_type.c_str(); });
}

ROPECHECK_EXPORT double ropecheck_plan_attention_factor(const ropecheck_plan* plan) {
  return query<double>(plan, std::numeric_limits<double>::quiet_NaN(),
                       [](const ropecheck_plan& p) { return p.plan.attention_factor(); });
}

ROPECHECK_EXPORT const char* ropecheck_plan_attention_factor_text(const ropecheck_plan* plan) {
  return query<const char*>(plan, "", [](const ropecheck_plan& p) { return p.factor_text.c_str(); });
}

ROPECHECK_EXPORT const char* ropecheck_plan_describe(const ropecheck_plan* plan) {
  return query<const char*>(plan, "", [](const ropecheck_plan& p) { return p.description.c_str(); });
}

ROPECHECK_EXPORT int ropecheck_plan_apply_f32(const ropecheck_plan* plan, const int64_t* positions,
                                              const ropecheck_tensor* in, const ropecheck_tensor* out, int32_t threads,
                                              ropecheck_stats* stats) {
  return apply_plan<float>(plan, positions, in, out, threads, stats);
}

ROPECHECK_EXPORT int ropecheck_plan_apply_bf16(const ropecheck_plan* plan, const int64_t* positions,
                                               const ropecheck_tensor* in, const ropecheck_tensor* out, int32_t threads,
                                               ropecheck_stats* stats) {
  return apply_plan<ropecheck::Bf16Bits>(plan, positions, in, out, threads, stats);
}

ROPECHECK_EXPORT int ropecheck_plan_apply_f16(const ropecheck_plan* plan, const int64_t* positions,
                                              const ropecheck_tensor* in, const ropecheck_tensor* out, int32_t threads,
                                              ropecheck_stats* stats) {
  return apply_plan<ropecheck::F16Bits>(plan, positions, in, out, threads, stats);
}

ROPECHECK_EXPORT int ropecheck_abi_version(void) { return 3; }

}  // extern "C"
