#include "spectrum/model_zoo.h"

#include <algorithm>
#include <filesystem>

#include "io/input_error.h"
#include "io/json_exact.h"
#include "io/json_reader.h"
#include "spectrum/detail/zoo_files.h"

namespace ropecheck {

namespace {

using nlohmann::json;

std::vector<std::string> strings_of(const json& j) {
  std::vector<std::string> out;
  if (j.is_array())
    for (const auto& v : j)
      if (v.is_string()) out.push_back(v.get<std::string>());
  return out;
}

ModelDescription read_zoo_file(const std::string& name, const std::string& text, const ModelOptions& options) {
  json config = parse_json(text, "zoo/" + name + ".json", kConfigJsonLimits, JsonNumbers::exact);
  const json meta = config.value("_ropecheck", json::object());
  config.erase("_ropecheck");
  ModelDescription m = read_hf_config(config, "zoo/" + name + ".json", options);
  m.name = name;
  m.title = meta.value("title", std::string());
  if (meta.contains("sources") && meta["sources"].is_object())
    for (const auto& item : meta["sources"].items())
      m.sources.push_back(item.key() + ": " + (item.value().is_string() ? item.value().get<std::string>() : item.value().dump()));
  if (meta.contains("unconfirmed")) m.unconfirmed = strings_of(meta["unconfirmed"]);
  return m;
}

std::string names_text() {
  std::string names;
  for (const auto& n : zoo_names()) names += (names.empty() ? "" : ", ") + n;
  return names;
}

}  // namespace

std::vector<std::string> zoo_names() {
  std::vector<std::string> names;
  for (const auto& f : zoo_detail::zoo_files()) names.push_back(f.name);
  std::sort(names.begin(), names.end());
  return names;
}

ModelDescription zoo_model(const std::string& name, const ModelOptions& options) {
  for (const auto& f : zoo_detail::zoo_files())
    if (f.name == name) return read_zoo_file(f.name, f.text, options);
  throw InputError("model", "one of " + names_text() + ", or a config.json path", name);
}

ModelDescription load_model(const std::string& name_or_file, const ModelOptions& options) {
  for (const auto& f : zoo_detail::zoo_files())
    if (f.name == name_or_file) return read_zoo_file(f.name, f.text, options);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(name_or_file, ec))
    throw InputError("model", "a zoo name (" + names_text() + ") or a config.json path", name_or_file);
  ModelDescription m = read_hf_config_text(read_json_text(name_or_file, kConfigJsonLimits), name_or_file, options);
  m.name = std::filesystem::path(name_or_file).filename().string();
  return m;
}

}  // namespace ropecheck
