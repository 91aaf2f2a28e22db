#include "cli/apply_command.h"

#include <chrono>
#include <cstring>
#include <iostream>
#include <optional>
#include <span>

#include "cpu/thread_count.h"
#include "io/atomic_write.h"
#include "io/input_error.h"
#include "io/npy.h"
#include "numeric/small_floats.h"
#include "io/rope_tensor_shape.h"
#include "kernel/apply_rope.h"
#include "numeric/small_floats.h"
#include "accuracy/audit.h"
#include "accuracy/baselines.h"
#include "spectrum/request.h"

namespace ropecheck::cli {

namespace {

// Rotates every batch slice of `data` (dense [batch][tokens][heads][head_dim]) with one table.
// impl: the production kernel (with `table`), or a baseline strategy (accuracy/baselines.h) for
// comparisons such as auditing what a float32 angle does at large positions.
template <typename T>
std::vector<unsigned char> rotate(const kernel::SinCosTable& table, const RopeTensorShape& shape,
                                  const std::vector<unsigned char>& bytes, const kernel::KernelOptions& options,
                                  accuracy::Implementation impl, std::span<const std::int64_t> positions) {
  // Copied into typed vectors: the file's bytes are not float objects, and reading them through a
  // float* would break strict aliasing.
  std::vector<T> in(bytes.size() / sizeof(T)), out(in.size());
  std::memcpy(in.data(), bytes.data(), bytes.size());
  const int dim = static_cast<int>(shape.head_dim);
  for (std::int64_t b = 0; b < shape.batch; ++b) {
    const std::int64_t offset = b * shape.slice_elements();
    const auto x = kernel::dense_view<const T>(in.data() + offset, shape.tokens, shape.heads, dim);
    const auto y = kernel::dense_view<T>(out.data() + offset, shape.tokens, shape.heads, dim);
    if (impl == accuracy::Implementation::kernel) kernel::apply_rope(table, x, y, options);
    else accuracy::apply_rope_baseline(impl, table.plan(), positions, x, y);
  }
  std::vector<unsigned char> result(bytes.size());
  std::memcpy(result.data(), out.data(), result.size());
  return result;
}

}  // namespace

void ApplyCommand::attach(CLI::App& app) {
  command = app.add_subcommand(
      "apply",
      "rotate a float32, bfloat16 or float16 .npy tensor [..., tokens, heads, head_dim] or [tokens, head_dim] with the "
      "production RoPE kernel (every output the correctly rounded value of the exact map, any int64 position; --model for a model's layer type)");
  command->add_option("--dtype", dtype, "f32 (the input is '<f4'), bf16 (the input is '<u2': bfloat16 bit patterns) or f16 (the input is '<f2')")->required();
  command->add_option("--layout", layout, "pairs (2i, 2i+1): interleaved; pairs (i, i + d/2): half (required without --model, else the model's)");
  add_spectrum_flags(command, flags);
  command->add_option("--positions", positions,
                      ".npy of one integer position per token ('<i8', '<i4', or '<f8'/'<f4' holding integers); "
                      "negative positions are allowed: the rotation by p*g is defined for every integer p")
      ->required();
  command->add_option("--input", input, ".npy tensor to rotate; --dim defaults to its last dimension")->required();
  command->add_option("--output", output, ".npy file to write (atomically; same shape and dtype)")->required();
  command->add_option("--threads", threads, "threads splitting the tokens, " + cpu::thread_count_range() + " (default 1; results bit-identical)");
  command->add_option("--impl", impl,
                      "kernel (default), or a baseline strategy for comparison: f32-angle (float32 angle p*inv_freq, "
                      "sinf/cosf, as most inference engines) or f64-angle (double angle and sin/cos)");
  command->add_flag("--verbose", verbose, "print the kernel path, the tensor's size, the time and the outputs that took the accurate path");
}

int ApplyCommand::run() {
  const auto start = std::chrono::steady_clock::now();
  const Dtype format = parse_dtype(dtype, "--dtype", kKernelDtypes);
  const accuracy::Implementation implementation = accuracy::parse_implementation(impl, "--impl");
  std::optional<kernel::Layout> kernel_layout;
  if (!layout.empty()) kernel_layout = kernel::parse_layout(layout, "--layout");
  const int thread_count = threads.empty() ? 1 : parse_threads("--threads", threads);
  check_output(output, "--output");

  const NpyArray x = read_npy(input, "--input", {std::string(dtype_info(format).npy)});
  const RopeTensorShape shape = rope_tensor_shape(x.shape, "--input");

  SpectrumRequest request = to_request(flags);
  // The tensor fixes head_dim; a spectrum given by --dim or --config, or a model's layer type, must
  // agree with it.
  if (!request.dim && !request.config && !request.model) request.dim = static_cast<int>(shape.head_dim);
  const ResolvedSpectrum rs = resolve(request);
  // A model's layer type: its geometry (rotary offset and width), layout and attention factor.
  const kernel::RopePlan plan = accuracy::plan_for_request(rs, kernel_layout);
  if (plan.dim() != shape.head_dim) {
    if (rs.layer)
      throw InputError("--input", "a tensor whose last dimension is " + std::to_string(plan.dim()) + " (the head width of " + rs.name + ")",
                       "shape " + shape_repr(x.shape));
    throw InputError(request.dim ? "--dim" : "--config",
                     "the head_dim of --input " + input + ", its last dimension " + std::to_string(shape.head_dim),
                     "d=" + std::to_string(rs.spectrum.dim()));
  }

  const NpyArray p = read_npy(positions, "--positions", {"<i8", "<i4", "<f8", "<f4"});
  const std::vector<std::int64_t> pos = positions_from_npy(p, shape.tokens, "--positions");

  kernel::KernelStats stats;
  const kernel::KernelOptions options{cpu::default_path(), thread_count, &stats};
  const kernel::SinCosTable table(plan, pos, options.path, options.threads);
  NpyArray y;
  y.dtype = x.dtype;
  y.shape = x.shape;
  y.bytes = with_storage(format, [&](auto e) { return rotate<decltype(e)>(table, shape, x.bytes, options, implementation, pos); });
  write_npy(output, y, "--output");

  if (verbose) {
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cout << "apply: " << (implementation == accuracy::Implementation::kernel ? "path " + cpu::path_name(options.path) : "baseline " + impl) << ", " << plan.describe() << ", " << dtype << " batch "
              << shape.batch << " x tokens " << shape.tokens << " x heads " << shape.heads << ", threads " << thread_count
              << ", " << seconds << " s\n";
    if (implementation == accuracy::Implementation::kernel)
      std::cout << "apply: " << stats.slow << " of " << stats.outputs << " outputs took the accurate path (their fast rounding test failed), "
                << stats.unresolved << " unresolved\n";
  }
  return 0;
}

}  // namespace ropecheck::cli
