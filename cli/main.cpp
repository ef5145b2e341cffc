// gradconf: command-line front end of the conformance suite. Parses the command line and hands
// over to one subcommand (commands.h); exit codes are documented in README.md.
#include <CLI/CLI.hpp>
#include <iostream>
#include <sstream>

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
  check_command->add_option("--profile", check.profile, "Only cases of this spec profile")
      ->check(CLI::IsMember({"seed", "extended"}));
  check_command->add_option("--jobs", check.jobs, "Law bindings run side by side")
      ->check(CLI::Range(1, 256));
  std::string shard;
  check_command
      ->add_option("--shard", shard,
                   "I/N: run shard I (0-based) of N; merge-reports joins the shards")
      ->check([](const std::string& text) -> std::string {
        int i = 0, n = 0;
        char slash = 0;
        std::istringstream in(text);
        if (!(in >> i >> slash >> n) || slash != '/' || n < 1 || i < 0 || i >= n || !in.eof()) {
          return "expected I/N with 0 <= I < N";
        }
        return "";
      });

  gradconf::cli::MergeOptions merge;
  CLI::App* merge_command = app.add_subcommand(
      "merge-reports", "Join the report.json of check shards into the report of one run");
  merge_command->add_option("DIR", merge.dirs, "Report folders of the shards")->required();
  merge_command->add_option("--out", merge.out_dir, "Folder for the merged report")->required();

  gradconf::cli::ReproOptions repro;
  CLI::App* run_command =
      app.add_subcommand("run", "Re-run one case from its repro line against the reference");
  run_command->add_option("--repro", repro.line, "The repro line a law printed")->required();
  run_command->add_option("--worst", repro.worst, "Worst elements shown per output")
      ->check(CLI::Range(0, 1000));

  gradconf::cli::ExportOptions exporting;
  gradconf::cli::BenchOptions bench;
  CLI::App* bench_command = app.add_subcommand(
      "bench", "Time the registry's benchmark cases (or repro lines) on a backend");
  bench_command->add_option("--op", bench.ops, "Op families (default: all)");
  bench_command->add_option("--repro", bench.repro_lines, "Repro lines to time instead");
  bench_command->add_option("--backend", bench.backend, "Library implementing the aclnn C API");
  bench_command->add_option("--threads", bench.threads, "Kernel threads (several: one row each)")
      ->check(CLI::Range(1, 1024));
  bench_command->add_option("--repeats", bench.repeats, "Timed phase-2 runs per case")
      ->check(CLI::Range(1, 100000));
  bench_command->add_option("--json", bench.json_out, "Also write the results to this file");

  CLI::App* export_command = app.add_subcommand(
      "export", "Write golden case folders (inputs, expected outputs and status)");
  export_command->add_option("--op", exporting.ops, "Entries or op families")->required();
  export_command->add_option("--count", exporting.count, "Cases per entry")
      ->check(CLI::Range(1, 100000));
  export_command->add_option("--dtype", exporting.dtype, "f16, bf16, f32 or f64");
  export_command->add_option("--seed", exporting.seed, "Seed of the cases");
  export_command->add_flag("--edge", exporting.edge,
                           "Every other case at a clause boundary (either side)");
  export_command->add_option("--out", exporting.out_dir, "Folder for the case folders")->required();

  gradconf::cli::CompareOptions comparing;
  CLI::App* compare_command = app.add_subcommand(
      "compare", "Judge another implementation's replay outputs against exported cases");
  compare_command->add_option("CASES", comparing.cases_dir, "Folder of exported cases")->required();
  compare_command
      ->add_option("OUTS", comparing.outputs_dir, "Folder with one replay output folder per case")
      ->required();
  compare_command->add_option("--out", comparing.report_dir, "Report folder");

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
    if (!shard.empty()) {
      char slash = 0;
      std::istringstream(shard) >> check.shard_index >> slash >> check.shard_count;
    }
    return gradconf::cli::run_check(check);
  }
  if (*merge_command) return gradconf::cli::run_merge(merge);
  if (*run_command) return gradconf::cli::run_repro(repro);
  if (*bench_command) return gradconf::cli::run_bench(bench);
  if (*export_command) return gradconf::cli::run_export(exporting);
  if (*compare_command) return gradconf::cli::run_compare(comparing);
  return kExitBadInput;
}
