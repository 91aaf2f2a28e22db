#include "report/real_model_section.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/file_bytes.h"
#include "io/json_reader.h"

#ifndef ROPECHECK_SOURCE_DIR
#define ROPECHECK_SOURCE_DIR ""
#endif

namespace ropecheck::report {
namespace {

namespace fs = std::filesystem;

constexpr const char* kDir = "reports/real-model";  // scripts/real-model --out reports/real-model --force

}  // namespace

SectionResult real_model_section(const Context& context) {
  SectionResult r;
  r.key = "real_model";
  const fs::path dir = fs::path(ROPECHECK_SOURCE_DIR) / kDir;
  const fs::path md = dir / "real-model.md", json = dir / "real-model.json";
  if (!fs::exists(md) || !fs::exists(json)) {
    r.markdown = std::string("## A real language model (measured)\n\nNot in this source tree: `scripts/real-model --out ") + kDir +
                 "` makes it (docs/usage.md, A real language model).\n";
    return r;
  }
  *context.log << "report: real model (committed) " << dir.string() << "\n";
  const nlohmann::json doc = read_json_file(json.string());
  // The headline numbers, for --compare and run.json readers; the full document stays beside the section.
  for (const char* key : {"schema", "command", "versions", "model", "check", "control", "section5_within_layers", "ablation"})
    if (doc.contains(key)) r.data[key] = doc[key];
  if (r.data.contains("check") && r.data["check"].contains("sequences")) r.data["check"].erase("sequences");
  if (r.data.contains("model")) r.data["model"].erase("path");
  if (doc.contains("timings")) r.timings = doc["timings"];
  std::string text = read_file_bytes(md.string(), md.string());
  const size_t first = text.find('\n');  // the note goes under the section's heading
  const std::string note = "\n*Committed from a run of `" + doc.value("command", std::string("scripts/real-model")) +
                           "` (`" + kDir + "/`: real-model.json holds every number); `ropecheck report` includes it as committed, "
                           "it does not rerun the model.*\n";
  text = first == std::string::npos ? text + note : text.substr(0, first + 1) + note + text.substr(first + 1);
  r.markdown = text + "\n";
  if (fs::is_directory(dir / "figures"))
    for (const auto& e : fs::directory_iterator(dir / "figures"))
      if (e.is_regular_file()) r.artifacts.push_back({"figures/" + e.path().filename().string(), read_file_bytes(e.path().string(), e.path().string()), true});
  return r;
}

}  // namespace ropecheck::report
