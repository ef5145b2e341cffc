// gradconf check: a conformance campaign over the registry (reports/src/campaign.h) and its four
// report files.
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <string_view>
#include <thread>

#include "cli/backend_option.h"
#include "cli/commands.h"
#include "cli/report_files.h"
#include "harness/backend.h"
#include "reports/src/render.h"

namespace gradconf::cli {
namespace {

std::string default_out_dir() {
  const std::time_t now = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::gmtime(&now));
  return std::string("reports/out/") + stamp;
}

// "gradconf check: N cells, F failed, ...; reports in OUT" on stdout; returns the uncovered
// clauses.
int print_verdict_line(const reports::Campaign& campaign, const std::string& out) {
  int uncovered = 0;
  for (const auto& row : campaign.clauses) uncovered += row.covered() ? 0 : 1;
  int failed = 0;
  for (const auto& cell : campaign.cells) failed += cell.status() == reports::CellStatus::kFailed;
  int missed = 0;
  for (const auto& f : campaign.faults) missed += f.caught ? 0 : 1;
  std::cout << "gradconf check: " << campaign.cells.size() << " cells, " << failed << " failed, "
            << missed << " planted faults missed, " << uncovered << " clauses uncovered; "
            << cases_per_binding_text(campaign) << " cases per binding in "
            << campaign.rounds.size() << " rounds, " << static_cast<int>(campaign.seconds)
            << " s; reports in " << out << "\n";
  return uncovered;
}

}  // namespace

/// Set for the shard processes of `--jobs`: the pid of the check that started them.
constexpr std::string_view kJobsParentVariable = "GRADCONF_JOBS_PARENT";

/// A shard of `--jobs` ends with the process that started it (killed, or interrupted: Ctrl-C in a
/// terminal reaches the whole group, a CI system's kill may reach the parent only), rather than
/// running on for the rest of its budget. Its report stays as of its last round.
void follow_jobs_parent() {
  const char* parent = std::getenv(std::string(kJobsParentVariable).c_str());
  if (!parent) return;
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  // The parent may have died before the line above: then this process was re-parented.
  if (std::to_string(getppid()) != parent) _exit(kExitRuntimeFailure);
}

/// How often `--jobs` rewrites the merged report from the shards' while they run.
constexpr std::chrono::seconds kMergeEvery{10};

namespace {

/// This process's environment with kJobsParentVariable set to this process: the shards learn who
/// started them, so that they end with it (follow_jobs_parent).
std::vector<std::string> shard_environment() {
  const std::string key = std::string(kJobsParentVariable) + "=";
  std::vector<std::string> environment = {key + std::to_string(getpid())};
  for (char** e = environ; *e; ++e) {
    if (!std::string_view(*e).starts_with(key)) environment.emplace_back(*e);
  }
  return environment;
}

/// The command line of shard `index`: this check's options, with the shard's own --shard and
/// --out.
std::vector<std::string> shard_arguments(const CheckOptions& options, const std::string& self,
                                         int index, const std::string& dir) {
  std::vector<std::string> args = {
      self,           "check",
      "--budget",     std::to_string(options.budget_seconds),
      "--seed",       std::to_string(options.seed),
      "--shard",      std::to_string(index) + "/" + std::to_string(options.jobs),
      "--out",        dir,
      "--no-progress"};
  if (options.cases > 0) args.insert(args.end(), {"--cases", std::to_string(options.cases)});
  if (!options.replay.empty()) args.insert(args.end(), {"--replay", options.replay});
  auto add_list = [&](const char* flag, const std::vector<std::string>& values) {
    if (values.empty()) return;
    args.push_back(flag);
    args.insert(args.end(), values.begin(), values.end());
  };
  add_list("--op", options.ops);
  add_list("--law", options.laws);
  add_list("--skip-law", options.skipped_laws);
  add_list("--dtype", options.dtypes);
  if (!options.profile.empty()) args.insert(args.end(), {"--profile", options.profile});
  if (!options.self_test) args.push_back("--no-self-test");
  if (!options.backend.empty()) args.insert(args.end(), {"--backend", options.backend});
  if (!options.against.empty()) args.insert(args.end(), {"--against", options.against});
  return args;
}

/// Waits for every shard; true when each wrote its report (exit 0, or 3: something failed).
/// Meanwhile the merged report is rewritten every kMergeEvery, as the shards rewrite theirs after
/// every round, so that a killed campaign leaves the report of what its shards had run.
bool wait_for_shards(std::vector<pid_t> children, const MergeOptions& merge) {
  bool all_ran = true;
  size_t running = children.size();
  auto last_merge = std::chrono::steady_clock::now();
  while (running > 0) {
    for (pid_t& pid : children) {
      int status = 0;
      if (pid == 0 || waitpid(pid, &status, WNOHANG) != pid) continue;
      all_ran = all_ran && WIFEXITED(status) &&
                (WEXITSTATUS(status) == kExitOk || WEXITSTATUS(status) == kExitCheckFailed);
      pid = 0;
      --running;
    }
    if (running == 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    if (std::chrono::steady_clock::now() - last_merge > kMergeEvery) {
      std::string ignored;
      merge_report_dirs(merge, /*skip_missing=*/true, &ignored);
      last_merge = std::chrono::steady_clock::now();
    }
  }
  return all_ran;
}

/// The merged campaign as one process would report it: its verdict line (each shard's line tells
/// a part: a clause one shard left uncovered, another may cover) and its exit code, with --strict
/// judging the merged clauses.
int judge_merged(const CheckOptions& options, const MergeOptions& merge) {
  std::string error;
  const std::optional<reports::Campaign> whole =
      merge_report_dirs(merge, /*skip_missing=*/false, &error);
  if (!whole) {
    std::cerr << "gradconf check: " << error << "\n";
    return error.find("report.json") != std::string::npos ? kExitBadInput : kExitRuntimeFailure;
  }
  const int uncovered = print_verdict_line(*whole, merge.out_dir);
  if (whole->failed()) return kExitCheckFailed;
  if (options.strict && uncovered > 0) return kExitCheckFailed;
  return kExitOk;
}

}  // namespace

/// --jobs N: N shard processes of this binary (check --shard i/N into OUT/shards/i), then their
/// reports merged into OUT: the report of one run, whatever N.
int run_check_in_processes(const CheckOptions& options, const std::string& out) {
  char self[4096];
  const ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
  if (length <= 0) {
    std::cerr << "gradconf check: cannot find this executable for --jobs\n";
    return kExitRuntimeFailure;
  }
  self[length] = 0;
  std::vector<std::string> environment = shard_environment();
  std::vector<char*> envp;
  for (auto& e : environment) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<pid_t> children;
  MergeOptions merge;
  merge.out_dir = out;
  for (int i = 0; i < options.jobs; ++i) {
    const std::string dir = out + "/shards/" + std::to_string(i);
    std::vector<std::string> args = shard_arguments(options, self, i, dir);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    if (posix_spawn(&pid, self, nullptr, nullptr, argv.data(), envp.data()) != 0) {
      std::cerr << "gradconf check: cannot start shard " << i << "\n";
      return kExitRuntimeFailure;
    }
    children.push_back(pid);
    merge.dirs.push_back(dir);
  }
  if (options.progress) std::cerr << "gradconf check: " << options.jobs << " shard processes\n";
  if (!wait_for_shards(std::move(children), merge)) {
    std::cerr << "gradconf check: a shard process failed\n";
    return kExitRuntimeFailure;
  }
  return judge_merged(options, merge);
}

namespace {

/// The campaign `--replay FILE` reruns: its options, seed, self-test and rounds into `options`
/// (the backends stay the command line's). False, with a message, when it cannot.
bool load_replay(CheckOptions& options, std::vector<reports::Round>& rounds) {
  reports::Campaign recorded;
  std::string error;
  if (!read_report(options.replay, &recorded, &error)) {
    std::cerr << "gradconf check: --replay " << error << "\n";
    return false;
  }
  if (!recorded.options.against.empty() && options.against.empty()) {
    std::cerr << "gradconf check: --replay: the campaign compared with " << recorded.options.against
              << "; give --against again\n";
    return false;
  }
  options.ops = recorded.options.ops;
  options.laws = recorded.options.laws;
  options.skipped_laws = recorded.options.skipped_laws;
  options.dtypes = recorded.options.dtypes;
  options.profile = recorded.options.profile;
  options.seed = recorded.options.seed;
  options.budget_seconds = recorded.options.budget_seconds;
  options.self_test = !recorded.faults.empty();
  rounds = recorded.rounds;
  int shards = 1;
  for (const reports::Round& r : rounds) shards = std::max(shards, r.shard + 1);
  // A campaign of N shards replays as N shards: each binding runs where it ran.
  if (shards > 1 && options.shard_count <= 1) options.jobs = shards;
  return true;
}

}  // namespace

int run_check(const CheckOptions& given) {
  follow_jobs_parent();
  CheckOptions options = given;
  std::vector<reports::Round> replayed;
  if (!options.replay.empty() && !load_replay(options, replayed)) return kExitBadInput;
  if (options.jobs > 1) {
    if (options.shard_count > 1) {
      std::cerr << "gradconf check: --jobs runs shards itself; give --jobs or --shard\n";
      return kExitBadInput;
    }
    return run_check_in_processes(options,
                                  options.out_dir.empty() ? default_out_dir() : options.out_dir);
  }
  reports::CampaignOptions campaign_options;
  campaign_options.ops = options.ops;
  campaign_options.laws = options.laws;
  campaign_options.skipped_laws = options.skipped_laws;
  campaign_options.dtypes = options.dtypes;
  campaign_options.profile = options.profile;
  campaign_options.shard_index = options.shard_index;
  campaign_options.shard_count = options.shard_count;
  campaign_options.budget_seconds = options.budget_seconds;
  campaign_options.fixed_cases = options.cases;
  for (const reports::Round& r : replayed) {
    if (r.shard == options.shard_index) campaign_options.replay.push_back(r);
  }
  if (!options.replay.empty() && campaign_options.replay.empty()) {
    std::cerr << "gradconf check: --replay: no round of shard " << options.shard_index << "\n";
    return kExitBadInput;
  }
  campaign_options.seed = options.seed;
  campaign_options.planted_library = options.self_test ? GRADCONF_PLANTED_LIBRARY : "";
  campaign_options.progress = options.progress;
  auto chosen = backend_option(options.backend, "check");
  if (!chosen) return kExitBadInput;
  if (!options.against.empty()) {
    const auto against = backend_option(options.against, "check");
    if (!against) return kExitBadInput;
    campaign_options.against = against->description();
    chosen = chosen->judged_against(against);
  }
  const props::Backend& backend = *chosen;
  campaign_options.backend = backend.description();
  const reports::Errata errata = shipped_errata();
  const std::string out = options.out_dir.empty() ? default_out_dir() : options.out_dir;
  // Rewritten after every round: a killed campaign leaves the report of the rounds it finished.
  std::string error;
  campaign_options.after_round = [&](const reports::Campaign& so_far) {
    if (!reports::write_reports(so_far, errata, out, &error)) {
      std::cerr << "gradconf check: " << error << "\n";
    }
  };
  const reports::Campaign campaign = reports::run_campaign(campaign_options, backend);
  if (!reports::write_reports(campaign, errata, out, &error)) {
    std::cerr << "gradconf check: " << error << "\n";
    return kExitRuntimeFailure;
  }
  const int uncovered = print_verdict_line(campaign, out);
  if (campaign.failed()) return kExitCheckFailed;
  if (options.strict && uncovered > 0) return kExitCheckFailed;
  return kExitOk;
}

}  // namespace gradconf::cli
