#include "report/compare.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "io/input_error.h"
#include "io/json_reader.h"
#include "io/printf_string.h"

namespace ropecheck::report {

namespace {

// How a subtree is compared (compare.h). Decided from the path down to it; the first rule that
// applies wins: ignored, then note, then timing, then verdict, else exact.
enum class Rule { exact, verdict, timing, note, ignored };

bool is_seconds_key(const std::string& key) {
  return key == "seconds" || (key.size() > 8 && key.compare(key.size() - 8, 8, "_seconds") == 0);
}

// JSON pointer token (RFC 6901): artifact paths contain '/'.
std::string pointer_token(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

const char* kind_name(Difference::Kind k) {
  switch (k) {
    case Difference::Kind::verdict: return "verdict";
    case Difference::Kind::number: return "number";
    case Difference::Kind::value: return "value";
    case Difference::Kind::timing: return "timing";
    case Difference::Kind::note: return "note";
  }
  return "value";
}

// Relative tolerance of compare.h: equal values (both zero included) agree; a zero against a
// non-zero, or opposite signs, never do; else max/min - 1 <= tolerance on the magnitudes.
bool within_tolerance(double a, double b, double tolerance) {
  if (a == b) return true;
  if (a == 0 || b == 0 || (a < 0) != (b < 0)) return false;
  const double hi = std::max(std::fabs(a), std::fabs(b)), lo = std::min(std::fabs(a), std::fabs(b));
  return hi / lo - 1 <= tolerance;
}

// Whether every element of `a` is an object with a string "id", all distinct (and `a` not empty).
bool keyed_by_id(const nlohmann::json& a) {
  if (a.empty()) return false;
  std::set<std::string> seen;
  for (const nlohmann::json& e : a)
    if (!e.is_object() || !e.contains("id") || !e["id"].is_string() || !seen.insert(e["id"].get<std::string>()).second) return false;
  return true;
}

// The element of an id-keyed array with that id, or null.
const nlohmann::json* element_with_id(const nlohmann::json& a, const std::string& id) {
  for (const nlohmann::json& e : a)
    if (e["id"] == id) return &e;
  return nullptr;
}

class Walker {
 public:
  Walker(const CompareOptions& options, CompareResult& result) : options_(options), result_(result) {}

  // `depth` 0 is the document; `top` the top-level key the path is under ("" at the root).
  void walk(const nlohmann::json* a, const nlohmann::json* b, const std::string& path, Rule rule, int depth,
            const std::string& top) {
    if (rule == Rule::ignored) return;
    if (a == nullptr || b == nullptr) {
      differ(a, b, path, rule);
      return;
    }
    if (a->is_object() && b->is_object()) {
      std::set<std::string> keys;
      for (auto it = a->begin(); it != a->end(); ++it) keys.insert(it.key());
      for (auto it = b->begin(); it != b->end(); ++it) keys.insert(it.key());
      for (const std::string& key : keys) {
        const nlohmann::json* ca = a->contains(key) ? &(*a)[key] : nullptr;
        const nlohmann::json* cb = b->contains(key) ? &(*b)[key] : nullptr;
        const std::string child_top = depth == 0 ? key : top;
        walk(ca, cb, path + "/" + pointer_token(key), child_rule(rule, key, depth, child_top, ca, cb), depth + 1, child_top);
      }
      return;
    }
    if (a->is_array() && b->is_array() && keyed_by_id(*a) && keyed_by_id(*b)) {
      // Claims (and any list of objects with unique "id"s) are matched by id, so that a claim
      // added or removed is one addition or removal, not a shift of every claim after it.
      std::vector<std::string> ids;
      for (const nlohmann::json& e : *a) ids.push_back(e["id"].get<std::string>());
      for (const nlohmann::json& e : *b)
        if (element_with_id(*a, e["id"].get<std::string>()) == nullptr) ids.push_back(e["id"].get<std::string>());
      for (const std::string& id : ids)
        walk(element_with_id(*a, id), element_with_id(*b, id), path + "/" + pointer_token(id), rule, depth + 1, top);
      return;
    }
    if (a->is_array() && b->is_array()) {
      const std::size_t n = std::max(a->size(), b->size());
      for (std::size_t i = 0; i < n; ++i) {
        const nlohmann::json* ca = i < a->size() ? &(*a)[i] : nullptr;
        const nlohmann::json* cb = i < b->size() ? &(*b)[i] : nullptr;
        walk(ca, cb, path + "/" + std::to_string(i), rule, depth + 1, top);
      }
      return;
    }
    leaf(*a, *b, path, rule);
  }

 private:
  Rule child_rule(Rule parent, const std::string& key, int depth, const std::string& top, const nlohmann::json* a,
                  const nlohmann::json* b) const {
    if (parent == Rule::ignored || parent == Rule::note) return parent;
    if (depth == 0) {
      // run.exit_status sits under "run"; handled one level down.
      if (key == "environment" || key == "source") return Rule::note;
    }
    if (depth == 1 && top == "run") return key == "exit_status" ? Rule::exact : Rule::ignored;
    if (depth == 1 && top == "artifacts") {
      auto nondeterministic = [](const nlohmann::json* e) {
        return e != nullptr && e->is_object() && e->contains("deterministic") && (*e)["deterministic"] == false;
      };
      if (nondeterministic(a) || nondeterministic(b)) return Rule::ignored;
    }
    if (parent == Rule::timing) return parent;
    if (key == "timings") return Rule::timing;
    if (is_seconds_key(key)) {
      const bool numbers = (a == nullptr || a->is_number()) && (b == nullptr || b->is_number());
      if (numbers) return Rule::timing;
    }
    if (key == "verdict" || key == "as_paper_states") return Rule::verdict;
    return parent;
  }

  // The "run" object itself is walked (for its exit_status) with every other member ignored.
  void leaf(const nlohmann::json& a, const nlohmann::json& b, const std::string& path, Rule rule) {
    if (rule == Rule::timing && a.is_number() && b.is_number()) {
      ++result_.compared_timings;
      const std::string key = path.substr(path.rfind('/') + 1);
      const bool floor = is_seconds_key(key) && std::fabs(a.get<double>() - b.get<double>()) <= options_.timing_floor_seconds;
      if (!floor && !within_tolerance(a.get<double>(), b.get<double>(), options_.timing_tolerance)) differ(&a, &b, path, rule);
      return;
    }
    if (rule == Rule::timing) ++result_.compared_timings;
    else if (rule != Rule::note) ++result_.compared_values;
    // "As written": 1 and 1.0 differ (an integer count became a double), as do 0.1 and 0.10000000000000002.
    if (a.dump() != b.dump()) differ(&a, &b, path, rule);
  }

  void differ(const nlohmann::json* a, const nlohmann::json* b, const std::string& path, Rule rule) {
    Difference d;
    d.path = path.empty() ? "/" : path;
    d.old_value = a == nullptr ? "(absent)" : a->dump();
    d.new_value = b == nullptr ? "(absent)" : b->dump();
    switch (rule) {
      case Rule::verdict: d.kind = Difference::Kind::verdict; break;
      case Rule::timing: d.kind = Difference::Kind::timing; break;
      case Rule::note: d.kind = Difference::Kind::note; break;
      default:
        d.kind = a != nullptr && b != nullptr && a->is_number() && b->is_number() ? Difference::Kind::number : Difference::Kind::value;
    }
    if (d.kind == Difference::Kind::verdict) ++result_.verdict_changes;
    else if (d.kind == Difference::Kind::note) ++result_.notes;
    else ++result_.other_changes;
    result_.differences.push_back(std::move(d));
  }

  const CompareOptions& options_;
  CompareResult& result_;
};

void check_options(const CompareOptions& options) {
  if (!(options.timing_tolerance >= 0) || !std::isfinite(options.timing_tolerance))
    throw InputError("timing tolerance", "a finite number >= 0", printf_string("%g", options.timing_tolerance));
}

// run.json: the reference report's is 0.3 MB and nests 8 deep; a report of every claim at full
// settings stays far below these.
constexpr JsonLimits kRunJsonLimits{std::size_t{256} << 20, 64, std::size_t{1} << 20};

nlohmann::json read_report(const std::string& dir) {
  const std::string accepted = "a ropecheck report directory (with run.json, schema ropecheck-report/1)";
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw InputError(dir, accepted, "not a directory");
  const fs::path file = fs::path(dir) / "run.json";
  if (!fs::is_regular_file(file, ec)) throw InputError(dir, accepted, "no readable run.json in it");
  nlohmann::json doc;
  try {
    doc = read_json_file(file.string(), kRunJsonLimits);
  } catch (const InputError& e) {  // the directory is what the user named
    throw InputError(dir, accepted, "run.json, which must be " + e.accepted() + " (got " + e.got() + ")");
  }
  if (!doc.is_object() || !doc.contains("schema")) throw InputError(dir, accepted, "run.json without \"schema\"");
  if (doc["schema"] != "ropecheck-report/1") throw InputError(dir, accepted, "schema " + doc["schema"].dump());
  return doc;
}

// A difference line stays one line of readable length; strings are shown without their quotes
// ("holds -> inconclusive") when that loses nothing.
std::string shown(const std::string& json_text) {
  std::string text = json_text;
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"' && text.find('\\') == std::string::npos &&
      text.find('"', 1) == text.size() - 1)
    text = text.substr(1, text.size() - 2);
  constexpr std::size_t kMax = 160;
  if (text.size() > kMax) text = text.substr(0, kMax) + "...(" + std::to_string(json_text.size()) + " chars)";
  return text;
}

}  // namespace

CompareResult compare_runs(const nlohmann::json& old_run, const nlohmann::json& new_run, const CompareOptions& options) {
  check_options(options);
  CompareResult result;
  Walker(options, result).walk(&old_run, &new_run, "", Rule::exact, 0, "");
  return result;
}

CompareResult compare_reports(const std::string& old_dir, const std::string& new_dir, const CompareOptions& options) {
  check_options(options);
  const nlohmann::json a = read_report(old_dir);
  const nlohmann::json b = read_report(new_dir);
  return compare_runs(a, b, options);
}

std::string format_comparison(const CompareResult& result, const CompareOptions& options) {
  std::ostringstream os;
  for (const Difference& d : result.differences) {
    std::string kind = kind_name(d.kind);
    kind.resize(7, ' ');
    os << kind << "  " << d.path << ": " << shown(d.old_value) << " -> " << shown(d.new_value);
    if (d.kind == Difference::Kind::timing)
      os << printf_string(" (outside the tolerance: the larger may be at most %g times the smaller)", 1 + options.timing_tolerance);
    os << "\n";
  }
  if (result.same()) {
    os << "no change: " << result.compared_values << " values identical, " << result.compared_timings << " timings within tolerance";
  } else {
    os << result.verdict_changes << " verdict change(s), " << result.other_changes << " other change(s)";
  }
  if (result.notes > 0) os << "; " << result.notes << " environment/source note(s)";
  os << "\n";
  return os.str();
}

}  // namespace ropecheck::report
