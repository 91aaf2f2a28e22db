// File: usage_json.h
// The usage result as JSON, schema "ropecheck-usage/2" (docs/usage.md lists every field): what
// `ropecheck usage --json` writes and what Python's UsageResult.to_dict() returns, the same bytes
// for the same capture and model whatever the thread count (the run time is not in it).
#pragma once

#include <nlohmann/json.hpp>

#include "usage/usage.h"

namespace ropecheck::usage {

inline constexpr const char* kUsageSchema = "ropecheck-usage/2";

nlohmann::json usage_json(const UsageResult& r);

}  // namespace ropecheck::usage
