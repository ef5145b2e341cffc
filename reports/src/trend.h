// Trends over a series of campaigns (nightly reports): per cell, the cases accumulated, the
// first report in which it failed, its status in the latest, and its margin (worst error / bound)
// report by report, so an accuracy regression shows before it crosses the bound.
#ifndef GRADCONF_REPORTS_SRC_TREND_H_
#define GRADCONF_REPORTS_SRC_TREND_H_

#include <string>
#include <vector>

#include "reports/src/campaign.h"

namespace gradconf::reports {

/// One report of the series: its campaign and the name it is shown by (its folder).
struct TrendPoint {
  std::string label;
  Campaign campaign;
};

/// The series ordered by each campaign's start time (label for ties).
void order_trend(std::vector<TrendPoint>& series);

std::string render_trend_markdown(const std::vector<TrendPoint>& series);
/// Self-contained HTML: the same table with an inline SVG line of the margin per cell.
std::string render_trend_html(const std::vector<TrendPoint>& series);

}  // namespace gradconf::reports

#endif  // GRADCONF_REPORTS_SRC_TREND_H_
