// Fuzz target c_abi_plan: the C ABI's ropecheck_plan_from_model(config_json = the input's text)
// (kernel/c_api.h), which must never crash or throw: it returns ROPECHECK_OK with a plan, or
// ROPECHECK_BAD_ARGUMENT with a message (ROPECHECK_INTERNAL_ERROR, e.g. out of memory, is a
// finding). A plan is queried, applied in float32 and bfloat16 to one token at a position taken
// from the input, and freed. The layer type is the model's default; inputs starting with a line
// "#layer_type NAME" ask for NAME (the rest is the config text).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "kernel/c_api.h"

namespace {

using ropecheck::fuzz::check;

// The head widths the harness applies a plan to (a config may state any; applying is linear in it).
constexpr std::int32_t kMaxAppliedHeadDim = 1 << 12;

template <typename T, typename Apply>
void apply(const ropecheck_plan* plan, std::int32_t head_dim, std::int64_t position, Apply apply_fn, T one) {
  std::vector<T> x(static_cast<std::size_t>(head_dim), one), y(x.size());
  const ropecheck_tensor in{x.data(), 1, 1, head_dim, head_dim};
  const ropecheck_tensor out{y.data(), 1, 1, head_dim, head_dim};
  ropecheck_stats stats{};
  const int rc = apply_fn(plan, &position, &in, &out, 1, &stats);
  check(rc == ROPECHECK_OK, std::string("applying a plan failed: ") + ropecheck_last_error());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  std::string layer_type;
  bool named = false;
  if (text.rfind("#layer_type ", 0) == 0) {
    const std::size_t eol = text.find('\n');
    layer_type = text.substr(12, eol == std::string::npos ? std::string::npos : eol - 12);
    text = eol == std::string::npos ? "" : text.substr(eol + 1);
    named = true;
  }
  if (text.find('\0') != std::string::npos || layer_type.find('\0') != std::string::npos) return 0;  // C strings
  ropecheck_plan* plan = reinterpret_cast<ropecheck_plan*>(&text);  // must be overwritten
  const int rc = ropecheck_plan_from_model(nullptr, text.c_str(), named ? layer_type.c_str() : nullptr, 0, &plan);
  if (rc != ROPECHECK_OK) {
    check(rc == ROPECHECK_BAD_ARGUMENT, "ropecheck_plan_from_model returned " + std::to_string(rc) + ": " + ropecheck_last_error());
    check(plan == nullptr, "a failed ropecheck_plan_from_model left *out set");
    check(std::strlen(ropecheck_last_error()) > 0, "a refusal without a message");
    return 0;
  }
  check(plan != nullptr, "ROPECHECK_OK without a plan");
  const std::int32_t head_dim = ropecheck_plan_head_dim(plan);
  const std::int32_t offset = ropecheck_plan_rotary_offset(plan);
  const std::int32_t rotary = ropecheck_plan_rotary_dims(plan);
  check(head_dim >= 2 && offset >= 0 && rotary >= 0 && static_cast<std::int64_t>(offset) + rotary <= head_dim,
        "plan geometry: head_dim " + std::to_string(head_dim) + ", rotary " + std::to_string(rotary) + " at " + std::to_string(offset));
  const double factor = ropecheck_plan_attention_factor(plan);
  check(std::isfinite(factor) && factor > 0, "attention factor " + std::to_string(factor));
  check(std::strlen(ropecheck_plan_attention_factor_text(plan)) > 0, "an empty attention factor text");
  const std::string layout = ropecheck_plan_layout(plan);
  check(layout == "interleaved" || layout == "half", "layout '" + layout + "'");
  check(std::strlen(ropecheck_plan_layer_type(plan)) > 0 && std::strlen(ropecheck_plan_describe(plan)) > 0, "empty plan texts");
  if (head_dim <= kMaxAppliedHeadDim) {
    std::int64_t position = 0;
    std::memcpy(&position, data, std::min<std::size_t>(size, sizeof position));  // any int64: the kernel's contract
    apply<float>(plan, head_dim, position, ropecheck_plan_apply_f32, 1.0f);
    apply<std::uint16_t>(plan, head_dim, position, ropecheck_plan_apply_bf16, std::uint16_t{0x3f80});
  }
  ropecheck_plan_free(plan);
  return 0;
}
