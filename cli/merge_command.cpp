// gradconf merge-reports DIR...: the report of a campaign run as shards (check --shard I/N), or
// in parts (rounds of a resumed campaign), from their report.json files, written as the four
// report files of one run.
#include <filesystem>
#include <iostream>

#include "cli/commands.h"
#include "cli/report_files.h"
#include "reports/src/render.h"

namespace gradconf::cli {

std::optional<reports::Campaign> merge_report_dirs(const MergeOptions& options, bool skip_missing,
                                                   std::string* error) {
  std::vector<reports::Campaign> parts;
  for (const std::string& dir : options.dirs) {
    const std::string path = dir + "/report.json";
    if (skip_missing && !std::filesystem::exists(path)) continue;
    reports::Campaign part;
    if (!read_report(path, &part, error)) return std::nullopt;
    parts.push_back(std::move(part));
  }
  const reports::Campaign merged = reports::merge_campaigns(parts);
  if (!reports::write_reports(merged, shipped_errata(), options.out_dir, error))
    return std::nullopt;
  return merged;
}

int run_merge(const MergeOptions& options) {
  std::string error;
  const auto merged = merge_report_dirs(options, false, &error);
  if (!merged) {
    std::cerr << "gradconf merge-reports: " << error << "\n";
    return error.find("report.json") != std::string::npos ? kExitBadInput : kExitRuntimeFailure;
  }
  std::cout << "gradconf merge-reports: " << options.dirs.size() << " reports, "
            << merged->cells.size() << " cells; reports in " << options.out_dir << "\n";
  return merged->failed() ? kExitCheckFailed : kExitOk;
}

}  // namespace gradconf::cli
