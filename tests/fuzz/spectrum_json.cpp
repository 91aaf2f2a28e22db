// Fuzz target spectrum_json: a spectrum object's JSON file (spectrum/spectrum_json.h), the form
// counterexample, kernel counterexample and Monte Carlo files name their spectra in, through
// spectrum_request_from_json, resolve (spectrum_from_json, resolved_from_json) and
// scaling_from_json. Round trips: the canonical JSON of an accepted request reads back as a request
// with the same canonical JSON; a resolved spectrum written in full reads back as the same
// spectrum; an accepted scaling's canonical JSON reads back as the same JSON.
// A request naming a "model" that is not a zoo name is not resolved: it would name a file to read
// (any path, /dev/stdin included), which is config_json's business.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "io/json_fields.h"
#include "spectrum/model_zoo.h"
#include "spectrum/spectrum_json.h"

namespace {

using namespace ropecheck;

bool names_a_file(const SpectrumRequest& r) {
  static const std::vector<std::string> zoo = zoo_names();
  return r.model && std::find(zoo.begin(), zoo.end(), *r.model) == zoo.end();
}

void request(const nlohmann::json& j) {
  SpectrumRequest r;
  if (!fuzz::accepted([&] { r = spectrum_request_from_json(j, "cx.json: head.spectrum"); })) return;
  const nlohmann::json canonical = spectrum_request_to_json(r);
  SpectrumRequest again;
  if (!fuzz::accepted([&] { again = spectrum_request_from_json(canonical, "canonical"); }))
    fuzz::fail("the canonical JSON " + fuzz::shown(canonical) + " of an accepted request is refused");
  fuzz::check(spectrum_request_to_json(again) == canonical,
              [&] { return "canonical JSON " + fuzz::shown(canonical) + " reads back as " + fuzz::shown(spectrum_request_to_json(again)); });
  if (names_a_file(r)) return;
  Spectrum s{2, "10000"};
  if (!fuzz::accepted([&] { s = spectrum_from_json(j, "cx.json: head.spectrum"); })) return;
  fuzz::accepted([&] { resolved_from_json(j, "cx.json: head.spectrum"); });
  const nlohmann::json full = spectrum_to_json(s);
  Spectrum back{2, "10000"};
  if (!fuzz::accepted([&] { back = spectrum_from_json(full, "full"); }))
    fuzz::fail("the spectrum JSON " + fuzz::shown(full) + " of an accepted spectrum is refused");
  fuzz::check(back.describe() == s.describe(),
              [&] { return "spectrum " + s.describe() + " written as " + fuzz::shown(full) + " reads back as " + back.describe(); });
}

void scaling(const nlohmann::json& j) {
  Scaling s;
  if (!fuzz::accepted([&] { s = scaling_from_json(j, "scaling"); })) return;
  const nlohmann::json canonical = scaling_to_json(s);
  Scaling again;
  if (!fuzz::accepted([&] { again = scaling_from_json(canonical, "canonical"); }))
    fuzz::fail("the canonical JSON " + fuzz::shown(canonical) + " of an accepted scaling is refused");
  fuzz::check(scaling_to_json(again) == canonical,
              [&] { return "scaling " + fuzz::shown(canonical) + " reads back as " + fuzz::shown(scaling_to_json(again)); });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // Through the reader every file naming a spectrum goes through (a counterexample's, replay's).
  nlohmann::json j;
  if (!fuzz::accepted([&] { j = read_json_file(fuzz::scratch_file("spectrum.json", std::string_view(reinterpret_cast<const char*>(data), size))); }))
    return 0;
  request(j);
  scaling(j);
  if (j.is_object() && j.contains("scaling")) scaling(j["scaling"]);
  return 0;
}
