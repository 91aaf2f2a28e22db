// The listings `ropecheck models` and `ropecheck spectrum` print (and the Python module returns):
// every zoo model and layer type, a model alone as every layer type's table, a model with a variant
// as one spectrum, a model with dim refused.
#include "spectrum/listing.h"

#include <gtest/gtest.h>

#include "io/input_error.h"
#include "spectrum/model_zoo.h"

namespace ropecheck {
namespace {

TEST(Listing, ZooHasEveryModelAndLayerType) {
  const nlohmann::json zoo = zoo_json();
  ASSERT_EQ(zoo.size(), zoo_names().size());
  const std::string text = zoo_text(false);
  for (const nlohmann::json& m : zoo) {
    EXPECT_FALSE(m["layer_types"].empty()) << m["model"];
    EXPECT_NE(text.find(m["model"].get<std::string>()), std::string::npos);
  }
  EXPECT_NE(zoo_text(true).find("source"), std::string::npos);
}

TEST(Listing, ModelAloneListsItsLayerTypesAndAVariantGivesOneSpectrum) {
  SpectrumRequest r;
  r.model = "gemma-3-27b";
  const nlohmann::json whole = spectrum_listing_json(r);
  EXPECT_EQ(whole["layer_types"].size(), 2u);
  r.layer_type = "full_attention";
  EXPECT_EQ(spectrum_listing_json(r)["layer_types"].size(), 1u);
  EXPECT_NE(spectrum_listing_text(r).find("full_attention"), std::string::npos);
  r.variant = Variant::p_rope;
  r.fraction = "0.5";
  const nlohmann::json one = spectrum_listing_json(r);
  EXPECT_FALSE(one.contains("layer_types"));
  EXPECT_EQ(one["variant"], "p-rope");
}

TEST(Listing, ModelWithDimIsRefused) {
  SpectrumRequest r;
  r.model = "llama-3.1-8b";
  r.dim = 64;
  try {
    spectrum_listing_text(r);
    FAIL() << "model with dim accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.input(), "dim");
  }
}

}  // namespace
}  // namespace ropecheck
