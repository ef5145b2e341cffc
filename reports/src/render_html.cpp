// report.html: one self-contained page (inline CSS and SVG, no script, no network): the verdict,
// the op x law x profile x dtype matrix, plots, planted faults, traceability and errata.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "reports/src/render.h"
#include "reports/src/render_detail.h"

namespace gradconf::reports {
namespace {

using namespace detail;  // NOLINT: the renderers' shared vocabulary

// Plots: small inline SVG, no script, no network.

/// Horizontal bars, one per (label, value), longest = full width.
std::string svg_bars(const std::vector<std::pair<std::string, double>>& bars,
                     const std::string& unit) {
  constexpr int kRow = 16, kLabel = 260, kWidth = 300;
  double max = 0;
  for (const auto& [label, v] : bars) max = std::max(max, v);
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
      "font-size=\"11\">",
      kLabel + kWidth + 80, kRow * static_cast<int>(bars.size()) + 4);
  int y = 0;
  for (const auto& [label, v] : bars) {
    const double w = max > 0 ? kWidth * v / max : 0;
    svg += fmt::format(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text><rect x=\"{}\" y=\"{}\" "
        "width=\"{:.1f}\" height=\"{}\" fill=\"#5b8fd6\"/><text x=\"{:.1f}\" "
        "y=\"{}\">{:.4g}{}</text>",
        kLabel - 4, y + 12, html_escape(label), kLabel, y + 3, w, kRow - 5, kLabel + w + 4, y + 12,
        v, unit);
    y += kRow;
  }
  return svg + "</svg>";
}

/// One op x dtype error distribution: cases per ULP bin, the tolerance as a dashed red line.
std::string svg_error_histogram(const ErrorHistogram& h) {
  constexpr int kBar = 9, kHeight = 90, kLeft = 4, kTop = 18;
  int max = 0, total = 0;
  for (int n : h.bins) max = std::max(max, n), total += n;
  const int width = kLeft + kBar * kUlpBins + 8;
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\" width=\"{}\" "
      "height=\"{}\" font-size=\"10\"><text x=\"2\" y=\"12\">{} {} ({} cases)</text>",
      width, kTop + kHeight + 26, html_escape(h.entry), html_escape(h.dtype), total);
  for (int k = 0; k < kUlpBins; ++k) {
    const int n = h.bins[static_cast<size_t>(k)];
    // Square-root scale: a bin of a few cases stays visible next to a bin of thousands.
    const double bar = max > 0 ? kHeight * std::sqrt(static_cast<double>(n) / max) : 0;
    svg += fmt::format(
        "<rect x=\"{}\" y=\"{:.1f}\" width=\"{}\" height=\"{:.1f}\" fill=\"{}\"><title>"
        "{}: {} cases</title></rect>",
        kLeft + k * kBar, kTop + kHeight - bar, kBar - 1, bar, k == 0 ? "#6fbf73" : "#5b8fd6",
        k == 0 ? std::string("exact") : fmt::format("below 2^{} ULP", k - 8), n);
  }
  // Bin k covers [2^(k-9), 2^(k-8)) ULP: the tolerance sits at k = log2(tol) + 9.
  if (h.tolerance_ulps > 0) {
    const double x =
        kLeft + kBar * std::clamp(std::log2(h.tolerance_ulps) + 9.0, 1.0, double(kUlpBins));
    svg += fmt::format(
        "<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#d33\" "
        "stroke-dasharray=\"3,2\"/><text x=\"{0:.1f}\" y=\"{3}\" fill=\"#d33\" "
        "text-anchor=\"middle\">rtol {4:.3g} ULP</text>",
        x, kTop, kTop + kHeight, kTop + kHeight + 22, h.tolerance_ulps);
  }
  svg += fmt::format(
      "<text x=\"{}\" y=\"{}\">0</text><text x=\"{}\" y=\"{}\" "
      "text-anchor=\"end\">2^16 ULP</text></svg>",
      kLeft, kTop + kHeight + 11, width - 2, kTop + kHeight + 11);
  return svg;
}

/// "<entry>.<law>[.<variant>]" -> "<law>[.<variant>]".
std::string law_of(const std::string& binding) {
  const auto dot = binding.find('.');
  return dot == std::string::npos ? binding : binding.substr(dot + 1);
}

/// Margins of every bounded law: one row per (law binding, dtype), one shaded cell per margin bin.
std::string render_margins(const Campaign& c) {
  std::string h =
      "<h2>Margins of the bounded laws (|error| / bound, per case)</h2><p><small>Every case of "
      "a law that holds its numbers to a bound (matches_reference, dtype_agreement, "
      "adjoint_identity, finite_differences, linear_in_incoming_gradient, batch_split sums): "
      "its worst |error| / bound, binned by powers of two from 2^-24 to 1; darker = more "
      "cases.</small></p><table id=\"margin-plots\"><tr><th>law</th><th>dtype</th><th>0</th>";
  for (int k = 1; k < kMarginBins; ++k) {
    h += k == kMarginBins - 1 ? std::string("<th>&ge;1</th>")
                              : fmt::format("<th><small>2^{}</small></th>", k - 25);
  }
  h += "</tr>";
  for (const MarginHistogram& m : c.margins) {
    int max = 0;
    for (int n : m.bins) max = std::max(max, n);
    h += "<tr><td>" + html_escape(m.law) + "</td><td>" + html_escape(m.dtype) + "</td>";
    for (int k = 0; k < kMarginBins; ++k) {
      const int n = m.bins[static_cast<size_t>(k)];
      const double shade = max > 0 ? std::sqrt(static_cast<double>(n) / max) : 0;
      const bool over = k == kMarginBins - 1 && n > 0;
      h += fmt::format("<td title=\"{} cases\" style=\"background:rgba({},{:.2f})\">{}</td>", n,
                       over ? "211,51,51" : "91,143,214", n > 0 ? 0.15 + 0.85 * shade : 0.0,
                       n > 0 ? std::to_string(n) : "");
    }
    h += "</tr>";
  }
  return h + "</table>";
}

std::string render_plots(const Campaign& c) {
  std::string h =
      "<h2>Error distribution (relative error in ULPs of the dtype, per case)</h2>"
      "<p><small>Per matches_reference case: max |got - expected| / max(|expected|, "
      "atol/rtol), in units of the dtype's epsilon, binned by powers of two; the "
      "dashed line is the dtype's rtol (the bound is atol + rtol |expected|).</small>"
      "</p><div id=\"error-plots\">";
  for (const ErrorHistogram& e : c.errors) h += svg_error_histogram(e);
  h += "</div>" + render_margins(c) +
       "<h2>Parameter-space coverage (cases per generator tag)</h2><div "
       "id=\"coverage-plots\">";
  for (const auto& [family, tags] : c.coverage) {
    std::vector<std::pair<std::string, double>> bars;
    for (const auto& [tag, n] : tags) bars.emplace_back(tag, n);
    h += "<h3>" + html_escape(family) + "</h3>" + svg_bars(bars, "");
  }
  std::map<std::string, double> per_law;
  for (const Cell& cell : c.cells) per_law[law_of(cell.law)] += cell.seconds;
  std::vector<std::pair<std::string, double>> bars(per_law.begin(), per_law.end());
  h += "</div><h2>Time per law (all ops and dtypes)</h2><div id=\"time-plot\">" +
       svg_bars(bars, " s") + "</div>";
  return h;
}

std::string html_head(const Campaign& c) {
  std::string h =
      "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>gradconf "
      "conformance report</title><style>body{font:14px system-ui,sans-serif;margin:24px;color:"
      "#222}table{border-collapse:collapse;margin:8px 0 24px}td,th{border:1px solid #ccc;"
      "padding:3px 8px;text-align:left}th{background:#f3f3f3}.PASSED{background:#cdeccd}"
      ".FAILED{background:#f5b5b5;font-weight:bold}.MISTRUSTED{background:#f8e7a6}"
      ".SKIPPED{background:#e8e8e8;color:#777}.UNCOVERED{background:#f5b5b5}.verdict{font-size:"
      "20px}small{color:#666}</style></head><body>";
  h += fmt::format(
      "<h1>gradconf conformance report</h1><p>Backend judged: <code>{}</code>{}</p><p "
      "class=\"verdict\">Verdict: <span class=\"{}\">{}</span></p><p>{} cells, {} cases per law "
      "binding, seed {}, budget {:.0f} s, ran {:.1f} s.</p>",
      html_escape(c.options.backend.empty() ? "linked" : c.options.backend),
      c.options.against.empty()
          ? ""
          : " compared case by case with <code>" + html_escape(c.options.against) +
                "</code> (law matches_backend)",
      c.failed() ? "FAILED" : "PASSED", c.failed() ? "FAILED" : "PASSED", c.cells.size(),
      cases_per_binding_text(c), c.options.seed, c.options.budget_seconds, c.seconds);
  return h;
}

std::string html_profiles() {
  std::string h =
      "<h2>Spec profiles</h2><table id=\"profiles\"><tr><th>profile</th><th>implements</th>"
      "</tr>";
  for (SpecProfile p : implemented_profiles()) {
    h += "<tr><td>" + html_escape(std::string(profile_name(p))) + "</td><td>" +
         html_escape(std::string(profile_description(p))) + "</td></tr>";
  }
  return h + "</table>";
}

// One matrix cell: its status, cases and margin, the rest in its tooltip.
std::string matrix_cell(const Cell* cell) {
  if (!cell) return "<td class=\"SKIPPED\">-</td>";
  const std::string status(cell_status_name(cell->status()));
  std::string title = fmt::format("{} cases; compared {}; worst error/bound {}; max rel {}",
                                  cell->cases, compared_text(*cell), margin_text(*cell),
                                  bounded_number(*cell, cell->max_rel_error));
  if (cell->has_mere) title += "; MERE / MARE " + mere_text(*cell);
  if (cell->mistrusted > 0) title += "; mistrusted: " + cell->mistrust_reason;
  return fmt::format("<td class=\"{}\" title=\"{}\">{} <small>{} &middot; {}</small></td>", status,
                     html_escape(title), status, cell->cases, html_escape(margin_text(*cell)));
}

std::string html_matrix(const Campaign& c) {
  const auto dtypes = dtypes_of(c);
  std::string h =
      "<h2>Matrix: op &times; law &times; profile &times; dtype</h2><table "
      "id=\"matrix\"><tr><th>op</th><th>law</th><th>profile</th>";
  for (const auto& d : dtypes) h += "<th>" + html_escape(d) + "</th>";
  h += "</tr>";
  for (const MatrixRow& row : rows_of(c)) {
    h += "<tr><td>" + html_escape(row.entry) + "</td><td>" + html_escape(row.law) + "</td><td>" +
         html_escape(row.profile) + "</td>";
    for (const auto& d : dtypes) h += matrix_cell(find_cell(c, row, d));
    h += "</tr>";
  }
  return h + "</table>";
}

std::string html_failures(const Campaign& c) {
  std::string h = "<h2>Failures</h2><ul>";
  for (const Cell& cell : c.cells) {
    for (const auto& f : cell.failures) {
      h += "<li><b>" + html_escape(cell.law + " / " + cell.dtype) + "</b>: <code>" +
           html_escape(f) + "</code></li>";
    }
  }
  return h + "</ul>";
}

std::string html_faults(const Campaign& c) {
  std::string h =
      "<h2>Planted faults</h2><table id=\"faults\"><tr><th>op</th><th>fault</th><th>law"
      "</th><th>caught</th><th>cases</th></tr>";
  for (const FaultCheck& f : c.faults) {
    h += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"{}\">{}</td><td>{}</td>"
        "</tr>",
        html_escape(f.family), html_escape(f.fault), html_escape(f.law),
        f.caught ? "PASSED" : "FAILED", f.caught ? "yes" : "NO", f.attempts);
  }
  return h + "</table>";
}

std::string html_traceability(const Campaign& c) {
  std::string h = fmt::format(
      "<h2>Traceability ({} clauses, {} uncovered)</h2><table "
      "id=\"traceability\"><tr><th>clause</th><th>source</th><th>condition</th>"
      "<th>valid side</th><th>invalid side</th></tr>",
      c.clauses.size(), uncovered(c));
  for (const ClauseRow& r : c.clauses) {
    h += fmt::format(
        "<tr class=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "</tr>",
        r.covered() ? "" : "UNCOVERED", html_escape(r.id), html_escape(r.source),
        html_escape(r.condition), r.valid_cases, r.invalid_cases);
  }
  return h + "</table>";
}

std::string html_errata(const Errata& errata) {
  std::string h =
      "<h2>Errata: the project's decisions</h2><table id=\"errata\"><tr><th>id</th>"
      "<th>op</th><th>summary</th></tr>";
  auto rows = [&](std::string_view kind) {
    for (const nlohmann::json& e : errata_of_kind(errata, kind)) {
      h += "<tr><td>" + html_escape(e.value("id", "")) + "</td><td>" +
           html_escape(e.value("op", "")) + "</td><td>" + html_escape(e.value("summary", "")) +
           "</td></tr>";
    }
  };
  rows("decision");
  h += "</table><h2>Known deviations of implementations this suite judged</h2><table "
       "id=\"deviations\"><tr><th>id</th><th>op</th><th>summary</th></tr>";
  rows("implementation-deviation");
  h += "</table><h2>Errata: the seed documents</h2><table><tr><th>id</th><th>op</th><th>seed says"
       "</th><th>decision</th></tr>";
  for (const auto& row : spec_errata(errata)) {
    if (row.size() < 5) continue;
    h += "<tr><td>" + html_escape(row[0]) + "</td><td>" + html_escape(row[1]) + "</td><td>" +
         html_escape(row[2]) + "</td><td>" + html_escape(row[4]) + "</td></tr>";
  }
  return h + "</table>";
}

}  // namespace

std::string render_html(const Campaign& c, const Errata& errata) {
  return html_head(c) + html_profiles() + html_matrix(c) + render_plots(c) + html_failures(c) +
         html_faults(c) + html_traceability(c) + html_errata(errata) + "</body></html>\n";
}

}  // namespace gradconf::reports
