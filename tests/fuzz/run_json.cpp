// Fuzz target run_json: the run.json files `ropecheck report --compare OLD NEW` reads
// (report/compare.h compare_reports, which takes report directories: the input is written to
// OLD/run.json, and after fuzz::kSeparator, if present, to NEW/run.json; without it NEW is OLD),
// then format_comparison of the result.
// Checks: a report compared with itself shows no change and no difference.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "report/compare.h"

namespace {

using namespace ropecheck;

std::string report_dir(const std::string& name, const std::string& run_json) {
  const std::filesystem::path dir = fuzz::ScratchDir::path() / name;
  std::filesystem::create_directories(dir);
  fuzz::scratch_file(name + "/run.json", run_json);
  return dir.string();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::vector<std::string> parts = fuzz::split_parts(fuzz::text_of(data, size));
  const std::string old_dir = report_dir("old", parts[0]);
  const std::string new_dir = parts.size() > 1 ? report_dir("new", parts[1]) : old_dir;
  const report::CompareOptions options;
  if (!fuzz::accepted([&] {
        const report::CompareResult self = report::compare_reports(old_dir, old_dir, options);
        fuzz::check(self.same() && self.differences.empty(), [&] { return "a report compared with itself differs:\n" + report::format_comparison(self, options); });
      }))
    return 0;
  fuzz::accepted([&] { report::format_comparison(report::compare_reports(old_dir, new_dir, options), options); });
  return 0;
}
