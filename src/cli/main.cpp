// ropecheck: the command line. A thin layer over the library: parse flags, call, print.
// Exit codes: 0 success (verify, montecarlo, merge: every verdict as the paper states), 1 a verdict
// differs (kernel-check: a kernel path misses its accuracy goal; audit: --max-ulp exceeded; replay: a
// counterexample no longer breaks or is inconclusive; report: a verdict differs or a part is missing; report --compare: a change), 2 bad
// input (one line naming the input and its accepted range), 3 internal error; 130/143/129 when
// interrupted by SIGINT/SIGTERM/SIGHUP (every temporary removed first, io/temporaries.h).
#include <CLI/CLI.hpp>

#include <iostream>

#include "cli/apply_command.h"
#include "cli/audit_command.h"
#include "cli/finite_command.h"
#include "cli/flags.h"
#include "cli/fuzz_command.h"
#include "cli/kernel_check_command.h"
#include "cli/channels_command.h"
#include "cli/usage_command.h"
#include "cli/models_command.h"
#include "cli/montecarlo_command.h"
#include "cli/report_command.h"
#include "cli/spectrum_command.h"
#include "cli/verify_command.h"
#include "io/input_error.h"
#include "io/temporaries.h"
#include "io/version.h"

int main(int argc, char** argv) {
  using namespace ropecheck;
  // First, before any thread starts: an interrupt removes every temporary and exits 130/143.
  install_interrupt_cleanup();
  CLI::App app{"ropecheck: certified checks of the claims about Rotary Positional Encodings"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string(kToolName));

  cli::SpectrumCommand spectrum;
  cli::ModelsCommand models;
  cli::ChannelsCommand channels;
  cli::UsageCommand usage;
  cli::VerifyCommand verify;
  cli::ApplyCommand apply;
  cli::AuditCommand audit;
  cli::KernelCheckCommand kernel_check;
  cli::FiniteCommand finite;
  cli::MontecarloCommand montecarlo;
  cli::MergeCommand merge;
  cli::FuzzCommand fuzz;
  cli::ReplayCommand replay;
  cli::ReportCommand report;
  spectrum.attach(app);
  models.attach(app);
  channels.attach(app);
  usage.attach(app);
  verify.attach(app);
  apply.attach(app);
  audit.attach(app);
  kernel_check.attach(app);
  finite.attach(app);
  montecarlo.attach(app);
  merge.attach(app);
  fuzz.attach(app);
  replay.attach(app);
  report.attach(app);
  for (int i = 0; i < argc; ++i) report.command_line += (i ? " " : "") + std::string(argv[i]);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "ropecheck: " << e.what() << " (see ropecheck --help)\n";
    return 2;
  }

  try {
    if (spectrum.command->parsed()) return spectrum.run();
    if (models.command->parsed()) return models.run();
    if (channels.command->parsed()) return channels.run();
    if (usage.command->parsed()) return usage.run();
    if (verify.command->parsed()) return verify.run();
    if (apply.command->parsed()) return apply.run();
    if (audit.command->parsed()) return audit.run();
    if (kernel_check.command->parsed()) return kernel_check.run();
    if (finite.command->parsed()) return finite.run();
    if (montecarlo.command->parsed()) return montecarlo.run();
    if (merge.command->parsed()) return merge.run();
    if (fuzz.command->parsed()) return fuzz.run();
    if (replay.command->parsed()) return replay.run();
    if (report.command->parsed()) return report.run();
  } catch (const InputError& e) {
    std::cerr << "ropecheck: " << cli::cli_message(e) << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "ropecheck: internal error: " << e.what() << "\n";
    return 3;
  }
  return 2;
}
