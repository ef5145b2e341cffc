// gradconf: command-line front end of the conformance suite. Parses the command line and hands
// over to one subcommand (commands.h); exit codes are documented in README.md. Each add_* function
// declares one subcommand's options and returns what runs it once the line is parsed.
#include <CLI/CLI.hpp>
#include <functional>
#include <iostream>
#include <memory>
#include <sstream>
#include <utility>
#include <vector>

#include "cli/commands.h"
#include "reports/src/campaign.h"

namespace {

namespace cli = gradconf::cli;
using Runner = std::function<int()>;
/// A subcommand and what runs it once the line is parsed.
using Command = std::pair<CLI::App*, Runner>;

Command add_replay(CLI::App& app) {
  auto options = std::make_shared<cli::ReplayOptions>();
  auto profile = std::make_shared<std::string>();
  auto threads = std::make_shared<int>(0), repeat = std::make_shared<int>(0);
  CLI::App* c = app.add_subcommand(
      "replay",
      "Run a case folder through the C API; write OUT_DIR/status.json and one .npy per "
      "output");
  c->add_option("CASE_DIR", options->case_dir, "Folder holding case.json and inputs")->required();
  c->add_option("--out", options->out_dir, "Folder for status.json and outputs")->required();
  CLI::Option* profile_option =
      c->add_option("--profile", *profile, "Override the case's spec profile")
          ->check(CLI::IsMember({"seed", "extended", "cann-latest"}));
  CLI::Option* threads_option =
      c->add_option("--threads", *threads, "Kernel threads (default: all cores)")
          ->check(CLI::Range(1, 4096));
  CLI::Option* repeat_option =
      c->add_option("--repeat", *repeat,
                    "Time phase 2 N times and print one JSON line with the median")
          ->check(CLI::Range(1, 1000000));
  c->add_option("--backend", options->backend,
                "Library implementing the aclnn C API (default: the linked one)");
  c->add_flag("--fine-split", options->fine_split,
              "With --threads: split even small calls across the threads, as the laws do "
              "(default: the backend's own split, what a user who sets the thread count gets)");
  return {c, [=] {
            if (*profile_option) options->profile = gradconf::parse_profile(*profile);
            if (*threads_option) options->threads = *threads;
            if (*repeat_option) options->repeat = *repeat;
            return cli::run_replay(*options);
          }};
}

Command add_list(CLI::App& app) {
  auto options = std::make_shared<cli::ListOptions>();
  CLI::App* c = app.add_subcommand("list", "Print the ops replay knows");
  c->add_flag("--json", options->json, "Print one JSON array instead of one line per op");
  return {c, [=] { return cli::run_list(*options); }};
}

// "I/N" with 0 <= I < N, or "" when the text is one.
std::string shard_error(const std::string& text) {
  int i = 0, n = 0;
  char slash = 0;
  std::istringstream in(text);
  if (!(in >> i >> slash >> n) || slash != '/' || n < 1 || i < 0 || i >= n || !in.eof()) {
    return "expected I/N with 0 <= I < N";
  }
  return "";
}

Command add_check(CLI::App& app) {
  auto options = std::make_shared<cli::CheckOptions>();
  auto flags = std::make_shared<std::pair<bool, bool>>(false, false);  // no self-test, progress
  auto shard = std::make_shared<std::string>();
  CLI::App* c = app.add_subcommand(
      "check",
      "Run every law of every selected op under a time budget; write summary.md, report.json, "
      "junit.xml and report.html");
  c->add_option("--op", options->ops, "Op families or entries (default: all)");
  c->add_option("--law", options->laws, "Laws (default: all)");
  c->add_option("--skip-law", options->skipped_laws,
                "Laws to leave out, e.g. host_fork_under_load (48 forks per case) in a quick run");
  c->add_option("--dtype", options->dtypes, "f16, bf16, f32, f64 (default: all)");
  c->add_option_function<std::string>(
       "--budget",
       [options](const std::string& text) {
         options->budget_seconds = *gradconf::reports::parse_duration(text);
       },
       "Wall clock to spend: 90, 90s, 20m or 8h (rounds of fresh cases until it is spent)")
      ->check([](const std::string& text) {
        const auto seconds = gradconf::reports::parse_duration(text);
        return seconds && *seconds <= 1e7 ? std::string() : "expected 90, 90s, 20m or 8h";
      });
  c->add_option("--cases", options->cases,
                "Instead of the clock: one round of N cases per law binding")
      ->check(CLI::Range(1, 1000000));
  c->add_option("--replay", options->replay,
                "Rerun the campaign a report.json records (its options, seed and rounds)");
  c->add_option("--seed", options->seed, "Seed of the cases");
  c->add_option("--out", options->out_dir, "Report folder (default reports/out/<time>)");
  c->add_flag("--no-self-test", flags->first, "Skip the planted-fault self-test");
  c->add_flag("--no-progress", flags->second, "No progress lines on stderr");
  c->add_flag("--strict", options->strict, "Also fail when a clause is uncovered");
  c->add_option("--profile", options->profile, "Only cases of this spec profile")
      ->check(CLI::IsMember({"seed", "extended", "cann-latest"}));
  c->add_option("--backend", options->backend,
                "Library implementing the aclnn C API to judge (default: the linked one)");
  c->add_option("--against", options->against,
                "Also compare it case by case with this library ('linked': ours), law "
                "matches_backend");
  c->add_option("--jobs", options->jobs, "Law bindings run side by side")
      ->check(CLI::Range(1, 256));
  c->add_option("--shard", *shard,
                "I/N: run shard I (0-based) of N; merge-reports joins the shards")
      ->check(shard_error);
  return {c, [=] {
            options->self_test = !flags->first;
            options->progress = !flags->second;
            if (!shard->empty()) {
              char slash = 0;
              std::istringstream(*shard) >> options->shard_index >> slash >> options->shard_count;
            }
            return cli::run_check(*options);
          }};
}

Command add_merge(CLI::App& app) {
  auto options = std::make_shared<cli::MergeOptions>();
  CLI::App* c = app.add_subcommand(
      "merge-reports", "Join the report.json of check shards into the report of one run");
  c->add_option("DIR", options->dirs, "Report folders of the shards")->required();
  c->add_option("--out", options->out_dir, "Folder for the merged report")->required();
  return {c, [=] { return cli::run_merge(*options); }};
}

Command add_trend(CLI::App& app) {
  auto options = std::make_shared<cli::TrendOptions>();
  CLI::App* c = app.add_subcommand(
      "trend", "Write trend.md and trend.html over a series of campaign reports (nightly runs)");
  c->add_option("REPORT", options->reports, "report.json files, or folders holding them")
      ->required();
  c->add_option("--out", options->out_dir, "Folder for trend.md and trend.html")->required();
  return {c, [=] { return cli::run_trend(*options); }};
}

Command add_run(CLI::App& app) {
  auto options = std::make_shared<cli::ReproOptions>();
  CLI::App* c =
      app.add_subcommand("run", "Re-run one case from its repro line against the reference");
  c->add_option("--repro", options->line, "The repro line a law printed")->required();
  c->add_option("--worst", options->worst, "Worst elements shown per output")
      ->check(CLI::Range(0, 1000));
  c->add_option("--backend", options->backend, "Library implementing the aclnn C API");
  return {c, [=] { return cli::run_repro(*options); }};
}

Command add_bench(CLI::App& app) {
  auto options = std::make_shared<cli::BenchOptions>();
  CLI::App* c = app.add_subcommand(
      "bench", "Time the registry's benchmark cases (or repro lines) on a backend");
  c->add_option("--op", options->ops, "Op families (default: all)");
  c->add_option("--repro", options->repro_lines, "Repro lines to time instead");
  c->add_option("--backend", options->backend, "Library implementing the aclnn C API");
  c->add_option("--against", options->against,
                "Also time each case on this library ('linked': ours), with the ratio");
  c->add_option("--threads", options->threads, "Kernel threads (several: one row each)")
      ->check(CLI::Range(1, 1024));
  c->add_option("--repeats", options->repeats, "Timed phase-2 runs per case, at least")
      ->check(CLI::Range(1, 100000));
  c->add_option("--min-time", options->min_seconds,
                "Seconds of timed phase 2 per case: short cases run more (default 0.2)")
      ->check(CLI::Range(0.0, 3600.0));
  c->add_option("--json", options->json_out, "Also write the results to this file");
  c->add_flag("!--no-limits", options->limits,
              "Skip measuring the machine's bandwidth and GEMM peak (about 2 s)");
  return {c, [=] { return cli::run_bench(*options); }};
}

Command add_export(CLI::App& app) {
  auto options = std::make_shared<cli::ExportOptions>();
  CLI::App* c = app.add_subcommand(
      "export", "Write golden case folders (inputs, expected outputs and status)");
  CLI::Option* ops = c->add_option("--op", options->ops, "Entries or op families");
  CLI::Option* repro =
      c->add_option("--repro", options->repro_lines, "Problem repro lines, one case each");
  ops->excludes(repro);
  c->callback([ops, repro] {
    if (!*ops && !*repro) throw CLI::RequiredError("--op or --repro");
  });
  c->add_option("--count", options->count, "Cases per entry")->check(CLI::Range(1, 100000));
  c->add_option("--dtype", options->dtype, "f16, bf16, f32 or f64");
  c->add_option("--seed", options->seed, "Seed of the cases");
  c->add_flag("--edge", options->edge, "Every other case at a clause boundary (either side)");
  c->add_option("--out", options->out_dir, "Folder for the case folders")->required();
  return {c, [=] { return cli::run_export(*options); }};
}

Command add_compare(CLI::App& app) {
  auto options = std::make_shared<cli::CompareOptions>();
  CLI::App* c = app.add_subcommand(
      "compare", "Judge another implementation's replay outputs against exported cases");
  c->add_option("CASES", options->cases_dir, "Folder of exported cases")->required();
  c->add_option("OUTS", options->outputs_dir, "Folder with one replay output folder per case")
      ->required();
  c->add_option("--out", options->report_dir, "Report folder");
  return {c, [=] { return cli::run_compare(*options); }};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gradconf: conformance suite for Ascend aclnn backward operators"};
  app.require_subcommand(1);
  std::vector<Command> commands;
  for (auto add : {add_replay, add_list, add_check, add_merge, add_trend, add_run, add_bench,
                   add_export, add_compare}) {
    commands.push_back(add(app));
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return app.exit(error) == 0 ? cli::kExitOk : cli::kExitBadInput;
  }
  for (const auto& [command, run] : commands) {
    if (*command) return run();
  }
  return cli::kExitBadInput;
}
