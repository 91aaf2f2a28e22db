#include "montecarlo/partial.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "io/input_error.h"
#include "io/json_reader.h"
#include "io/printf_string.h"
#include "io/sha256.h"

namespace ropecheck::montecarlo {

void SeriesAccumulator::add(const SeriesAccumulator& other) {
  if (distance.size() < other.distance.size()) distance.resize(other.distance.size());
  for (size_t r = 0; r < other.distance.size(); ++r) distance[r].add(other.distance[r]);
  slope.add(other.slope);
  choice.insert(choice.end(), other.choice.begin(), other.choice.end());
  std::sort(choice.begin(), choice.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
}

std::int64_t Shard::trial_begin(std::int64_t trials) const {
  return static_cast<std::int64_t>((static_cast<__int128>(trials) * index) / count);
}
std::int64_t Shard::trial_end(std::int64_t trials) const {
  return static_cast<std::int64_t>((static_cast<__int128>(trials) * (index + 1)) / count);
}

bool Partial::complete() const {
  if (shards.empty()) return false;
  std::set<std::int64_t> seen;
  for (const Shard& s : shards) {
    if (s.count != shards.front().count || !seen.insert(s.index).second) return false;
  }
  return static_cast<std::int64_t>(seen.size()) == shards.front().count;
}

namespace {

const char* kFormat = "ropecheck-montecarlo-partial";

[[noreturn]] void bad(const std::string& input, const std::string& what) {
  throw InputError(input, "a complete, unedited ropecheck Monte Carlo partial (" + what + ")", "a file that is not");
}

nlohmann::json moments_json(const statistics::Moments& m) {
  return nlohmann::json::array({m.n, m.s1.to_text(), m.s2.to_text(), m.s3.to_text(), m.s4.to_text()});
}

statistics::Moments moments_from(const nlohmann::json& j, const std::string& input) {
  if (!j.is_array() || j.size() != 5 || !j[0].is_number_integer()) bad(input, "moments must be [n, s1, s2, s3, s4]");
  statistics::Moments m;
  m.n = j[0].get<std::int64_t>();
  ExactSum* sums[4] = {&m.s1, &m.s2, &m.s3, &m.s4};
  for (int i = 0; i < 4; ++i) {
    if (!j[static_cast<size_t>(i + 1)].is_string()) bad(input, "moment sums must be strings");
    *sums[i] = ExactSum::from_text(j[static_cast<size_t>(i + 1)].get<std::string>(), input);
  }
  return m;
}

nlohmann::json body_json(const Partial& p) {
  nlohmann::json j;
  j["format"] = kFormat;
  j["version"] = kFileVersion;
  j["params"] = p.params.to_json();
  nlohmann::json shards = nlohmann::json::array();
  for (const Shard& s : p.shards)
    shards.push_back({{"index", s.index}, {"count", s.count}});
  j["shards"] = shards;
  nlohmann::json series = nlohmann::json::array();
  for (const SeriesAccumulator& a : p.series) {
    nlohmann::json distance = nlohmann::json::array();
    for (const statistics::Moments& m : a.distance) distance.push_back(moments_json(m));
    nlohmann::json choice = nlohmann::json::array();
    for (const auto& [t, v] : a.choice) choice.push_back(nlohmann::json::array({t, hex_double(v)}));
    series.push_back({{"distance", distance}, {"slope", moments_json(a.slope)}, {"choice", choice}});
  }
  j["series"] = series;
  return j;
}

// Throws (bad) unless the sums and values are exactly those of the partial's shards' trials, as a
// run writes them: no shard twice; per series, every per-distance and slope sum counts one value
// per trial of those shards, and the two-sample values (none for a deterministic experiment) name
// each of those trials once, in increasing order. Without it a file whose checksum was recomputed
// could hold another shard's trial, and merging would depend on the order of the files (the
// values are sorted by trial only).
void check_trials(const Partial& p, const std::string& input) {
  std::set<std::int64_t> indices;
  for (const Shard& s : p.shards)
    if (s.count != p.shards.front().count || !indices.insert(s.index).second) bad(input, "its shards must be distinct shards of one split");
  for (size_t k = 0; k < p.series.size(); ++k) {
    const std::int64_t trials = p.params.series[k].trials;
    if (trials < 1) bad(input, "a series' trials must be at least 1");
    std::vector<std::pair<std::int64_t, std::int64_t>> ranges;  // [begin, end) of each shard, in index order
    for (const std::int64_t i : indices) {
      const Shard s{i, p.shards.front().count};
      ranges.emplace_back(s.trial_begin(trials), s.trial_end(trials));
    }
    std::int64_t count = 0;
    for (const auto& [b, e] : ranges) count += e - b;
    const SeriesAccumulator& a = p.series[k];
    const std::string series = "series " + std::to_string(k) + ": ";
    for (const statistics::Moments& m : a.distance)
      if (m.n != count) bad(input, series + "a per-distance sum counts " + std::to_string(m.n) + " values, not its shards' " + std::to_string(count) + " trials");
    if (a.slope.n != count) bad(input, series + "the slope sums count " + std::to_string(a.slope.n) + " values, not its shards' " + std::to_string(count) + " trials");
    if (p.params.deterministic()) {
      if (!a.choice.empty()) bad(input, series + "a deterministic experiment has no two-sample values");
      continue;
    }
    if (static_cast<std::int64_t>(a.choice.size()) != count)
      bad(input, series + std::to_string(a.choice.size()) + " two-sample values, not one per trial of its shards (" + std::to_string(count) + ")");
    size_t at = 0;
    for (const auto& [b, e] : ranges)
      for (std::int64_t t = b; t < e; ++t, ++at)
        if (a.choice[at].first != t)
          bad(input, series + "two-sample value " + std::to_string(at) + " names trial " + std::to_string(a.choice[at].first) + ", not " + std::to_string(t) +
                         " (one per trial of its shards, in order)");
  }
}

}  // namespace

std::string partial_text(const Partial& p) {
  nlohmann::json j = body_json(p);
  j["sha256"] = sha256_hex(j.dump());
  return j.dump() + "\n";
}

Partial parse_partial(const std::string& text, const std::string& input) {
  nlohmann::json j;
  try {
    j = parse_json(text, input, kPartialJsonLimits);
  } catch (const InputError& e) {
    if (e.accepted() != "a readable JSON file") throw;  // past a limit: named as such
    bad(input, "it is not valid JSON: " + e.got());
  }
  if (!j.is_object() || !j.contains("sha256") || !j["sha256"].is_string()) bad(input, "no sha256 field");
  const std::string recorded = j["sha256"].get<std::string>();
  j.erase("sha256");
  if (sha256_hex(j.dump()) != recorded) bad(input, "its sha256 does not match its content: edited or damaged");
  if (!j.contains("format") || j["format"] != kFormat) bad(input, "format is not " + std::string(kFormat));
  const int version = j.contains("version") && j["version"].is_number_integer() ? j["version"].get<int>() : 0;
  if (version != 1 && version != kFileVersion) bad(input, "version is not 1 or " + std::to_string(kFileVersion));
  if (!j.contains("params")) bad(input, "no params");
  Partial p;
  p.params = Params::from_json(j["params"], input, version);
  if (!j.contains("shards") || !j["shards"].is_array() || j["shards"].empty()) bad(input, "no shards");
  for (const nlohmann::json& s : j["shards"]) {
    if (!s.is_object() || !s.contains("index") || !s.contains("count") || !s["index"].is_number_integer() || !s["count"].is_number_integer())
      bad(input, "a shard must be {\"index\": K, \"count\": N}");
    Shard sh{s["index"].get<std::int64_t>(), s["count"].get<std::int64_t>()};
    if (sh.count < 1 || sh.index < 0 || sh.index >= sh.count) bad(input, "shard index/count out of range");
    p.shards.push_back(sh);
  }
  if (!j.contains("series") || !j["series"].is_array() || j["series"].size() != p.params.series.size()) bad(input, "series count differs from params");
  const std::int64_t distances = p.params.max_distance + 1;
  for (const nlohmann::json& s : j["series"]) {
    SeriesAccumulator a;
    if (!s.contains("distance") || !s["distance"].is_array() || static_cast<std::int64_t>(s["distance"].size()) != distances)
      bad(input, "per-distance sums must number max_distance + 1");
    for (const nlohmann::json& m : s["distance"]) a.distance.push_back(moments_from(m, input));
    if (!s.contains("slope")) bad(input, "no slope sums");
    a.slope = moments_from(s["slope"], input);
    if (!s.contains("choice") || !s["choice"].is_array()) bad(input, "no two-sample values");
    for (const nlohmann::json& c : s["choice"]) {
      if (!c.is_array() || c.size() != 2 || !c[0].is_number_integer() || !c[1].is_string()) bad(input, "two-sample values must be [trial, hex]");
      const std::string v = c[1].get<std::string>();
      char* end = nullptr;
      const double x = std::strtod(v.c_str(), &end);
      if (end == v.c_str() || *end != '\0') bad(input, "two-sample value is not a number");
      a.choice.emplace_back(c[0].get<std::int64_t>(), x);
    }
    p.series.push_back(std::move(a));
  }
  check_trials(p, input);
  return p;
}

Partial merge_partials(const std::vector<Partial>& parts, const std::vector<std::string>& inputs) {
  if (parts.empty()) throw InputError("merge", "at least one partial file", "none");
  Partial out;
  out.params = parts.front().params;
  const nlohmann::json reference = out.params.to_json();
  out.series.resize(parts.front().series.size());
  std::set<std::int64_t> seen;
  for (size_t i = 0; i < parts.size(); ++i) {
    const Partial& p = parts[i];
    const nlohmann::json params = p.params.to_json();
    if (params != reference) {
      std::string field = "params";
      for (auto it = reference.begin(); it != reference.end(); ++it)
        if (!params.contains(it.key()) || params[it.key()] != it.value()) {
          field = it.key();
          break;
        }
      throw InputError(inputs[i], "a partial of the same run as " + inputs.front() + " (its " + field + " differs: " +
                                      (params.contains(field) ? params[field].dump() : "missing") + " vs " + reference[field].dump() + ")",
                       "a different run");
    }
    for (const Shard& s : p.shards) {
      if (s.count != parts.front().shards.front().count)
        throw InputError(inputs[i], "a shard of the same split (N = " + std::to_string(parts.front().shards.front().count) + ")",
                         "shard " + std::to_string(s.index) + "/" + std::to_string(s.count));
      if (!seen.insert(s.index).second)
        throw InputError(inputs[i], "shards that appear once (shard " + std::to_string(s.index) + "/" + std::to_string(s.count) + " is given twice)",
                         "a repeated shard");
      out.shards.push_back(s);
    }
    for (size_t k = 0; k < out.series.size(); ++k) out.series[k].add(p.series[k]);
  }
  std::sort(out.shards.begin(), out.shards.end(), [](const Shard& a, const Shard& b) { return a.index < b.index; });
  return out;
}

}  // namespace ropecheck::montecarlo
