// gradconf check: a conformance campaign over the registry (reports/src/campaign.h) and its four
// report files.
#include <chrono>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/commands.h"
#include "harness/backend.h"
#include "reports/src/render.h"

namespace gradconf::cli {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string default_out_dir() {
  const std::time_t now = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::gmtime(&now));
  return std::string("reports/out/") + stamp;
}

}  // namespace

int run_check(const CheckOptions& options) {
  reports::CampaignOptions campaign_options;
  campaign_options.ops = options.ops;
  campaign_options.laws = options.laws;
  campaign_options.dtypes = options.dtypes;
  campaign_options.budget_seconds = options.budget_seconds;
  campaign_options.seed = options.seed;
  campaign_options.planted_library = options.self_test ? GRADCONF_PLANTED_LIBRARY : "";
  campaign_options.progress = options.progress;
  const reports::Campaign campaign =
      reports::run_campaign(campaign_options, props::Backend::linked());
  const reports::Errata errata{read_file(GRADCONF_SOURCE_DIR "/reports/errata.json"),
                               read_file(GRADCONF_SOURCE_DIR "/reports/spec_errata.md")};
  const std::string out = options.out_dir.empty() ? default_out_dir() : options.out_dir;
  std::string error;
  if (!reports::write_reports(campaign, errata, out, &error)) {
    std::cerr << "gradconf check: " << error << "\n";
    return kExitRuntimeFailure;
  }
  int uncovered = 0;
  for (const auto& row : campaign.clauses) uncovered += row.covered() ? 0 : 1;
  int failed = 0;
  for (const auto& cell : campaign.cells) failed += cell.status() == reports::CellStatus::kFailed;
  int missed = 0;
  for (const auto& f : campaign.faults) missed += f.caught ? 0 : 1;
  std::cout << "gradconf check: " << campaign.cells.size() << " cells, " << failed << " failed, "
            << missed << " planted faults missed, " << uncovered << " clauses uncovered; "
            << "reports in " << out << "\n";
  if (campaign.failed()) return kExitCheckFailed;
  if (options.strict && uncovered > 0) return kExitCheckFailed;
  return kExitOk;
}

}  // namespace gradconf::cli
