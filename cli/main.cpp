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
  return kExitBadInput;
}
