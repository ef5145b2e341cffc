#include "reports/src/trend.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <tuple>

#include "reports/src/render_detail.h"

namespace gradconf::reports {
namespace {

using detail::html_escape;
using detail::md_cell;

// A cell across the series: (law binding, profile, dtype), in the order first seen.
using CellKey = std::tuple<std::string, std::string, std::string>;

struct CellHistory {
  CellKey key;
  int64_t cases = 0;
  std::optional<size_t> first_failure;  ///< index in the series
  /// Per report: the cell there (nullopt when that campaign did not run it).
  std::vector<std::optional<Cell>> at;
};

std::vector<CellHistory> histories(const std::vector<TrendPoint>& series) {
  std::vector<CellHistory> all;
  std::map<CellKey, size_t> index;
  for (size_t r = 0; r < series.size(); ++r) {
    for (const Cell& cell : series[r].campaign.cells) {
      const CellKey key{cell.law, cell.profile, cell.dtype};
      auto [it, added] = index.try_emplace(key, all.size());
      if (added)
        all.push_back({key, 0, std::nullopt, std::vector<std::optional<Cell>>(series.size())});
      CellHistory& h = all[it->second];
      h.at[r] = cell;
      h.cases += cell.cases;
      if (cell.status() == CellStatus::kFailed && !h.first_failure) h.first_failure = r;
    }
  }
  return all;
}

std::string margin_text(const std::optional<Cell>& cell) {
  if (!cell || cell->worst_repro.empty()) return "-";
  return fmt::format("{:.3g}", cell->worst_error_over_bound);
}

std::string status_text(const std::optional<Cell>& cell) {
  return cell ? std::string(cell_status_name(cell->status())) : "not run";
}

// Margins on a log scale from 1e-6 to 10 (the bound, 1, as a dashed line); a failed report's
// point red.
std::string margin_svg(const CellHistory& h) {
  constexpr double kWidth = 240, kHeight = 48, kLow = -6, kHigh = 1;
  const size_t n = h.at.size();
  const auto x_of = [&](size_t r) {
    return n > 1 ? 4 + (kWidth - 8) * static_cast<double>(r) / static_cast<double>(n - 1)
                 : kWidth / 2;
  };
  const auto y_of = [&](double margin) {
    const double v = std::clamp(std::log10(std::max(margin, 1e-300)), kLow, kHigh);
    return kHeight - 4 - (kHeight - 8) * (v - kLow) / (kHigh - kLow);
  };
  std::string svg = fmt::format(
      "<svg width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\"><line x1=\"0\" x2=\"{0}\" "
      "y1=\"{2:.1f}\" y2=\"{2:.1f}\" stroke=\"#c00\" stroke-dasharray=\"3,3\"/>",
      kWidth, kHeight, y_of(1));
  std::string points;
  std::string dots;
  for (size_t r = 0; r < n; ++r) {
    const auto& cell = h.at[r];
    if (!cell || cell->worst_repro.empty()) continue;
    const double x = x_of(r), y = y_of(cell->worst_error_over_bound);
    points += fmt::format("{:.1f},{:.1f} ", x, y);
    dots += fmt::format(
        "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2.5\" fill=\"{}\"><title>{}: {}</title></circle>",
        x, y, cell->status() == CellStatus::kFailed ? "#c00" : "#246", r + 1, margin_text(cell));
  }
  if (!points.empty()) {
    svg += "<polyline fill=\"none\" stroke=\"#246\" points=\"" + points + "\"/>";
  }
  return svg + dots + "</svg>";
}

}  // namespace

void order_trend(std::vector<TrendPoint>& series) {
  std::stable_sort(series.begin(), series.end(), [](const TrendPoint& a, const TrendPoint& b) {
    return std::tie(a.campaign.started_at, a.label) < std::tie(b.campaign.started_at, b.label);
  });
}

std::string render_trend_markdown(const std::vector<TrendPoint>& series) {
  std::string md = fmt::format(
      "# gradconf trend over {} reports\n\n| # | report | started | verdict | cells | failed | "
      "cases per binding |\n|---|---|---|---|---|---|---|\n",
      series.size());
  for (size_t r = 0; r < series.size(); ++r) {
    const Campaign& c = series[r].campaign;
    int failed = 0;
    for (const Cell& cell : c.cells) failed += cell.status() == CellStatus::kFailed;
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", r + 1, md_cell(series[r].label),
                      c.started_at, c.failed() ? "FAILED" : "PASSED", c.cells.size(), failed,
                      cases_per_binding_text(c));
  }
  md +=
      "\n## Cells\n\nMargin: the cell's worst error / bound in each report (1 is the bound; "
      "- where it compared nothing bounded or did not run).\n\n| law | profile | dtype | "
      "cases | first failed in | latest | margin by report |\n|---|---|---|---|---|---|---|\n";
  for (const CellHistory& h : histories(series)) {
    std::string margins;
    for (const auto& cell : h.at) margins += (margins.empty() ? "" : " ") + margin_text(cell);
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", std::get<0>(h.key),
                      std::get<1>(h.key), std::get<2>(h.key), h.cases,
                      h.first_failure ? fmt::format("#{} {}", *h.first_failure + 1,
                                                    md_cell(series[*h.first_failure].label))
                                      : "-",
                      status_text(h.at.back()), margins);
  }
  return md;
}

std::string render_trend_html(const std::vector<TrendPoint>& series) {
  std::string h =
      "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>gradconf trend"
      "</title><style>body{font:14px system-ui,sans-serif;margin:24px;color:#222}table{border-"
      "collapse:collapse;margin:8px 0 24px}td,th{border:1px solid #ccc;padding:3px 8px;text-"
      "align:left}th{background:#f3f3f3}.FAILED{background:#f5b5b5;font-weight:bold}.PASSED{"
      "background:#cdeccd}</style></head><body>";
  h += fmt::format(
      "<h1>gradconf trend over {} reports</h1><table id=\"reports\"><tr><th>#</th>"
      "<th>report</th><th>started</th><th>verdict</th><th>cells</th></tr>",
      series.size());
  for (size_t r = 0; r < series.size(); ++r) {
    const Campaign& c = series[r].campaign;
    const char* verdict = c.failed() ? "FAILED" : "PASSED";
    h += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"{}\">{}</td><td>{}</td></tr>", r + 1,
        html_escape(series[r].label), html_escape(c.started_at), verdict, verdict, c.cells.size());
  }
  h += "</table><h2>Cells</h2><p><small>Margin (worst error / bound) per report on a log scale "
       "from 1e-6 to 10; the dashed line is the bound; red points failed.</small></p><table "
       "id=\"cells\"><tr><th>law</th><th>profile</th><th>dtype</th><th>cases</th><th>first "
       "failed in</th><th>latest</th><th>margin</th></tr>";
  for (const CellHistory& c : histories(series)) {
    const std::string latest = status_text(c.at.back());
    h += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"{}\">{}</td><td>{}"
        "</td></tr>",
        html_escape(std::get<0>(c.key)), html_escape(std::get<1>(c.key)),
        html_escape(std::get<2>(c.key)), c.cases,
        c.first_failure ? fmt::format("#{} {}", *c.first_failure + 1,
                                      html_escape(series[*c.first_failure].label))
                        : "-",
        latest, latest, margin_svg(c));
  }
  return h + "</table></body></html>\n";
}

}  // namespace gradconf::reports
