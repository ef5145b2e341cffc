// gradconf: command-line front end of the conformance suite. Parses the command line and hands
// over to one subcommand (commands.h); exit codes are documented in README.md.
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/commands.h"

int main(int argc, char** argv) {
  using gradconf::cli::kExitBadInput;
  using gradconf::cli::kExitOk;

  CLI::App app{"gradconf: conformance suite for Ascend aclnn backward operators"};
  app.require_subcommand(1);

  gradconf::cli::ReplayOptions replay;
  std::string profile;
  int threads = 0;
  int repeat = 0;
  CLI::App* replay_command =
      app.add_subcommand("replay",
                         "Run a case folder through the C API; write OUT_DIR/status.json "
                         "and one .npy per output");
  replay_command->add_option("CASE_DIR", replay.case_dir, "Folder holding case.json and inputs")
      ->required();
  replay_command->add_option("--out", replay.out_dir, "Folder for status.json and outputs")
      ->required();
  CLI::Option* profile_option =
      replay_command->add_option("--profile", profile, "Override the case's spec profile")
          ->check(CLI::IsMember({"seed", "extended"}));
  CLI::Option* threads_option =
      replay_command->add_option("--threads", threads, "Kernel threads (default: all cores)")
          ->check(CLI::Range(1, 4096));
  CLI::Option* repeat_option =
      replay_command
          ->add_option("--repeat", repeat,
                       "Time phase 2 N times and print one JSON line with the median")
          ->check(CLI::Range(1, 1000000));

  gradconf::cli::ListOptions list;
  CLI::App* list_command = app.add_subcommand("list", "Print the ops replay knows");
  list_command->add_flag("--json", list.json, "Print one JSON array instead of one line per op");

  gradconf::cli::CheckOptions check;
  bool no_self_test = false, no_progress = false;
  CLI::App* check_command = app.add_subcommand(
      "check",
      "Run every law of every selected op under a time budget; write summary.md, "
      "report.json, junit.xml and report.html");
  check_command->add_option("--op", check.ops, "Op families or entries (default: all)");
  check_command->add_option("--law", check.laws, "Laws (default: all)");
  check_command->add_option("--dtype", check.dtypes, "f16, bf16, f32, f64 (default: all)");
  check_command
      ->add_option("--budget", check.budget_seconds,
                   "Seconds for the campaign (sets "
                   "the case count)")
      ->check(CLI::Range(1.0, 1e7));
  check_command->add_option("--seed", check.seed, "Seed of the cases");
  check_command->add_option("--out", check.out_dir, "Report folder (default reports/out/<time>)");
  check_command->add_flag("--no-self-test", no_self_test, "Skip the planted-fault self-test");
  check_command->add_flag("--no-progress", no_progress, "No progress lines on stderr");
  check_command->add_flag("--strict", check.strict, "Also fail when a clause is uncovered");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return app.exit(error) == 0 ? kExitOk : kExitBadInput;
  }

  if (*replay_command) {
    if (*profile_option) replay.profile = gradconf::parse_profile(profile);
    if (*threads_option) replay.threads = threads;
    if (*repeat_option) replay.repeat = repeat;
    return gradconf::cli::run_replay(replay);
  }
  if (*list_command) return gradconf::cli::run_list(list);
  if (*check_command) {
    check.self_test = !no_self_test;
    check.progress = !no_progress;
    return gradconf::cli::run_check(check);
  }
  return kExitBadInput;
}
