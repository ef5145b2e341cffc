// gradconf merge-reports DIR...: the report of a campaign run as shards (check --shard I/N), from
// their report.json files, written as the four report files of one run.
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

int run_merge(const MergeOptions& options) {
  std::vector<reports::Campaign> parts;
  for (const std::string& dir : options.dirs) {
    reports::Campaign part;
    std::string error;
    if (!reports::campaign_from_json(read_text(dir + "/report.json"), &part, &error)) {
      std::cerr << "gradconf merge-reports: " << dir << "/report.json: " << error << "\n";
      return kExitBadInput;
    }
    parts.push_back(std::move(part));
  }
  const reports::Campaign merged = reports::merge_campaigns(parts);
  const reports::Errata errata{read_text(GRADCONF_SOURCE_DIR "/reports/errata.json"),
                               read_text(GRADCONF_SOURCE_DIR "/reports/spec_errata.md")};
  std::string error;
  if (!reports::write_reports(merged, errata, options.out_dir, &error)) {
    std::cerr << "gradconf merge-reports: " << error << "\n";
    return kExitRuntimeFailure;
  }
  std::cout << "gradconf merge-reports: " << parts.size() << " reports, " << merged.cells.size()
            << " cells; reports in " << options.out_dir << "\n";
  return merged.failed() ? kExitCheckFailed : kExitOk;
}

}  // namespace gradconf::cli
