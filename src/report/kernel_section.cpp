#include "report/kernel_section.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

#include "io/printf_string.h"
#include "kernel/apply_rope.h"
#include "numeric/small_floats.h"
#include "accuracy/baselines.h"
#include "accuracy/kernel_check.h"
#include "accuracy/memory_speed.h"
#include "cpu/path.h"
#include "accuracy/report_format.h"
#include "kernel/rope_plan.h"
#include "spectrum/request.h"

namespace ropecheck::report {
namespace {

using accuracy::ImplementationCheck;
using accuracy::KernelCheckResult;

const char* const kEvidence = "evidence/kernel/kernel-check.json";
const char* const kSpeedCsv = "evidence/kernel/speed.csv";

// The header's sizes: smoke 64 random positions, quick kernel-check's default 4096, full 65536.
std::int64_t samples_for(Mode m) {
  switch (m) {
    case Mode::smoke: return 64;
    case Mode::quick: return 4096;
    case Mode::full: return 65536;
  }
  return 4096;
}

// `ropecheck kernel-check`'s default plan (cli/kernel_check_command.cpp): no configuration, --dim
// 128 (theta 10000, plain RoPE), interleaved layout. The same plan, seed and sample count give
// the same evidence as `ropecheck kernel-check --seed S --json` minus its "seconds" and "threads".
kernel::RopePlan default_plan() {
  SpectrumRequest request;
  request.dim = accuracy::kKernelCheckDefaultDim;
  return kernel::RopePlan(resolve(request).spectrum, kernel::Layout::interleaved);
}

using accuracy::proved_bound_text;

void log_line(const Context& c, const std::string& line) {
  if (c.log != nullptr) *c.log << "kernel: " << line << "\n" << std::flush;
}

// --- accuracy -------------------------------------------------------------------------------

// The rows of one format: the kernel paths in available_paths() order (scalar first, best last),
// then the baselines in kernel-check's order (f32-angle, f64-angle).
std::vector<const ImplementationCheck*> rows_of(const KernelCheckResult& r, Dtype f) {
  std::vector<const ImplementationCheck*> out;
  for (const ImplementationCheck& row : r.rows)
    if (row.format == f) out.push_back(&row);
  return out;
}

// The three curves of the figure and the condensed decade table: the kernel (its best path: every
// path is bit-identical, which kernel-check verifies and the summary row reports), f32-angle,
// f64-angle. Null where the format was not run.
struct Curves {
  const ImplementationCheck* kernel = nullptr;
  const ImplementationCheck* f32_angle = nullptr;
  const ImplementationCheck* f64_angle = nullptr;
};

Curves curves_of(const KernelCheckResult& r, Dtype f) {
  Curves c;
  for (const ImplementationCheck* row : rows_of(r, f)) {
    if (row->kernel) c.kernel = row;  // the last kernel row is the best path
    else if (row->name == "baseline " + accuracy::implementation_name(accuracy::Implementation::f32_angle)) c.f32_angle = row;
    else if (row->name == "baseline " + accuracy::implementation_name(accuracy::Implementation::f64_angle)) c.f64_angle = row;
  }
  return c;
}

// A CSV cell gnuplot can read: the shortest round-trip decimal (exact, as nlohmann writes it), or
// "NaN" for a value that is not finite (a baseline whose float intermediates overflowed): gnuplot
// treats NaN as undefined and skips the point instead of failing on "inf".
std::string csv_number(double v) {
  if (!std::isfinite(v)) return "NaN";
  return nlohmann::json(v).dump();
}

double decade_value(const ImplementationCheck* row, int d) {
  return row == nullptr ? std::numeric_limits<double>::quiet_NaN() : row->moderate.decade(d).max_rel;
}

// The decades the sample reaches (moderate inputs; every row of a run shares the positions).
std::vector<int> sampled_decades(const KernelCheckResult& r) {
  std::vector<int> out;
  if (r.rows.empty()) return out;
  for (int d = 0; d < accuracy::kDecades; ++d)
    if (r.rows.front().moderate.decade(d).elements > 0) out.push_back(d);
  return out;
}

// The decade's upper end 10^(d+1) as the x coordinate (a log axis has no place for the lower end
// 0 of [0, 10)); the last decade [1e18, 2^63] ends at 2^63.
double decade_upper(int d) { return d == accuracy::kDecades - 1 ? 0x1p63 : std::pow(10.0, d + 1); }

// The kernel dtypes the result covers, in kKernelDtypes' order.
std::vector<Dtype> formats_of(const KernelCheckResult& r) {
  std::vector<Dtype> out;
  for (Dtype f : kKernelDtypes)
    if (std::find(r.options.formats.begin(), r.options.formats.end(), f) != r.options.formats.end()) out.push_back(f);
  return out;
}

Figure error_figure(const KernelCheckResult& r) {
  const std::vector<Dtype> formats = formats_of(r);
  std::string csv = "decade,position_upper,outputs_per_implementation";
  for (Dtype f : formats) {
    const std::string n = dtype_name(f);
    csv += ",kernel_" + n + ",f32_angle_" + n + ",f64_angle_" + n;
  }
  csv += "\n";
  for (int d : sampled_decades(r)) {
    csv += std::to_string(d) + "," + csv_number(decade_upper(d)) + "," + std::to_string(r.rows.front().moderate.decade(d).elements);
    for (Dtype f : formats) {
      const Curves c = curves_of(r, f);
      for (const ImplementationCheck* row : {c.kernel, c.f32_angle, c.f64_angle}) csv += "," + csv_number(decade_value(row, d));
    }
    csv += "\n";
  }
  Figure f;
  f.name = "kernel-error-vs-position";
  f.title = "RoPE output error against position: this kernel and the naive float32/float64 angle strategies";
  f.caption =
      "The naive f32-angle strategy's error grows with position to O(1) (its float32 angle p*g is off by whole radians "
      "beyond ~1e7, where p * 2^-24 exceeds a radian), f64-angle's grows too, while the kernel stays at half an ulp (~6e-8 in f32, ~4e-3 in bf16, "
      "~5e-4 in f16) at every position; sampled maxima (lower bounds) over moderate inputs, one point per position decade; non-finite values "
      "are written as NaN and not drawn.";
  f.csv = csv;
  f.xlabel = "position p (upper end of the decade, tokens)";
  f.ylabel = "max |output - exact| / ||(x_a, x_b)|| (unit pair norm)";
  f.logx = true;
  f.logy = true;
  // Reference lines: half an ulp at unit pair norm, the kernel's proved level (2^-p for a format of
  // p significand bits: f32 2^-24, bf16 2^-8, f16 2^-11).
  f.settings = "set key left top\nset format x '10^{%L}'\nset format y '10^{%L}'";
  int line = 0;
  for (Dtype t : formats) {
    const std::string n = dtype_name(t), p = std::to_string(dtype_info(t).precision), dash = std::to_string(line + 1);
    f.settings += "\nset arrow from graph 0, first 2**-" + p + " to graph 1, first 2**-" + p + " nohead dashtype 2 linecolor rgb 'gray40'";
    f.settings += "\nset label '" + n + " half ulp (2^{-" + p + "})' at graph 0.62, first 2**-" + p + "*2.5 textcolor rgb 'gray40'";
    const std::string style = line == 0 ? "" : " dashtype " + dash;
    f.plot += std::string(line == 0 ? "" : ", ") + "DATA using 'position_upper':'kernel_" + n + "' with linespoints linewidth 2" + style +
              " pointtype " + std::to_string(7 - line) + " title 'kernel, " + n + "', " + "DATA using 'position_upper':'f32_angle_" + n +
              "' with linespoints" + style + " pointtype " + std::to_string(5 - line) + " title 'naive f32 angle, " + n + "', " +
              "DATA using 'position_upper':'f64_angle_" + n + "' with linespoints" + style + " pointtype " + std::to_string(9 + line) +
              " title 'naive f64 angle, " + n + "'";
    ++line;
  }
  return f;
}

std::string accuracy_table(const KernelCheckResult& r) {
  std::vector<std::vector<std::string>> rows;
  for (const ImplementationCheck& row : r.rows) {
    const accuracy::ErrorAccumulator& e = row.errors;
    rows.push_back({row.name, dtype_name(row.format), std::to_string(e.elements()), accuracy::fixed(e.max_ulps(), 6),
                    row.kernel ? proved_bound_text(row.format) : "-", accuracy::fixed(e.median_ulps(), 4),
                    accuracy::fixed(100 * row.typical.share_correctly_rounded(), 4) + "%",
                    accuracy::fixed(100 * row.cancellation.share_correctly_rounded(), 2) + "%", accuracy::sci(e.max_rel()),
                    std::to_string(e.specials() - e.special_mismatches()) + "/" + std::to_string(e.specials()), row.verdict});
  }
  return markdown_table({"implementation", "dtype", "outputs", "max ulp (sampled: lower bound)", "proved upper bound (ulp)", "median ulp",
                         "correctly rounded (typical)", "correctly rounded (near cancellation)", "max err / pair norm",
                         "specials as IEEE", "verdict"},
                        rows);
}

std::string decade_table(const KernelCheckResult& r) {
  const std::vector<Dtype> formats = formats_of(r);
  std::vector<std::vector<std::string>> rows;
  auto cell = [](const ImplementationCheck* row, int d) { return row == nullptr ? std::string("-") : accuracy::sci(row->moderate.decade(d).max_rel); };
  for (int d : sampled_decades(r)) {
    std::vector<std::string> row{accuracy::decade_label(d), std::to_string(r.rows.front().moderate.decade(d).elements)};
    for (Dtype f : formats) {
      const Curves c = curves_of(r, f);
      for (const ImplementationCheck* x : {c.kernel, c.f32_angle, c.f64_angle}) row.push_back(cell(x, d));
    }
    rows.push_back(std::move(row));
  }
  std::vector<std::string> header{"positions", "outputs"};
  for (Dtype f : formats)
    for (const char* impl : {"kernel ", "f32-angle ", "f64-angle "}) header.push_back(impl + dtype_name(f));
  return markdown_table(header, rows);
}

SummaryRow summary_row(const KernelCheckResult& r, Dtype f) {
  const std::vector<const ImplementationCheck*> rows = rows_of(r, f);
  bool passed = true;
  double max_ulps = 0;
  std::uint64_t outputs = 0;
  int paths = 0;
  for (const ImplementationCheck* row : rows) {
    if (!row->kernel) continue;
    ++paths;
    passed = passed && row->passed;
    max_ulps = std::max(max_ulps, row->errors.max_ulps());
    outputs = row->errors.elements();
  }
  const auto at = std::find(r.options.formats.begin(), r.options.formats.end(), f);
  const auto index = static_cast<std::size_t>(at - r.options.formats.begin());
  const bool agree = index < r.format_paths_agree.size() && r.format_paths_agree[index];
  SummaryRow s;
  s.id = "kernel-accuracy-" + dtype_name(f);
  s.statement = "every kernel path is correctly rounded (the exact rotation rounded to nearest even, every output, no ulp floor), "
                "paths bit-identical";
  s.method = "sampled sweep against MPFR (" + std::to_string(r.options.precision_bits) + " bits), " + std::to_string(outputs) +
             " outputs per path, " + std::to_string(paths) + " paths; goal: 100% correctly rounded";
  s.range = "positions 0.." + (r.options.max_position == (std::int64_t{1} << 40) - 1 ? std::string("2^40-1") : std::to_string(r.options.max_position)) +
            ", " + std::to_string(r.options.samples) + " random + " + std::to_string(r.edge_positions.size()) + " edge positions, " +
            std::to_string(accuracy::kKernelCheckHeads) + " input kinds";
  s.verdict = paths > 0 && passed && agree ? "holds" : "fails";
  s.expected = "holds";
  s.as_paper_states = s.verdict == s.expected;
  s.key_quantity = "max ulp (sampled lower bound) " + accuracy::fixed(max_ulps, 6) + " vs proved " + proved_bound_text(f);
  s.evidence = kEvidence;
  s.precision_bits = r.options.precision_bits;
  return s;
}

// --- speed ----------------------------------------------------------------------------------

constexpr std::int64_t kSpeedHeads = 32;
constexpr int kSpeedDim = 128;

struct SpeedRow {
  std::string dtype, implementation;
  std::int64_t tokens = 0;
  double bytes_moved = 0;
  double median_seconds = 0;
  double median_memcpy_seconds = 0;  // memcpy's, in the same repetitions
  double gb_per_s = 0;
  double ratio_to_memcpy = 0;        // median of memcpy's time / this one's within a pair: 1 = memory speed
};

// Tokens so that the input tensor is `bytes` (~32 MiB: beyond this machine's L2, and the output
// doubles it); the memcpy of the same bytes is the limit of an out-of-place pass.
template <typename E>
std::vector<SpeedRow> measure_speed(const kernel::RopePlan& plan, std::int64_t tokens, int repetitions, std::uint64_t seed) {
  using namespace kernel;
  const auto bytes = static_cast<std::size_t>(tokens * kSpeedHeads * kSpeedDim) * sizeof(E);
  // Ordinary activations, as the benchmark's (accuracy::fill_uniform).
  accuracy::TouchedBuffer in(bytes, 0), out(bytes, 0);
  accuracy::fill_uniform(reinterpret_cast<E*>(in.data()), bytes / sizeof(E), seed);
  std::vector<std::int64_t> positions(static_cast<std::size_t>(tokens));
  std::iota(positions.begin(), positions.end(), std::int64_t{0});
  const TensorView<const E> x = dense_view<const E>(reinterpret_cast<const E*>(in.data()), tokens, kSpeedHeads, kSpeedDim);
  const TensorView<E> y = dense_view<E>(reinterpret_cast<E*>(out.data()), tokens, kSpeedHeads, kSpeedDim);
  std::vector<std::string> names;
  std::vector<std::function<void()>> runs;
  for (cpu::Path p : cpu::available_paths()) {
    names.push_back("kernel " + cpu::path_name(p));
    runs.push_back([&, p] { apply_rope(plan, positions, x, y, KernelOptions{p, 1}); });
  }
  for (accuracy::Implementation b : accuracy::baselines()) {
    names.push_back("baseline " + accuracy::implementation_name(b));
    runs.push_back([&, b] { accuracy::apply_rope_baseline(b, plan, positions, x, y); });
  }
  // Interleaved repetitions (every implementation once per repetition, each timed in a pair with
  // memcpy of the same bytes between the baseline's own buffers, in a seeded random order,
  // accuracy/memory_speed.h): a slow phase of the shared machine then hits every implementation
  // and its baseline alike; medians over the repetitions.
  accuracy::MemcpyBaseline baseline(bytes);
  accuracy::PairOrders orders(seed);
  std::vector<std::vector<accuracy::PairTiming>> pairs(runs.size());
  for (int rep = 0; rep < repetitions; ++rep)
    for (std::size_t i = 0; i < runs.size(); ++i) pairs[i].push_back(accuracy::time_against_memcpy(baseline, runs[i], orders.next()));
  const double moved = 2.0 * static_cast<double>(bytes);  // read + written
  auto row_of = [&](const std::string& name, double median_seconds, double median_memcpy_seconds, double ratio) {
    SpeedRow row;
    row.dtype = dtype_name(dtype_of<E>);
    row.implementation = name;
    row.tokens = tokens;
    row.bytes_moved = moved;
    row.median_seconds = median_seconds;
    row.median_memcpy_seconds = median_memcpy_seconds;
    row.gb_per_s = accuracy::gb_per_s(moved, median_seconds);
    row.ratio_to_memcpy = ratio;
    return row;
  };
  // The memcpy row: the median of every pair's memcpy (its ratio to itself is 1).
  std::vector<double> all_memcpy;
  for (const auto& timings : pairs)
    for (const accuracy::PairTiming& t : timings) all_memcpy.push_back(t.memcpy_seconds);
  const double memcpy_median = accuracy::median(all_memcpy);
  std::vector<SpeedRow> rows = {row_of("memcpy", memcpy_median, memcpy_median, 1.0)};
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const accuracy::SpeedSummary s = accuracy::summarize_speed(pairs[i]);
    rows.push_back(row_of(names[i], s.median_seconds, s.median_memcpy_seconds, s.ratio_to_memcpy));
  }
  return rows;
}

}  // namespace

SectionResult kernel_section(const Context& context) {
  SectionResult section;
  section.key = "kernel";
  const kernel::RopePlan plan = default_plan();

  // Accuracy: deterministic, seeded.
  accuracy::KernelCheckOptions o;
  o.samples = samples_for(context.mode);
  o.seed = context.seed;
  o.threads = context.threads;
  log_line(context, "accuracy sweep, " + std::to_string(o.samples) + " random positions, every kernel dtype, " + std::to_string(cpu::available_paths().size()) +
                        " paths + 2 baselines against MPFR");
  const KernelCheckResult result = accuracy::run_kernel_check(plan, o);
  nlohmann::json evidence = accuracy::kernel_check_json(result);
  // The determinism contract: the time and the thread count (results do not depend on it) go to
  // timings; what stays is a pure function of (seed, mode, build).
  evidence.erase("seconds");
  evidence.erase("threads");
  section.data = evidence;
  section.timings["accuracy_seconds"] = result.seconds;
  section.timings["accuracy_threads"] = o.threads;
  section.artifacts.push_back({kEvidence, evidence.dump(2) + "\n", true});
  for (Dtype f : o.formats) section.summary.push_back(summary_row(result, f));
  section.figures.push_back(error_figure(result));
  section.as_paper_states = result.passed;

  // Speed: timings only. Input tensor 32 MiB in quick/full ([2048][32][128] f32, [4096][32][128]
  // for the 16-bit formats), 1 MiB in smoke; medians of 3 (quick), 5 (full), 1 (smoke) repetitions.
  const bool smoke = context.mode == Mode::smoke;
  const int repetitions = smoke ? 1 : context.mode == Mode::quick ? 3 : 5;
  const std::int64_t f32_tokens = smoke ? 64 : 2048, bf16_tokens = 2 * f32_tokens;  // bf16_tokens: every 16-bit format
  log_line(context, "speed, median of " + std::to_string(repetitions) + ", 1 thread");
  std::vector<SpeedRow> speed;
  for (std::size_t i = 0; i < kKernelDtypes.size(); ++i)
    with_storage(kKernelDtypes[i], [&](auto e) {
      using E = decltype(e);
      const std::int64_t tokens = sizeof(E) == 4 ? f32_tokens : bf16_tokens;
      for (const SpeedRow& row : measure_speed<E>(plan, tokens, repetitions, context.seed + i)) speed.push_back(row);
    });

  nlohmann::json speed_rows = nlohmann::json::array();
  std::string csv = "dtype,implementation,tokens,heads,dim,bytes_moved,repetitions,median_seconds,median_memcpy_seconds,gb_per_s,ratio_to_memcpy\n";
  std::vector<std::vector<std::string>> speed_table;
  for (const SpeedRow& row : speed) {
    speed_rows.push_back({{"dtype", row.dtype}, {"implementation", row.implementation}, {"tokens", row.tokens}, {"bytes_moved", row.bytes_moved},
                          {"median_seconds", row.median_seconds}, {"median_memcpy_seconds", row.median_memcpy_seconds},
                          {"gb_per_s", row.gb_per_s}, {"ratio_to_memcpy", row.ratio_to_memcpy}});
    csv += row.dtype + "," + row.implementation + "," + std::to_string(row.tokens) + "," + std::to_string(kSpeedHeads) + "," +
           std::to_string(kSpeedDim) + "," + csv_number(row.bytes_moved) + "," + std::to_string(repetitions) + "," +
           csv_number(row.median_seconds) + "," + csv_number(row.median_memcpy_seconds) + "," + csv_number(row.gb_per_s) + "," +
           csv_number(row.ratio_to_memcpy) + "\n";
    speed_table.push_back({row.implementation, row.dtype,
                           "[" + std::to_string(row.tokens) + "][" + std::to_string(kSpeedHeads) + "][" + std::to_string(kSpeedDim) + "]",
                           printf_string("%.3f", row.median_seconds * 1e3), printf_string("%.3f", row.median_memcpy_seconds * 1e3),
                           printf_string("%.2f", row.gb_per_s),
                           printf_string("%.2f", row.ratio_to_memcpy)});
  }
  section.timings["speed"] = {{"heads", kSpeedHeads}, {"dim", kSpeedDim}, {"threads", 1}, {"repetitions", repetitions}, {"summary", "median"},
                              {"pair_order_seed", context.seed},
                              {"layout", kernel::layout_name(plan.layout())}, {"rows", speed_rows}};
  section.artifacts.push_back({kSpeedCsv, csv, false});

  // Markdown.
  std::string md = "## The RoPE kernel\n\n";
  md += "The kernel's contract (kernel/apply_rope.h, proved in kernel/detail/ops.h and kernel/exact_rotation.h): every f32 and "
        "bf16 output is the correctly rounded value of the exact map (the input rotated by the exact angle p*g_k, times the attention "
        "factor), for every int64 position, near-cancellation outputs included: a fast path with a proved error bound, a rounding "
        "test, and an MPFR accurate path for the outputs the test cannot decide. The ulp figures below use the metric floored at "
        "2^-24 (f32) / 2^-8 (bf16) of the pair norm, kept for the baselines; the sweep below measures the same metric against MPFR (" +
        std::to_string(o.precision_bits) + " bits) on " + std::to_string(o.samples) + " random positions log-uniform in [0, 2^40-1] plus " +
        std::to_string(result.edge_positions.size()) + " edge positions, " + std::to_string(accuracy::kKernelCheckHeads) +
        " head vectors each (bit patterns, moderate values, near-cancellation pairs, edge values), seed " + std::to_string(o.seed) +
        ": its maxima are LOWER bounds (sampled). Same evidence as `ropecheck kernel-check --seed " + std::to_string(o.seed) + " --samples " +
        std::to_string(o.samples) + "` (`" + kEvidence + "`). The check " + (result.passed ? "passes" : "FAILS") + ".\n\n";
  md += accuracy_table(result) + "\n";
  for (const std::string& line : result.path_agreement) md += "- " + line + "\n";
  md += "\nMax absolute error at unit pair norm per position decade, moderate inputs (sampled: lower bounds; the kernel column is its best "
        "path, every path being bit-identical):\n\n";
  md += decade_table(result) + "\n";
  md += "Speed (timings, not results: this machine is shared): apply_rope on one thread against memcpy of the same number of bytes "
        "between its own two buffers in the same run (each repetition times memcpy and the implementation back to back, in an order "
        "drawn from SplitMix64 seeded with " + std::to_string(context.seed) + "), medians of " +
        std::to_string(repetitions) + " repetitions; GB/s counts bytes read + written; \"/ memcpy\" is the median of memcpy's time over the "
        "implementation's within a repetition (1 = memory speed; a busy phase slows both, so it can differ from the ratio of the "
        "medians). Raw numbers in `" + kSpeedCsv + "`.\n\n";
  md += markdown_table({"implementation", "dtype", "tensor [tokens][heads][dim]", "median time (ms)", "memcpy in its pairs (ms)", "GB/s", "/ memcpy"},
                       speed_table);
  section.markdown = md;
  return section;
}

}  // namespace ropecheck::report
