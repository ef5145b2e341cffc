#include "cli/report_files.h"

#include <fstream>
#include <sstream>

namespace gradconf::cli {
namespace {

// The whole file ("" when it cannot be read: the errata are optional, a report is then not JSON).
std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

reports::Errata shipped_errata() {
  return {read_text(GRADCONF_SOURCE_DIR "/reports/errata.json"),
          read_text(GRADCONF_SOURCE_DIR "/reports/spec_errata.md")};
}

bool read_report(const std::string& path, reports::Campaign* campaign, std::string* error) {
  std::string why;
  if (reports::campaign_from_json(read_text(path), campaign, &why)) return true;
  *error = path + ": " + why;
  return false;
}

}  // namespace gradconf::cli
