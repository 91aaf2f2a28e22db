// The one-list tables (io/named_values.h): names and parsing, and every table of the project has
// distinct values and distinct, non-empty names.
#include "io/named_values.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <string_view>

#include "accuracy/baselines.h"
#include "cpu/path.h"
#include "io/rope_tensor_shape.h"
#include "numeric/dtype.h"
#include "spectrum/layout.h"

namespace ropecheck {
namespace {

enum class Colour { red, green, blue };
struct ColourEntry {
  Colour value;
  std::string_view name;
};
constexpr ColourEntry kColours[] = {{Colour::red, "red"}, {Colour::green, "green"}, {Colour::blue, "blue"}};

TEST(NamedValues, NamesValuesAndParsing) {
  EXPECT_EQ(name_in(kColours, Colour::green), "green");
  EXPECT_EQ(names_in(kColours), (std::vector<std::string>{"red", "green", "blue"}));
  EXPECT_EQ(values_in(kColours), (std::vector<Colour>{Colour::red, Colour::green, Colour::blue}));
  EXPECT_EQ(parse_name_in(kColours, "blue", "--colour"), Colour::blue);
  try {
    parse_name_in(kColours, "mauve", "--colour");
    FAIL() << "mauve is not a colour";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "--colour must be red, green or blue (got mauve)");
  }
}

template <typename Entry, std::size_t N>
void expect_distinct(const Entry (&table)[N], const char* what) {
  std::set<std::string> names;
  std::set<decltype(Entry::value)> values;
  for (const Entry& e : table) {
    EXPECT_FALSE(e.name.empty()) << what;
    EXPECT_TRUE(names.insert(std::string(e.name)).second) << what << ": name " << e.name << " twice";
    EXPECT_TRUE(values.insert(e.value).second) << what << ": a value twice (" << e.name << ")";
  }
}

TEST(NamedValues, EveryTableHasDistinctNamesAndValues) {
  expect_distinct(cpu::kPaths, "cpu::kPaths");
  expect_distinct(accuracy::kImplementations, "accuracy::kImplementations");
  expect_distinct(kLayouts, "kLayouts");
  expect_distinct(kTensorAxes, "kTensorAxes");
  expect_distinct(kDtypes, "kDtypes");
}

}  // namespace
}  // namespace ropecheck
