#include "adversarial/head.h"

#include <cmath>
#include <stdexcept>

#include "io/input_error.h"
#include "numeric/decimal.h"
#include "numeric/precision.h"
#include "numeric/scalar.h"

namespace ropecheck::adversarial {

std::string notion_name(Notion n) { return n == Notion::attention ? "attention" : "argmax"; }

std::string type_name(TypeId t) {
  if (t == kTarget) return "target";
  if (t == kBos) return "bos";
  return "d" + std::to_string(t - 1);
}

bool Head::has_type(TypeId t) const {
  if (t == kTarget) return true;
  if (t == kBos) return bos.has_value();
  return t >= 1 && static_cast<size_t>(t - 1) < distractors.size();
}

const std::vector<double>& Head::key(TypeId t) const {
  if (!has_type(t)) throw std::logic_error("Head::key: the head has no type " + type_name(t));
  if (t == kTarget) return target;
  if (t == kBos) return *bos;
  return distractors[static_cast<size_t>(t - 1)];
}

namespace {

void check_vector(const std::vector<double>& v, int dim, const std::string& field) {
  if (static_cast<int>(v.size()) != dim)
    throw InputError(field, std::to_string(dim) + " components (the spectrum's dim)", std::to_string(v.size()) + " components");
  for (size_t i = 0; i < v.size(); ++i)
    if (!std::isfinite(v[i])) throw InputError(field + "[" + std::to_string(i) + "]", "a finite number", std::to_string(v[i]));
}

// Exact decimal comparison: epsilon and break_at are decimals, so 1 - epsilon > break_at is decided
// on their exact values (enclosures at 128 bits; an undecidable tie is refused, not guessed).
Interval decimal_enclosure(const std::string& text, const std::string& field) {
  try {
    return from_decimal<Interval>(text);
  } catch (const std::exception&) {
    throw InputError(field, "a decimal number", text);
  }
}

}  // namespace

void validate(const Head& head, const std::string& where) {
  const int d = head.dim();
  check_vector(head.query, d, where + ".query");
  check_vector(head.target, d, where + ".target");
  if (head.distractors.empty()) throw InputError(where + ".distractors", "a list of at least one key vector", "an empty list");
  for (size_t i = 0; i < head.distractors.size(); ++i)
    check_vector(head.distractors[i], d, where + ".distractors[" + std::to_string(i) + "]");
  if (head.bos) check_vector(*head.bos, d, where + ".bos");
  ScopedPrecision precision(128);
  const Interval eps = decimal_enclosure(head.epsilon, where + ".epsilon");
  const Interval brk = decimal_enclosure(head.break_at, where + ".break_at");
  if (!(lower_of(eps) > 0 && upper_of(eps) < 1)) throw InputError(where + ".epsilon", "a decimal in (0, 1)", head.epsilon);
  if (!(lower_of(brk) >= 0 && upper_of(brk) < 1)) throw InputError(where + ".break_at", "a decimal in [0, 1)", head.break_at);
  const Interval works_threshold = Interval(1) - eps;
  if (!(lower_of(works_threshold) > upper_of(brk)))
    throw InputError(where + ".break_at", "below 1 - epsilon = " + to_decimal(midpoint(works_threshold), 6) + " (works and breaks must be disjoint)",
                     head.break_at);
}

std::vector<int> active_chunks(const Head& head) {
  std::vector<int> chunks;
  const int pairs = head.dim() / 2;
  auto nonzero = [](const std::vector<double>& v, int p) { return v[2 * p] != 0 || v[2 * p + 1] != 0; };
  for (int p = 0; p < pairs; ++p) {
    if (!nonzero(head.query, p)) continue;
    bool any = nonzero(head.target, p);
    for (const auto& k : head.distractors) any = any || nonzero(k, p);
    if (head.bos) any = any || nonzero(*head.bos, p);
    if (any) chunks.push_back(p);
  }
  return chunks;
}

bool position_free(const Head& head) {
  for (int p : active_chunks(head))
    if (head.spectrum.rotated(p)) return false;
  return true;
}

}  // namespace ropecheck::adversarial
