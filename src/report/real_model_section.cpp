#include "report/real_model_section.h"

#include <filesystem>

#include "io/file_bytes.h"
#include "io/json_reader.h"

namespace ropecheck::report {
namespace {

namespace fs = std::filesystem;

// The headline parts of one run.json (every number stays in the directory's own files).
nlohmann::json headline(const nlohmann::json& run) {
  nlohmann::json d;
  for (const char* key : {"schema", "command", "versions", "facts", "weights", "timings"})
    if (run.contains(key)) d[key] = run[key];
  if (d.contains("weights") && d["weights"].is_object()) d["weights"].erase("rows");
  if (run.contains("tokenization") && run["tokenization"].contains("check") && run["tokenization"]["check"].is_object()) {
    const nlohmann::json& c = run["tokenization"]["check"];
    d["tokenization"] = {{"agree", c.value("agree", false)}, {"tokens", c.value("tokens", 0)}, {"statement", c.value("statement", "")}};
  }
  if (run.contains("check")) {
    nlohmann::json c = run["check"];
    c.erase("sequences");
    d["check"] = c;
  }
  if (run.contains("layer_types"))
    for (const nlohmann::json& t : run["layer_types"])
      d["layer_types"].push_back({{"name", t.value("name", "")}, {"span", t.value("span", 0)}, {"location", t.value("location", nlohmann::json{})},
                                  {"kinds", t.value("kinds", nlohmann::json{})}, {"within_layers", t.value("within_layers", nlohmann::json{})}});
  if (run.contains("ablations")) {
    d["ablations"] = nlohmann::json::array();
    for (const nlohmann::json& a : run["ablations"].value("lengths", nlohmann::json::array()))
      d["ablations"].push_back({{"length", a.value("length", 0)}, {"sequences", a.value("sequences", 0)},
                                {"as_trained", a.value("as_trained", nlohmann::json{})}, {"rows", a.value("rows", nlohmann::json{})}});
  }
  return d;
}

// The text with every heading one level down ("## " becomes "### "): the directory's sections go
// under this section's heading.
std::string one_level_down(const std::string& text) {
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    out += (line.rfind("#", 0) == 0 ? "#" : "") + line + "\n";
    start = end + 1;
  }
  return out;
}

void add_figures(const fs::path& dir, SectionResult& r) {
  if (!fs::is_directory(dir / "figures")) return;
  for (const auto& e : fs::directory_iterator(dir / "figures"))
    if (e.is_regular_file())
      r.artifacts.push_back({"figures/" + e.path().filename().string(), read_file_bytes(e.path().string(), e.path().string()), true});
}

}  // namespace

SectionResult real_model_section(const Context& context) {
  SectionResult r;
  r.key = "real_model";
  if (context.real_model_dir.empty()) {
    r.markdown = "## Real language models (measured)\n\nNot included: `scripts/real-model` measures them (docs/usage.md, Real language "
                 "models) and `ropecheck report --real-model DIR` includes its directory; `scripts/run` includes the committed "
                 "reference run, reports/real-model/.\n";
    return r;
  }
  const fs::path dir(context.real_model_dir);
  *context.log << "report: real models (as written) " << dir.string() << "\n";
  const nlohmann::json index = read_json_file((dir / "index.json").string());
  const std::string command = index.value("command", std::string("scripts/real-model"));
  std::string md = "## Real language models (measured)\n\n*Included as `" + command + "` wrote it (`" + dir.filename().string() +
                   "/`: every model's run.json holds every number); `ropecheck report` does not rerun the models.*\n\n";
  if (fs::exists(dir / "comparison.md")) md += one_level_down(read_file_bytes((dir / "comparison.md").string(), (dir / "comparison.md").string())) + "\n";
  add_figures(dir, r);
  for (const nlohmann::json& name : index.value("models", nlohmann::json::array())) {
    const fs::path model = dir / name.get<std::string>();
    r.data["models"][name.get<std::string>()] = headline(read_json_file((model / "run.json").string()));
    md += "\n" + one_level_down(read_file_bytes((model / "section.md").string(), (model / "section.md").string()));
    add_figures(model, r);
  }
  r.data["command"] = command;
  r.markdown = md + "\n";
  return r;
}

}  // namespace ropecheck::report
