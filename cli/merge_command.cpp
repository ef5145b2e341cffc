// gradconf merge-reports DIR...: the report of a campaign run as shards (check --shard I/N), or
// in parts (rounds of a resumed campaign), from their report.json files, written as the four
// report files of one run.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/commands.h"
#include "reports/src/render.h"

namespace gradconf::cli {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

std::optional<reports::Campaign> merge_report_dirs(const MergeOptions& options, bool skip_missing,
                                                   std::string* error) {
  std::vector<reports::Campaign> parts;
  for (const std::string& dir : options.dirs) {
    const std::string path = dir + "/report.json";
    if (skip_missing && !std::filesystem::exists(path)) continue;
    reports::Campaign part;
    std::string why;
    if (!reports::campaign_from_json(read_text(path), &part, &why)) {
      *error = path + ": " + why;
      return std::nullopt;
    }
    parts.push_back(std::move(part));
  }
  const reports::Campaign merged = reports::merge_campaigns(parts);
  const reports::Errata errata{read_text(GRADCONF_SOURCE_DIR "/reports/errata.json"),
                               read_text(GRADCONF_SOURCE_DIR "/reports/spec_errata.md")};
  if (!reports::write_reports(merged, errata, options.out_dir, error)) return std::nullopt;
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
