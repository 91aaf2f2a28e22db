#include "spectrum/detail/hf_rope_dict.h"

#include <stdexcept>

#include "io/input_error.h"
#include "io/json_exact.h"
#include "numeric/scalar.h"
#include "spectrum/limits.h"

namespace ropecheck {

using nlohmann::json;

std::string hf_decimal_field(const json& dict, const JsonPlace& place, const std::string& key, const std::string& accepted) {
  const json& v = required(dict, place, key, accepted);
  if (v.is_string() && !is_exact_number(v)) {
    const std::string text = v.get<std::string>();
    try {
      from_decimal<double>(text);
      return text;
    } catch (const std::invalid_argument&) {
      throw InputError(place.member(key).name(), accepted, shown_exact(v));
    }
  }
  return number_text(v, place.member(key), accepted);
}

long long HfRopeDict::original() const {
  const std::string accepted = "an integer in [1, " + std::to_string(kMaxLengthArgument) + "]";
  if (dict.contains("original_max_position_embeddings")) {
    const long long v = integer_value(dict["original_max_position_embeddings"], place.member("original_max_position_embeddings"), accepted);
    if (v < 1 || v > kMaxLengthArgument) throw InputError(place.member("original_max_position_embeddings").name(), accepted, std::to_string(v));
    return v;
  }
  if (top_level_original) return top_level_original_value();
  return max_position;
}

std::optional<std::string> HfRopeDict::optional_decimal(const std::string& key) const {
  if (!dict.contains(key) || dict[key].is_null()) return std::nullopt;
  return hf_decimal_field(dict, place, key, "a number");
}

std::vector<std::string> HfRopeDict::number_list(const std::string& key) const {
  const std::string accepted = "a list of numbers";
  const json& v = required(dict, place, key, accepted);
  if (!v.is_array()) throw InputError(place.member(key).name(), accepted, shown_exact(v));
  std::vector<std::string> out;
  for (size_t i = 0; i < v.size(); ++i) out.push_back(number_text(v[i], place.member(key).item(i), "a number"));
  return out;
}

}  // namespace ropecheck
