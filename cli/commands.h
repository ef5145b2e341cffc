// The gradconf subcommands, one file each; main.cpp only parses the command line.
#ifndef GRADCONF_CLI_COMMANDS_H_
#define GRADCONF_CLI_COMMANDS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/profile.h"

namespace gradconf::cli {

/// Process exit codes (README.md "Exit codes").
enum ExitCode : int {
  kExitOk = 0,              // the command did its job (replay: ran the case, whatever its status)
  kExitRuntimeFailure = 1,  // the runtime or the file system failed; the input was fine
  kExitBadInput = 2,        // usage error or a malformed case
  kExitCheckFailed = 3,     // check: a law failed, or a planted fault went unseen (or, with
                            // --strict, a clause is uncovered)
};

struct ReplayOptions {
  std::string case_dir;
  std::string out_dir;
  std::optional<SpecProfile> profile;  // overrides the case's profile
  std::optional<int> threads;          // gradconf::set_num_threads
  std::optional<int> repeat;           // time phase 2 this many times
};
int run_replay(const ReplayOptions& options);

struct ListOptions {
  bool json = false;
};
int run_list(const ListOptions& options);

struct CheckOptions {
  std::vector<std::string> ops, laws, dtypes;
  double budget_seconds = 60;
  uint64_t seed = 0;
  std::string out_dir;  // default reports/out/<timestamp>/
  bool self_test = true;
  bool progress = true;
  bool strict = false;
};
int run_check(const CheckOptions& options);

}  // namespace gradconf::cli

#endif  // GRADCONF_CLI_COMMANDS_H_
