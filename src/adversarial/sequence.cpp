#include "adversarial/sequence.h"

#include <stdexcept>

#include "io/input_error.h"

namespace ropecheck::adversarial {

TypeId Sequence::at(long long position) const {
  const auto it = tokens.find(position);
  return it == tokens.end() ? fill : it->second;
}

void Sequence::set(long long position, TypeId type) {
  if (type == fill) tokens.erase(position);
  else tokens[position] = type;
}

long long Sequence::target_position() const {
  if (fill == kTarget) throw std::logic_error("Sequence::target_position: the fill type is the target");
  for (const auto& [pos, type] : tokens)
    if (type == kTarget) return pos;
  throw std::logic_error("Sequence::target_position: no target");
}

void validate(const Sequence& s, const Head& head, const std::string& where) {
  constexpr long long kMaxLength = 1LL << 40;
  if (s.length < 2 || s.length > kMaxLength)
    throw InputError(where + ".length", "an integer in [2, 2^40]", std::to_string(s.length));
  if (!head.has_type(s.fill) || s.fill == kTarget || s.fill == kBos)
    throw InputError(where + ".fill", "a distractor type of the head (d0.." + type_name(distractor(static_cast<int>(head.distractors.size()) - 1)) + ")",
                     type_name(s.fill));
  int targets = 0;
  for (const auto& [pos, type] : s.tokens) {
    const std::string field = where + ".tokens[" + std::to_string(pos) + "]";
    if (pos < 0 || pos >= s.length) throw InputError(field, "a position in [0, " + std::to_string(s.length - 1) + "]", std::to_string(pos));
    if (!head.has_type(type)) throw InputError(field, "a type of the head", type_name(type));
    if (type == kTarget) {
      ++targets;
      if (pos == s.query_position()) throw InputError(field, "a target before the query (position < length - 1)", "the query's position");
    }
    if (type == kBos && pos != 0) throw InputError(field, "bos at position 0 only (the sink never moves)", "bos at " + std::to_string(pos));
  }
  if (targets != 1) throw InputError(where + ".tokens", "exactly one target", std::to_string(targets) + " targets");
  if (head.bos && s.at(0) != kBos) throw InputError(where + ".tokens", "bos at position 0 (the head has a bos key)", type_name(s.at(0)) + " at 0");
}

void validate_swaps(const std::vector<Swap>& swaps, const Sequence& s, const std::string& where) {
  for (size_t i = 0; i < swaps.size(); ++i) {
    const std::string field = where + "[" + std::to_string(i) + "]";
    for (long long p : {swaps[i].first, swaps[i].second}) {
      if (p < 0 || p >= s.query_position())
        throw InputError(field, "positions in [0, " + std::to_string(s.query_position() - 1) + "] (the query at " +
                                    std::to_string(s.query_position()) + " stays)",
                         std::to_string(p));
      if (p == 0 && s.at(0) == kBos) throw InputError(field, "a swap that leaves the bos sink at position 0", "position 0");
    }
  }
}

Sequence apply_swaps(Sequence s, const std::vector<Swap>& swaps) {
  for (const auto& [a, b] : swaps) {
    const TypeId ta = s.at(a), tb = s.at(b);
    s.set(a, tb);
    s.set(b, ta);
  }
  return s;
}

Sequence fill_sequence(const Head& head, long long context, long long target_distance) {
  Sequence s;
  s.length = context + 1;
  s.fill = distractor(0);
  if (head.bos) s.set(0, kBos);
  s.set(context - target_distance, kTarget);
  return s;
}

}  // namespace ropecheck::adversarial
