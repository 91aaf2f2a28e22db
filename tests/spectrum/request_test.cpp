#include "spectrum/request.h"

#include <gtest/gtest.h>

#include "io/input_error.h"

namespace ropecheck {
namespace {

TEST(Request, FlagsOverrideTheConfiguration) {
  SpectrumRequest r;
  r.config = "gemma-7b";
  r.theta = "500000";
  r.context = 100;
  const ResolvedSpectrum rs = resolve(r);
  EXPECT_EQ(rs.spectrum.dim(), 256);
  EXPECT_EQ(rs.spectrum.theta(), "500000");
  EXPECT_EQ(rs.context, 100);
  EXPECT_EQ(rs.name, "gemma-7b+flags");
}

TEST(Request, FallbackConfigAndDefaults) {
  SpectrumRequest r;
  EXPECT_EQ(resolve(r, std::string("roformer")).spectrum.dim(), 128);
  EXPECT_THROW(resolve(r), InputError);  // no dimension at all
  r.dim = 8;
  const ResolvedSpectrum rs = resolve(r, std::string("roformer"));  // --dim wins over the fallback
  EXPECT_EQ(rs.spectrum.dim(), 8);
  EXPECT_EQ(rs.spectrum.theta(), "10000");
  EXPECT_EQ(rs.context, 8192);
  r.context = 0;
  EXPECT_THROW(resolve(r), InputError);
}

TEST(Request, ConfigSpectrumIsTheNamedConfigurationAlone) {
  const Spectrum s = config_spectrum("llama-3.1-8b");
  EXPECT_EQ(s.dim(), 128);
  EXPECT_EQ(s.theta(), "500000");
  SpectrumRequest r;
  r.config = "llama-3.1-8b";
  EXPECT_EQ(s.describe(), resolve(r).spectrum.describe());
  EXPECT_THROW(config_spectrum("gemma-99b"), InputError);
}

}  // namespace
}  // namespace ropecheck
