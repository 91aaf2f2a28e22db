#include "report/models_section.h"

#include <gtest/gtest.h>

#include <sstream>

#include "adversarial/model_bands.h"

namespace ropecheck::report {
namespace {

SectionResult models_smoke() {
  std::ostringstream log;
  Context c;
  c.mode = Mode::smoke;
  c.log = &log;
  return models_section(c);
}

const nlohmann::json& model_row(const SectionResult& r, const std::string& model, const std::string& layer_type) {
  for (const nlohmann::json& x : r.data["rows"])
    if (x["model"] == model && x["layer_type"] == layer_type) return x;
  throw std::runtime_error("no row " + model + " " + layer_type);
}

// The smoke rows: every number certified and the same on every run; llama-3.1-8b's channel breaks
// far outside its 131072 tokens (the fuzz preset's head: 3,644,840), glm-4-9b's inside its 32768,
// and each agrees with `ropecheck channels` (both call adversarial/model_bands.h).
TEST(ModelsSection, SmokeRowsAreCertifiedAndReproducible) {
  const SectionResult a = models_smoke();
  const SectionResult b = models_smoke();
  EXPECT_EQ(a.data.dump(), b.data.dump());
  ASSERT_EQ(a.data["rows"].size(), 4u) << a.data.dump(1);
  const nlohmann::json& llama = model_row(a, "llama-3.1-8b", "all");
  EXPECT_EQ(llama["shortest_break"], 3644840);
  EXPECT_EQ(llama["minimal"], "yes");
  EXPECT_EQ(llama["breaks_inside_span"], false);
  EXPECT_EQ(llama["control_position_free"], "yes");
  EXPECT_TRUE(llama["thm_5_3"]["certified"].get<bool>()) << llama["thm_5_3"].dump();
  const nlohmann::json& glm = model_row(a, "glm-4-9b", "all");
  EXPECT_EQ(glm["breaks_inside_span"], true);
  EXPECT_EQ(glm["pass_through_pairs"], 32);  // GLM rotates the first half of its 128-dim heads
  const adversarial::ModelBand direct = adversarial::model_band("glm-4-9b", "all", 1LL << 22);
  EXPECT_EQ(glm["shortest_break"], direct.scan.candidate.context);
  // A row that does not break within the search is certified so, never assumed.
  const nlohmann::json& g3 = model_row(a, "gemma-3-27b", "full_attention");
  EXPECT_TRUE(g3["shortest_break"].is_null() ? g3["none_up_to_max_certified"].get<bool>() : g3["minimal"] == "yes") << g3.dump();

  ASSERT_EQ(a.summary.size(), 1u);
  EXPECT_EQ(a.summary[0].id, "models-llama-3.1-channel");
  EXPECT_EQ(a.summary[0].verdict, "holds") << a.summary[0].key_quantity;
  ASSERT_EQ(a.figures.size(), 1u);
  EXPECT_EQ(a.figures[0].name, "channels-break-vs-span");
  EXPECT_EQ(std::count(a.figures[0].csv.begin(), a.figures[0].csv.end(), '\n'), 5) << a.figures[0].csv;
  EXPECT_NE(a.markdown.find("**inside**"), std::string::npos) << a.markdown;
}

}  // namespace
}  // namespace ropecheck::report
