#include "adversarial/replay.h"

#include "adversarial/counterexample.h"
#include "accuracy/kernel_counterexample.h"
#include "io/input_error.h"
#include "io/json_fields.h"
#include "io/json_reader.h"

namespace ropecheck::adversarial {

ReplayOutcome replay_file(const std::string& path) {
  const nlohmann::json doc = read_json_file(path);
  ReplayOutcome out;
  out.file = path;
  if (!doc.is_object() || !doc.contains("target") || !doc["target"].is_string())
    throw InputError(path + ": target", "\"channel\", \"band\" or \"kernel\"", doc.is_object() && doc.contains("target") ? doc["target"].dump() : "");
  out.target = doc["target"].get<std::string>();
  if (out.target == "kernel") {
    const accuracy::KernelReplay k = accuracy::replay_kernel_counterexample(doc, path);
    out.verdict = k.verdict;
    out.detail = k.detail;
    return out;
  }
  const Counterexample cx = counterexample_from_json(doc, path);
  const AttackCheck check = check_attack(cx.head, cx.before, cx.swaps);
  out.verdict = check.verdict;
  out.detail = check.detail;
  return out;
}

}  // namespace ropecheck::adversarial
