// gradconf trend REPORT.json|DIR... --out DIR: trend.md and trend.html over a series of campaign
// reports (a folder is searched for report.json files; shard folders are left to their merged
// report).
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/commands.h"
#include "cli/report_files.h"
#include "reports/src/render.h"
#include "reports/src/trend.h"

namespace gradconf::cli {
namespace fs = std::filesystem;
namespace {

std::vector<fs::path> report_files(const std::vector<std::string>& paths) {
  std::vector<fs::path> files;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (!fs::is_directory(p, ec)) {
      files.emplace_back(p);
      continue;
    }
    for (auto it = fs::recursive_directory_iterator(p, ec);
         it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_directory() && it->path().filename() == "shards") {
        it.disable_recursion_pending();
        continue;
      }
      if (it->path().filename() == "report.json") files.push_back(it->path());
    }
  }
  return files;
}

bool write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  return static_cast<bool>(out.flush());
}

}  // namespace

int run_trend(const TrendOptions& options) {
  std::vector<reports::TrendPoint> series;
  for (const fs::path& file : report_files(options.reports)) {
    reports::TrendPoint point;
    std::string error;
    if (!read_report(file.string(), &point.campaign, &error)) {
      std::cerr << "gradconf trend: " << error << "\n";
      return kExitBadInput;
    }
    point.label = file.parent_path().filename().string();
    series.push_back(std::move(point));
  }
  if (series.empty()) {
    std::cerr << "gradconf trend: no report.json found\n";
    return kExitBadInput;
  }
  reports::order_trend(series);
  std::error_code ec;
  fs::create_directories(options.out_dir, ec);
  if (ec ||
      !write_text(fs::path(options.out_dir) / "trend.md", reports::render_trend_markdown(series)) ||
      !write_text(fs::path(options.out_dir) / "trend.html", reports::render_trend_html(series))) {
    std::cerr << "gradconf trend: cannot write into " << options.out_dir << "\n";
    return kExitRuntimeFailure;
  }
  std::cout << "gradconf trend: " << series.size() << " reports; trend.md and trend.html in "
            << options.out_dir << "\n";
  return kExitOk;
}

}  // namespace gradconf::cli
