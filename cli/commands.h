// The gradconf subcommands, one file each; main.cpp only parses the command line.
#ifndef GRADCONF_CLI_COMMANDS_H_
#define GRADCONF_CLI_COMMANDS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/profile.h"
#include "reports/src/campaign.h"

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
  std::string backend;                 // a library implementing the C API (default: linked)
  bool fine_split = false;             // with threads: the laws' split (gradconfSetFineSplit)
};
int run_replay(const ReplayOptions& options);

struct ListOptions {
  bool json = false;
};
int run_list(const ListOptions& options);

struct CheckOptions {
  std::vector<std::string> ops, laws, skipped_laws, dtypes;
  std::string profile;         // "seed" or "extended"; empty: both
  double budget_seconds = 60;  // wall clock to spend
  int cases = 0;               // > 0: one round of this many cases per binding instead
  std::string replay;          // a report.json whose campaign (options, rounds) is rerun
  uint64_t seed = 0;
  int jobs = 1;
  int shard_index = 0, shard_count = 1;
  std::string out_dir;  // default reports/out/<timestamp>/
  bool self_test = true;
  bool progress = true;
  bool strict = false;
  std::string backend;  // a library implementing the C API (default: the linked one)
  std::string against;  // compared with case by case (matches_backend); "linked": ours
};
int run_check(const CheckOptions& options);

struct MergeOptions {
  std::vector<std::string> dirs;  // report folders of the shards
  std::string out_dir;
};
int run_merge(const MergeOptions& options);
/// The shards' (or parts') reports merged and written to options.out_dir; nullopt and `error`
/// when one cannot be read or the reports cannot be written. skip_missing: a folder without a
/// report.json yet (a shard still in its first round) is left out.
std::optional<reports::Campaign> merge_report_dirs(const MergeOptions& options, bool skip_missing,
                                                   std::string* error);

struct TrendOptions {
  std::vector<std::string> reports;  // report.json files or folders holding them
  std::string out_dir;
};
int run_trend(const TrendOptions& options);

struct BenchOptions {
  std::vector<std::string> ops;          // op families (default: all)
  std::vector<std::string> repro_lines;  // instead of the registry's cases
  std::string backend;                   // a library implementing the C API (default: linked)
  std::string against;                   // also timed on this one, side by side ("linked": ours)
  std::vector<int> threads;              // kernel threads per run (default: the backend's)
  int repeats = 5;                       // timed phase-2 runs per case, at least
  double min_seconds = 0.2;              // and more until this much phase 2 was timed
  std::string json_out;                  // also write the results as JSON
  bool limits = true;                    // measure the machine's limits (share-of-limit column)
};
int run_bench(const BenchOptions& options);

struct ReproOptions {
  std::string line;
  int worst = 5;        // worst elements printed per output
  std::string backend;  // a library implementing the C API (default: the linked one)
};
int run_repro(const ReproOptions& options);

struct ExportOptions {
  std::vector<std::string> ops;          // entries or families
  std::vector<std::string> repro_lines;  // instead: one case per problem repro line
  int count = 10;                        // cases per entry
  std::string dtype;                     // "f32", ...; empty: as drawn
  uint64_t seed = 0;
  bool edge = false;  // every other case a boundary case (valid or invalid side)
  std::string out_dir;
};
int run_export(const ExportOptions& options);

struct CompareOptions {
  std::string cases_dir;    // exported case folders
  std::string outputs_dir;  // <case name>/status.json and outputs, as replay writes them
  std::string report_dir;   // default reports/out/compare-<time>
};
int run_compare(const CompareOptions& options);

}  // namespace gradconf::cli

#endif  // GRADCONF_CLI_COMMANDS_H_
