// The report files the commands read: a campaign's report.json and the errata every report
// prints (check, merge-reports, trend, compare).
#ifndef GRADCONF_CLI_REPORT_FILES_H_
#define GRADCONF_CLI_REPORT_FILES_H_

#include <string>

#include "reports/src/campaign.h"
#include "reports/src/render.h"

namespace gradconf::cli {

/// The errata shipped with the project: reports/errata.json and the spec's errata table.
reports::Errata shipped_errata();

/// The campaign the report.json at `path` holds; false, with "PATH: why" in `error`, when the
/// file cannot be read or is not a report of this schema.
bool read_report(const std::string& path, reports::Campaign* campaign, std::string* error);

}  // namespace gradconf::cli

#endif  // GRADCONF_CLI_REPORT_FILES_H_
