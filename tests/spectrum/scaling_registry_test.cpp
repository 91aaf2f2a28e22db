// spectrum/scaling_registry.h: every Scaling::Kind has its rule in the one list, under the name
// scaling_kind_name gives; the spectrum file's object form knows every kind by that name; every
// rope_type is found by its name, and a config naming it is read.
#include "spectrum/scaling_registry.h"

#include <gtest/gtest.h>

#include <set>

#include "io/input_error.h"
#include "spectrum/hf_config.h"
#include "spectrum/scaling_rules.h"
#include "spectrum/spectrum_json.h"

namespace ropecheck {
namespace {

TEST(ScalingRegistry, EveryKindHasItsRuleAndName) {
  std::set<std::string> names;
  for (const ScalingRuleInfo* rule : scaling_rules()) {
    EXPECT_EQ(&scaling_rule(rule->value), rule) << rule->name;
    EXPECT_EQ(scaling_kind_name(rule->value), rule->name);
    EXPECT_FALSE(rule->name.empty());
    EXPECT_TRUE(names.insert(std::string(rule->name)).second) << "two rules named " << rule->name;
    EXPECT_NE(rule->describe, nullptr);
    EXPECT_NE(rule->check, nullptr);
    EXPECT_NE(rule->to_json, nullptr);
    EXPECT_NE(rule->from_json, nullptr);
    ASSERT_NE(rule->formulas, nullptr) << rule->name;
    EXPECT_NE(rule->formulas->frequency_map<float>(), nullptr);
    EXPECT_NE(rule->formulas->frequency_map<double>(), nullptr);
    EXPECT_NE(rule->formulas->frequency_map<Real>(), nullptr);
    EXPECT_NE(rule->formulas->frequency_map<Interval>(), nullptr);
    // An attention factor in every scalar type or in none.
    const bool attention[] = {rule->formulas->attention_factor<float>() != nullptr, rule->formulas->attention_factor<double>() != nullptr,
                              rule->formulas->attention_factor<Real>() != nullptr};
    for (bool a : attention) EXPECT_EQ(a, rule->formulas->has_attention_factor()) << rule->name;
  }
  // The list is in Kind's order and skips none (a missing last one fails scaling_rule's switch).
  for (size_t i = 0; i < scaling_rules().size(); ++i) EXPECT_EQ(static_cast<size_t>(scaling_rules()[i]->value), i);
}

TEST(ScalingRegistry, SpectrumFilesKnowEveryKindByName) {
  // {"kind": NAME} alone: the reader knows the kind (it then asks for the kind's own fields).
  for (const ScalingRuleInfo* rule : scaling_rules()) {
    const std::string name(rule->name);
    try {
      const Scaling s = scaling_from_json(nlohmann::json{{"kind", name}}, "s");
      EXPECT_EQ(s.kind, rule->value) << name;
    } catch (const InputError& e) {
      EXPECT_NE(e.input(), "s.kind") << name << ": " << e.what();
    }
  }
}

TEST(ScalingRegistry, EveryRopeTypeIsReadFromAConfig) {
  for (const RopeTypeInfo* type : rope_types()) {
    EXPECT_EQ(find_rope_type(std::string(type->name)), type);
    // A config naming the rope_type reaches its reader: the refusal, if any, names one of the
    // dict's fields, never rope_type itself.
    const nlohmann::json config = {{"model_type", "llama"},      {"num_hidden_layers", 1}, {"hidden_size", 64},
                                   {"num_attention_heads", 1},   {"max_position_embeddings", 4096},
                                   {"rope_scaling", {{"rope_type", std::string(type->name)}}}};
    try {
      read_hf_config(config, "config.json");
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.input()).find("rope_type"), std::string::npos) << type->name << ": " << e.what();
    }
  }
  EXPECT_EQ(find_rope_type("alibi"), nullptr);
}

}  // namespace
}  // namespace ropecheck
