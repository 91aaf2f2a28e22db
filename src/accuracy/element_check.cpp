#include "accuracy/element_check.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

#include "accuracy/detail/ieee_rotation.h"
#include "accuracy/float32_formulation.h"
#include "accuracy/kernel_output_check.h"
#include "accuracy/rope_reference.h"
#include "io/input_error.h"
#include "io/printf_string.h"
#include "numeric/small_floats.h"

namespace ropecheck::accuracy {

namespace {

bool is_nan_bits(std::uint32_t bits, Dtype f) { return std::isnan(value_of_bits(f, bits)); }

// Whether got is a zero where a zero of the other sign is expected.
bool zero_sign_only(std::uint32_t got, std::uint32_t want, Dtype f) {
  return value_of_bits(f, got) == 0 && value_of_bits(f, want) == 0;
}

}  // namespace

const char* input_class_name(InputClass c) {
  switch (c) {
    case InputClass::finite: return "finite";
    case InputClass::subnormal: return "subnormal";
    case InputClass::overflow: return "overflow";
    case InputClass::zeros: return "zeros";
    case InputClass::nonfinite: return "nonfinite";
  }
  return "?";
}

InputClass input_class(double xa, double xb, bool pair, double attention_factor, Dtype f) {
  if (!std::isfinite(xa) || !std::isfinite(xb)) return InputClass::nonfinite;
  if (pair && xa == 0 && xb == 0) return InputClass::zeros;
  const DtypeInfo& info = dtype_info(f);
  const double smallest_normal = std::ldexp(1.0, info.emin_normal);
  const auto subnormal = [&](double v) { return v != 0 && std::fabs(v) < smallest_normal; };
  if (subnormal(xa) || subnormal(xb)) return InputClass::subnormal;
  // Exact in double: both are values of a float format, the factor a double near 1.
  if (attention_factor * (std::fabs(xa) + std::fabs(xb)) >= std::ldexp(1.0, info.emax)) return InputClass::overflow;
  return InputClass::finite;
}

ElementCheck check_elements(const kernel::RopePlan& plan, Dtype f, std::span<const std::int64_t> positions, std::int64_t heads,
                            const void* input, const void* output, const ElementCheckOptions& options) {
  if (f == Dtype::f64) throw std::invalid_argument("check_elements: format f64 is not a kernel dtype");
  if (!(options.max_ulp >= 0.5 && options.max_ulp <= 0x1p30)) throw InputError("max_ulp", "a number in [0.5, 2^30]", std::to_string(options.max_ulp));
  if (!(options.rtol >= 0 && options.rtol <= 1)) throw InputError("rtol", "a number in [0, 1]", std::to_string(options.rtol));
  const std::int64_t tokens = static_cast<std::int64_t>(positions.size());
  const int dim = plan.dim();
  const auto width = static_cast<std::size_t>(dtype_info(f).bytes);
  const auto bits_at = [&](const void* base, std::int64_t i) -> std::uint32_t {
    if (width == 4) {
      std::uint32_t v;
      std::memcpy(&v, static_cast<const unsigned char*>(base) + i * 4, 4);
      return v;
    }
    std::uint16_t v;
    std::memcpy(&v, static_cast<const unsigned char*>(base) + i * 2, 2);
    return v;
  };
  // Which pair (and side) owns each element: pass-through elements own none.
  std::vector<int> pair_of(static_cast<std::size_t>(dim), -1);
  for (int k = 0; k < plan.block_pairs(); ++k) {
    pair_of[static_cast<std::size_t>(plan.first_element(k))] = k;
    pair_of[static_cast<std::size_t>(plan.second_element(k))] = k;
  }
  ElementCheck out;
  RopeReference ref(plan);
  std::optional<Float32Formulation> formulation;
  if (options.formulation) formulation.emplace(plan, options.tables);
  const auto worse = [](const std::optional<ElementFailure>& w, const ElementFailure& e) {
    return !w || (!std::isnan(e.ulps) && (std::isnan(w->ulps) || e.ulps > w->ulps));
  };
  const auto fail = [&](ElementFailure e) {
    ++out.failed;
    ClassCheck& c = out.classes[static_cast<int>(e.input_class)];
    ++c.failed;
    if (worse(c.worst, e)) c.worst = e;
    if (worse(out.worst, e)) out.worst = e;
    if (out.failures.size() < options.keep) out.failures.push_back(std::move(e));
  };
  const auto zero_ok = [&](std::uint32_t got, std::uint32_t want) { return !options.signed_zeros && zero_sign_only(got, want, f); };
  // A NaN output where the formulation gives NaN: any NaN, or the canonical one when asked.
  const auto nan_form_ok = [&](std::uint32_t got) {
    return !options.canonical_nan || got == static_cast<std::uint32_t>(dtype_info(f).canonical_nan);
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double factor = plan.attention_factor();
  for (std::int64_t t = 0; t < tokens; ++t) {
    const std::int64_t p = positions[static_cast<std::size_t>(t)];
    ref.set_position(p);
    for (std::int64_t h = 0; h < heads; ++h) {
      const std::int64_t row = (t * heads + h) * dim;
      for (int j = 0; j < dim; ++j) {
        if (pair_of[static_cast<std::size_t>(j)] >= 0) continue;
        ++out.checked;
        const std::uint32_t in = bits_at(input, row + j), got = bits_at(output, row + j);
        const InputClass cls = input_class(value_of_bits(f, in), 0, false, 1, f);
        ++out.classes[static_cast<int>(cls)].checked;
        if (got == in || zero_ok(got, in)) continue;
        fail(ElementFailure{t, h, p, j, -1, 0, {in, 0}, in, got, nan, nan, cls, "copy (pass-through)"});
      }
      for (int k = 0; k < plan.block_pairs(); ++k) {
        const int ia = plan.first_element(k), ib = plan.second_element(k);
        const std::uint32_t in[2] = {bits_at(input, row + ia), bits_at(input, row + ib)};
        const std::uint32_t got[2] = {bits_at(output, row + ia), bits_at(output, row + ib)};
        out.checked += 2;
        const double xa = value_of_bits(f, in[0]), xb = value_of_bits(f, in[1]);
        const InputClass cls = input_class(xa, xb, true, plan.identity(k) ? 1.0 : factor, f);
        ClassCheck& stats = out.classes[static_cast<int>(cls)];
        stats.checked += 2;
        const auto failure = [&](int comp, std::uint32_t expected, double ulps, double rel, const std::string& rule) {
          return ElementFailure{t, h, p, comp == 0 ? ia : ib, k, comp, {in[0], in[1]}, expected, got[comp], ulps, rel, cls, rule};
        };
        const SpecialExpectation special = special_expectation(plan, &ref, k, p, in, f);
        if (special.applies) {
          if (!special.decided && !(formulation && !plan.identity(k))) {  // the formulation accepts both signs there
            out.undecided += 2;
            continue;
          }
          if (formulation && !plan.identity(k)) {
            double c = 1, s = 0;
            ref.cos_sin_double(k, c, s);
            SpecialReach reach[2];
            formulation->special_reach(k, p, xa, xb, c, s, f, reach);
            for (int comp = 0; comp < 2; ++comp) {
              const double g = value_of_bits(f, got[comp]);
              const bool ok = reach[comp].accepts(g) && (!std::isnan(g) || nan_form_ok(got[comp]));
              const bool zero_any = !options.signed_zeros && g == 0 && reach[comp].accepts(-g);
              if (!ok && !zero_any) fail(failure(comp, special.bits[comp], nan, nan, "IEEE results of the float32 formulation"));
            }
            continue;
          }
          std::string rule = plan.identity(k) ? "copy (identity pair)" : "IEEE result";
          // The formulation rotates an identity pair by its angle 0 (cos 1, sin +0 exactly, a = 1):
          // a copy for finite nonzero inputs, but x * 0 can flip a zero's sign and turns an
          // infinity into NaN, and both are what a float32 implementation produces.
          double formula[2] = {0, 0};
          const bool by_formula = formulation && plan.identity(k);
          if (by_formula) {
            detail::ieee_rotation(xa, xb, 1.0, 0.0, f, formula[0], formula[1]);
            rule = "copy or IEEE result at angle 0 (identity pair)";
          }
          for (int comp = 0; comp < 2; ++comp) {
            const std::uint32_t want = special.bits[comp];
            const bool nan_ok = !plan.identity(k) && !options.canonical_nan && is_nan_bits(want, f) && is_nan_bits(got[comp], f);
            const double g = value_of_bits(f, got[comp]);
            const bool formula_ok = by_formula && (std::isnan(formula[comp]) ? std::isnan(g) && nan_form_ok(got[comp])
                                                                              : got[comp] == bits_of_value(f, formula[comp]));
            if (got[comp] != want && !nan_ok && !zero_ok(got[comp], want) && !formula_ok) fail(failure(comp, want, nan, nan, rule));
          }
          continue;
        }
        const ExactPair exact = plan.identity(k) ? identity_pair(xa, xb) : ref.rotate(k, static_cast<float>(xa), static_cast<float>(xb));
        const BoundCheck check = check_bound(exact, got, f);
        ComponentReach reach[2];
        double delta = nan;
        if (formulation) {
          double c = 1, s = 0;
          ref.cos_sin_double(k, c, s);
          delta = formulation->reach(k, p, xa, xb, exact, c, s, f, reach);
        }
        out.undecided += check.undecided;
        for (int comp = 0; comp < 2; ++comp) {
          const ExactComponent& e = comp == 0 ? exact.a : exact.b;
          if (!e.decided_in(f)) continue;
          const double ulps = check.error[comp].ulps, rel = check.error[comp].rel;
          if (!std::isnan(ulps)) out.max_ulps = std::max(out.max_ulps, ulps), stats.max_ulps = std::max(stats.max_ulps, ulps);
          if (!std::isnan(rel)) out.max_rel = std::max(out.max_rel, rel), stats.max_rel = std::max(stats.max_rel, rel);
          const std::uint32_t want = bits_of_value(f, correctly_rounded(e, f));
          bool ok = formulation ? reach[comp].accepts(value_of_bits(f, got[comp]))
                                : options.max_ulp <= 0.5 ? check.error[comp].correctly_rounded : ulps <= options.max_ulp;
          // Signed zeros need no option here: both tests compare values (-0 == +0). NaN rel (tiny pairs) is not accepted.
          if (!ok && options.rtol > 0 && rel <= options.rtol) ok = true;
          std::string rule = formulation ? "float32 formulation" : options.max_ulp <= 0.5 ? "correctly rounded" : "within max_ulp";
          if (options.rtol > 0) rule += " or rtol";
          if (!ok) {
            ElementFailure e = failure(comp, want, ulps, rel, rule);
            if (formulation) e.reach_lo = reach[comp].lo, e.reach_hi = reach[comp].hi, e.delta = delta;
            fail(std::move(e));
          }
        }
      }
    }
  }
  return out;
}

nlohmann::json element_check_json(const ElementCheck& c, Dtype f) {
  nlohmann::json classes = nlohmann::json::object();
  for (int i = 0; i < kInputClasses; ++i) {
    const ClassCheck& k = c.classes[i];
    classes[input_class_name(static_cast<InputClass>(i))] = {{"checked", k.checked}, {"failed", k.failed}, {"max_ulps", k.max_ulps}, {"max_rel", k.max_rel}};
  }
  nlohmann::json worst = nullptr;
  if (c.worst) {
    const ElementFailure& w = *c.worst;
    worst = {{"token", w.token}, {"head", w.head}, {"position", w.position}, {"element", w.element}, {"pair", w.pair},
             {"component", w.component}, {"inputs", {bits_hex(w.in_bits[0], f), bits_hex(w.in_bits[1], f)}},
             {"expected", bits_hex(w.expected_bits, f)}, {"got", bits_hex(w.got_bits, f)}, {"ulps", w.ulps}, {"rel", w.rel},
             {"input_class", input_class_name(w.input_class)}, {"rule", w.rule},
             {"reach", std::isnan(w.reach_lo) ? nlohmann::json(nullptr) : nlohmann::json::array({hex_double(w.reach_lo), hex_double(w.reach_hi)})},
             {"delta", w.delta}};
  }
  return {{"bound", "float32 formulation (check_rope's default; accuracy/float32_formulation.h)"},
          {"checked", c.checked},
          {"failed", c.failed},
          {"undecided", c.undecided},
          {"max_ulps", c.max_ulps},
          {"max_rel", c.max_rel},
          {"classes", classes},
          {"worst", worst}};
}

}  // namespace ropecheck::accuracy
