// File: scaling_registry.h
// The one list of scaling rules. Each Scaling::Kind is one file, spectrum/scaling/<kind>.cpp,
// holding everything about it: its name, describe() text, parameter checks, its spectrum-file
// fields, its Hugging Face rope_type reader, and its formulas (frequencies and attention factor in
// every scalar type, scaling_rules.h). scaling_rule() (a switch under -Werror=switch) is the
// registration every kind needs. scaling.cpp, hf_config.cpp, spectrum_json.cpp, scaling_rules.h,
// attention_factor.h and the listings read the rules only through this list.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "spectrum/scaling.h"

namespace ropecheck {

struct HfRopeDict;       // spectrum/detail/hf_rope_dict.h: one rope_scaling / rope_parameters dict
struct ScalingFormulas;  // spectrum/scaling_rules.h: the kind's formulas in every scalar type
class JsonPlace;         // io/json_fields.h

struct ScalingRuleInfo {
  Scaling::Kind value;
  std::string_view name;                       // as configs and spectrum files spell the kind
  std::string (*describe)(const Scaling& s);   // Scaling::describe's text
  void (*check)(const Scaling& s, int pairs);  // check_scaling: InputError naming scaling.<field>
  // A spectrum file's SCALING (spectrum_json.h): the short string form where it has one ("none",
  // "linear:F", "llama3"), else the object {"kind": name, <the kind's fields>}.
  nlohmann::json (*to_json)(const Scaling& s);
  // The object form's fields, after "kind" (detail/scaling_json.h's readers; unknown keys refused):
  // InputError naming place.<field>.
  Scaling (*from_json)(const nlohmann::json& object, const JsonPlace& place);
  const ScalingFormulas* formulas;
};

// A rope_type of transformers' rope utilities and how its dict's fields become a Scaling.
struct RopeTypeInfo {
  std::string_view name;
  void (*read)(const HfRopeDict& dict, Scaling& s);  // transformers' defaults; InputError naming the field
};

// Returns: the rule of `kind`.
const ScalingRuleInfo& scaling_rule(Scaling::Kind kind);
// Returns: every rule, in Scaling::Kind's order.
std::span<const ScalingRuleInfo* const> scaling_rules();
// Returns: every rope_type a config may name, in the order messages list them ("default", "linear",
// "dynamic", "yarn", "longrope", "llama3", "proportional").
std::span<const RopeTypeInfo* const> rope_types();
// Returns: the rope_type called `name`, or nullptr.
const RopeTypeInfo* find_rope_type(const std::string& name);

}  // namespace ropecheck
