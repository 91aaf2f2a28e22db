// File: kernel_plan.h
// The kernel plan a command's spectrum flags describe: a model's layer type (--model, with its
// geometry: head_dim, rotary offset and dims, layout, attention factor) or a bare spectrum with the
// --layout flag. Shared by apply, audit, kernel-check and fuzz --target kernel.
#pragma once

#include <optional>
#include <string>

#include "kernel/rope_plan.h"
#include "spectrum/request.h"

namespace ropecheck::cli {

// Returns: the plan. `layout` is the --layout text ("" when not given): required for a bare
// spectrum unless `fallback` is set; with a model it may be omitted, and must name the model's
// own layout when given. Throws InputError("--layout", ...) otherwise.
kernel::RopePlan kernel_plan(const ResolvedSpectrum& rs, const std::string& layout, std::optional<kernel::Layout> fallback = std::nullopt);

}  // namespace ropecheck::cli
