#include "cli/audit_command.h"

#include <iostream>
#include <limits>

#include "cpu/thread_count.h"
#include "io/atomic_write.h"
#include "io/input_error.h"
#include "accuracy/audit.h"
#include "numeric/dtype.h"

namespace ropecheck::cli {

void AuditCommand::attach(CLI::App& app) {
  command = app.add_subcommand("audit", "measure another RoPE implementation's output against the exact rotation of its input");
  command->add_option("--input", input, "the input tensor X (.npy: '<f4' for f32, '<u2' bf16 bit patterns, '<f2' for f16), shape [..., tokens, heads, head_dim] or [tokens, head_dim], or as --axes names it")->required();
  command->add_option("--positions", positions, "one integer position per token (.npy '<i8', '<i4', or integral '<f8', '<f4' within 2^24), shared by the batch, or one per batch row and token ([batch, seq]); negative positions are allowed (the rotation is defined for them)")->required();
  command->add_option("--output", output, "the implementation's output Y (.npy, same shape and dtype as --input)")->required();
  command->add_option("--layout", layout, "pairing of the head vector: interleaved (2i, 2i+1) or half (i, i + d/2); required without --model, else the model's");
  command->add_option("--axes", axes,
                      "axis order of --input/--output: bshd [batch, seq, heads, head_dim], bhsd [batch, heads, seq, head_dim] (Hugging Face q/k), "
                      "shd [num_tokens, heads, head_dim] or sd [num_tokens, heads*head_dim] (vLLM), hsd [heads, seq, head_dim] "
                      "(default: [..., tokens, heads, head_dim] or [tokens, head_dim])");
  command->add_option("--dtype", dtype, "f32, bf16 or f16 (default f32)");
  add_spectrum_flags(command, flags);
  command->add_option("--json", json_path, "also write the report as JSON to this file");
  command->add_option("--threads", threads, "worker threads, " + cpu::thread_count_range() + " (default 1; same result for any count)");
  command->add_option("--max-ulp", max_ulp, "exit 1 when the maximum error exceeds this many ulps (decimal > 0)");
  command->add_option("--precision", precision, "the reference's working precision in bits, [64, 1024] (default 200)");
}

int AuditCommand::run() {
  if (!json_path.empty()) check_output(json_path, "--json");
  accuracy::AuditRequest request;
  request.input_path = input;
  request.positions_path = positions;
  request.output_path = output;
  if (!layout.empty()) request.layout = kernel::parse_layout(layout, "--layout");
  if (!axes.empty()) request.axes = parse_axes(axes, "--axes");
  request.format = dtype.empty() ? Dtype::f32 : parse_dtype(dtype, "--dtype", kKernelDtypes);
  request.spectrum = to_request(flags);
  if (!threads.empty()) request.measure.threads = parse_threads("--threads", threads);
  if (!precision.empty())
    request.measure.precision_bits = static_cast<unsigned>(parse_integer("--precision", precision, 64, accuracy::kReferenceMaxPrecisionBits));
  const double limit = max_ulp.empty() ? -1 : parse_decimal("--max-ulp", max_ulp, "a decimal > 0", 0, std::numeric_limits<double>::max(), true);
  const accuracy::AuditResult result = accuracy::audit_files(request);
  std::cout << accuracy::format_audit(result);
  if (!json_path.empty()) atomic_write(json_path, accuracy::audit_json(result).dump(2) + "\n", "--json");
  if (limit > 0 && !(result.errors.max_ulps() <= limit)) {
    std::cout << "max error " << result.errors.max_ulps() << " ulp exceeds --max-ulp " << max_ulp << "\n";
    return 1;
  }
  return 0;
}

}  // namespace ropecheck::cli
