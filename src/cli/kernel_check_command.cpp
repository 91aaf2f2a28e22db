#include "cli/kernel_check_command.h"

#include <iostream>
#include <limits>
#include <optional>

#include "cpu/thread_count.h"
#include "io/atomic_write.h"
#include "accuracy/kernel_check.h"
#include "numeric/dtype.h"

namespace ropecheck::cli {

void KernelCheckCommand::attach(CLI::App& app) {
  command = app.add_subcommand("kernel-check", "sweep every kernel path and the two baselines against the MPFR reference "
                               "(--model: a model's layer type, with its geometry and attention factor)");
  command->add_option("--dtype", dtype, "f32, bf16, f16 or all (default all)");
  command->add_option("--samples", samples, "random positions, integer in [1, 10^7] (default 4096; 4 head vectors each)");
  command->add_option("--max-position", max_position, "largest position P, integer in [0, 2^63 - 1] (default 2^40 - 1); positions log-uniform in [0, P]");
  command->add_option("--seed", seed, "seed of the samples (default 1)");
  command->add_option("--layout", layout, "interleaved or half (default interleaved; with --model, the model's own)");
  add_spectrum_flags(command, flags);
  command->add_option("--json", json_path, "also write the report as JSON to this file");
  command->add_option("--threads", threads, "worker threads, " + cpu::thread_count_range() + " (default 1; same samples and figures for any count)");
}

int KernelCheckCommand::run() {
  if (!json_path.empty()) check_output(json_path, "--json");
  accuracy::KernelCheckOptions o;
  o.formats = parse_dtype_set(dtype.empty() ? "all" : dtype, "--dtype", kKernelDtypes, "all");
  if (!samples.empty()) o.samples = parse_integer("--samples", samples, 1, 10000000);
  if (!max_position.empty()) o.max_position = parse_integer("--max-position", max_position, 0, std::numeric_limits<long long>::max());
  if (!seed.empty()) o.seed = parse_seed(seed);
  if (!threads.empty()) o.threads = parse_threads("--threads", threads);
  SpectrumRequest request = to_request(flags);
  if (!request.config && !request.dim && !request.model) request.dim = accuracy::kKernelCheckDefaultDim;
  const ResolvedSpectrum rs = resolve(request);
  std::optional<kernel::Layout> l;
  if (!layout.empty()) l = kernel::parse_layout(layout, "--layout");
  else if (!rs.layer) l = kernel::Layout::interleaved;  // a bare spectrum's default
  const kernel::RopePlan plan = accuracy::plan_for_request(rs, l);
  const accuracy::KernelCheckResult result = accuracy::run_kernel_check(plan, o);
  std::cout << accuracy::format_kernel_check(result);
  if (!json_path.empty()) atomic_write(json_path, accuracy::kernel_check_json(result).dump(2) + "\n", "--json");
  return result.passed ? 0 : 1;
}

}  // namespace ropecheck::cli
