// The report files of a campaign (reports/README.md documents them): summary.md, report.json
// (versioned schema), junit.xml and a self-contained report.html.
#ifndef GRADCONF_REPORTS_SRC_RENDER_H_
#define GRADCONF_REPORTS_SRC_RENDER_H_

#include <string>

#include "reports/src/campaign.h"

namespace gradconf::reports {

inline constexpr int kReportSchemaVersion = 4;

/// The project's own decisions (reports/errata.json) and the doc errata table (spec errata.md
/// rows, "| E-... |" lines), as shipped with the project.
struct Errata {
  std::string project_json;   ///< contents of reports/errata.json ("" when absent)
  std::string spec_markdown;  ///< contents of the spec's errata.md ("" when absent)
};

std::string render_markdown(const Campaign& campaign, const Errata& errata);
std::string render_json(const Campaign& campaign, const Errata& errata);
/// The campaign a report.json holds (what merge-reports reads); false with `error` set when the
/// text is not a report of this schema version.
bool campaign_from_json(const std::string& text, Campaign* campaign, std::string* error);
std::string render_junit(const Campaign& campaign);
std::string render_html(const Campaign& campaign, const Errata& errata);

/// Writes the four files into `dir` (created); false with `error` set when a write fails.
bool write_reports(const Campaign& campaign, const Errata& errata, const std::string& dir,
                   std::string* error);

}  // namespace gradconf::reports

#endif  // GRADCONF_REPORTS_SRC_RENDER_H_
