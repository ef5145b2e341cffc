#include "reports/src/render.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <pugixml.hpp>
#include <set>
#include <sstream>

namespace gradconf::reports {
namespace {

using nlohmann::json;

std::string html_escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string md_cell(std::string_view text) {
  std::string out;
  for (char c : text)
    out += c == '|' ? std::string("\\|") : c == '\n' ? std::string(" ") : std::string(1, c);
  return out;
}

json project_errata(const Errata& errata) {
  if (errata.project_json.empty()) return json::array();
  const json parsed = json::parse(errata.project_json, nullptr, false);
  if (parsed.is_discarded() || !parsed.contains("entries")) return json::array();
  return parsed["entries"];
}

// "| E-NSA-1 | op | seed says | evidence | decision |" rows of the spec's errata table.
std::vector<std::vector<std::string>> spec_errata(const Errata& errata) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(errata.spec_markdown);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("| E-", 0) != 0) continue;
    std::vector<std::string> cells;
    std::string cell;
    for (size_t i = 1; i < line.size(); ++i) {
      if (line[i] == '|') {
        const auto b = cell.find_first_not_of(' '), e = cell.find_last_not_of(' ');
        cells.push_back(b == std::string::npos ? "" : cell.substr(b, e - b + 1));
        cell.clear();
      } else {
        cell += line[i];
      }
    }
    rows.push_back(cells);
  }
  return rows;
}

std::vector<std::string> dtypes_of(const Campaign& c) {
  std::set<std::string> set;
  for (const Cell& cell : c.cells) set.insert(cell.dtype);
  return {set.begin(), set.end()};
}

// One matrix row: a law binding under one spec profile.
struct MatrixRow {
  std::string entry, law, profile;
  bool operator==(const MatrixRow&) const = default;
};

// (entry, law, profile) rows in campaign order.
std::vector<MatrixRow> rows_of(const Campaign& c) {
  std::vector<MatrixRow> rows;
  for (const Cell& cell : c.cells) {
    const MatrixRow key{cell.entry, cell.law, cell.profile};
    if (std::find(rows.begin(), rows.end(), key) == rows.end()) rows.push_back(key);
  }
  return rows;
}

const Cell* find_cell(const Campaign& c, const MatrixRow& row, const std::string& dtype) {
  for (const Cell& cell : c.cells) {
    if (cell.law == row.law && cell.profile == row.profile && cell.dtype == dtype) return &cell;
  }
  return nullptr;
}

// What each profile is, for the reader of a report: the spec's README §4 and Changes.
std::string profiles_markdown() {
  std::string md = "## Spec profiles\n\n| profile | implements |\n|---|---|\n";
  for (SpecProfile p : implemented_profiles())
    md += fmt::format("| {} | {} |\n", profile_name(p), profile_description(p));
  return md + "\n";
}

int uncovered(const Campaign& c) {
  int n = 0;
  for (const ClauseRow& r : c.clauses) n += r.covered() ? 0 : 1;
  return n;
}

// What a cell compared, e.g. "12.3k bounded, 4.1k exact, 96 checks".
std::string compared_text(const Cell& cell) {
  auto count = [](int64_t n) {
    return n >= 10000 ? fmt::format("{:.1f}k", static_cast<double>(n) / 1000) : std::to_string(n);
  };
  std::vector<std::string> parts;
  if (cell.bounded_elements > 0) parts.push_back(count(cell.bounded_elements) + " bounded");
  if (cell.exact_elements > 0) parts.push_back(count(cell.exact_elements) + " exact");
  if (cell.checks > 0) parts.push_back(count(cell.checks) + " checks");
  if (parts.empty()) return "nothing";
  std::string text = parts[0];
  for (size_t i = 1; i < parts.size(); ++i) text += ", " + parts[i];
  return text;
}

// The worst margin in words: "37% of bound", "exact" (bitwise laws), "checks only", or "not
// measured"; never a bare 0.
std::string margin_text(const Cell& cell) {
  if (cell.bounded_elements > 0) {
    if (cell.worst_error_over_bound == 0) return "0 (every element exact)";
    return fmt::format("{:.3g}% of bound", 100 * cell.worst_error_over_bound);
  }
  if (cell.exact_elements > 0) return "exact (bitwise)";
  if (cell.checks > 0) return "checks only";
  return "not measured";
}

// A measured 0 says what it means: every compared element was exact.
std::string bounded_number(const Cell& cell, double value) {
  if (cell.bounded_elements == 0) return "-";
  return value == 0 ? std::string("0 (exact)") : fmt::format("{:.3g}", value);
}

std::string mere_text(const Cell& cell) {
  if (!cell.has_mere) return "-";
  if (cell.mere_threshold == 0) {
    // The older standard sets no T for this dtype (float64): the measured figures, unjudged.
    if (cell.mere == 0 && cell.mare == 0) return "0 / 0 (exact; no T for this dtype)";
    return fmt::format("{:.2g} / {:.2g} (no T for this dtype)", cell.mere, cell.mare);
  }
  const bool holds = cell.mere < cell.mere_threshold && cell.mare < 10 * cell.mere_threshold;
  return fmt::format("{:.2g} / {:.2g} (T {:.2g}, {})", cell.mere, cell.mare, cell.mere_threshold,
                     holds ? "holds" : "over");
}

// Seconds per cell; a cell faster than the printed resolution is said so, not printed as 0.
std::string seconds_text(double seconds) {
  return seconds < 0.005 ? std::string("<0.01") : fmt::format("{:.2f}", seconds);
}

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

}  // namespace

std::string render_markdown(const Campaign& c, const Errata& errata) {
  std::string md = fmt::format(
      "# gradconf conformance report\n\nVerdict: **{}**. {} cells, {} cases per law binding, "
      "seed {}, budget {:.0f} s, ran {:.1f} s.\n\n",
      c.failed() ? "FAILED" : "PASSED", c.cells.size(), c.cases_per_cell, c.options.seed,
      c.options.budget_seconds, c.seconds);
  md +=
      "## Laws (op x dtype x law)\n\nCompared: elements held to a bound, compared bit for bit "
      "(exact), and checks that are not numbers (statuses, messages, canaries, child processes). "
      "Worst error / bound: the worst case's margin (its repro line is under \"Worst cases\"). "
      "Max rel: |error| / max(|expected|, atol/rtol). MERE / MARE: the older CANN standard, "
      "passing when MERE < T and MARE < 10 T.\n\n| op | law | profile | dtype | status | cases "
      "| compared | worst error / bound | max abs | max rel | MERE / MARE | time s |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const Cell& cell : c.cells) {
    std::string cases = std::to_string(cell.cases);
    if (cell.discarded > 0) cases += fmt::format(" ({} discarded)", cell.discarded);
    md += fmt::format(
        "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", cell.entry, cell.law,
        cell.profile, cell.dtype, cell_status_name(cell.status()), cases, compared_text(cell),
        margin_text(cell), bounded_number(cell, cell.max_abs_error),
        bounded_number(cell, cell.max_rel_error), mere_text(cell), seconds_text(cell.seconds));
  }
  md += "\n" + profiles_markdown();
  md += "## Worst cases (the bounded cells' closest case to its bound)\n\n";
  for (const Cell& cell : c.cells) {
    if (cell.worst_repro.empty()) continue;
    md += fmt::format("- {} / {}: {}: `{}`\n", cell.law, cell.dtype, margin_text(cell),
                      md_cell(cell.worst_repro));
  }
  bool any_mistrusted = false;
  for (const Cell& cell : c.cells) {
    if (cell.mistrusted == 0) continue;
    if (!any_mistrusted) md += "\n## Mistrusted cases\n\n";
    any_mistrusted = true;
    md += fmt::format("- {} / {}: {} of {} cases: {}\n", cell.law, cell.dtype, cell.mistrusted,
                      cell.cases, md_cell(cell.mistrust_reason));
  }
  md += "\n## Failures\n\n";
  bool any = false;
  for (const Cell& cell : c.cells) {
    for (const std::string& f : cell.failures) {
      md += fmt::format("- **{} / {}**: `{}`\n", cell.law, cell.dtype, md_cell(f));
      any = true;
    }
  }
  if (!any) md += "None.\n";
  md +=
      "\n## Planted faults (self-test: each must be caught by its law)\n\n| op | fault | law | "
      "caught | cases |\n|---|---|---|---|---|\n";
  for (const FaultCheck& f : c.faults) {
    md += fmt::format("| {} | {} | {} | {} | {} |\n", f.family, f.fault, f.law,
                      f.caught ? "yes" : "**NO**", f.attempts);
  }
  md += fmt::format(
      "\n## Traceability ({} clauses, {} UNCOVERED)\n\n| clause | source | valid-side cases | "
      "invalid-side cases | |\n|---|---|---|---|---|\n",
      c.clauses.size(), uncovered(c));
  for (const ClauseRow& r : c.clauses) {
    md += fmt::format("| {} | {} | {} | {} | {} |\n", r.id, md_cell(r.source), r.valid_cases,
                      r.invalid_cases,
                      r.validation_tested ? "validation test"
                      : r.covered()       ? ""
                                          : "UNCOVERED");
  }
  md += "\n## Errata: the project's decisions\n\n";
  for (const json& e : project_errata(errata)) {
    md += fmt::format("- **{}** ({}): {}\n", e.value("id", ""), e.value("op", ""),
                      md_cell(e.value("summary", "")));
  }
  md += "\n## Errata: the seed documents\n\n";
  for (const auto& row : spec_errata(errata)) {
    if (row.size() >= 5) {
      md += fmt::format("- **{}** ({}): {} -> {}\n", row[0], row[1], md_cell(row[2]),
                        md_cell(row[4]));
    }
  }
  return md;
}

std::string render_json(const Campaign& c, const Errata& errata) {
  json j;
  j["schema_version"] = kReportSchemaVersion;
  j["verdict"] = c.failed() ? "FAILED" : "PASSED";
  j["seed"] = c.options.seed;
  j["budget_seconds"] = c.options.budget_seconds;
  j["cases_per_binding"] = c.cases_per_cell;
  j["seconds"] = c.seconds;
  j["options"] = {{"ops", c.options.ops},
                  {"laws", c.options.laws},
                  {"dtypes", c.options.dtypes},
                  {"profile", c.options.profile},
                  {"shard_index", c.options.shard_index},
                  {"shard_count", c.options.shard_count}};
  j["cells"] = json::array();
  j["planted_faults"] = json::array();
  j["traceability"] = json::array();
  j["errors"] = json::array();
  for (const Cell& cell : c.cells) {
    j["cells"].push_back({{"order", cell.order},
                          {"family", cell.family},
                          {"op", cell.entry},
                          {"law", cell.law},
                          {"dtype", cell.dtype},
                          {"profile", cell.profile},
                          {"status", cell_status_name(cell.status())},
                          {"cases", cell.cases},
                          {"failed", cell.failed},
                          {"mistrusted", cell.mistrusted},
                          {"mistrust_reason", cell.mistrust_reason},
                          {"discarded", cell.discarded},
                          {"measure", cell.measure()},
                          {"bounded_elements", cell.bounded_elements},
                          {"exact_elements", cell.exact_elements},
                          {"checks", cell.checks},
                          {"worst_error_over_bound", cell.worst_error_over_bound},
                          {"worst_repro", cell.worst_repro},
                          {"max_rel_error", cell.max_rel_error},
                          {"max_abs_error", cell.max_abs_error},
                          {"mere", cell.has_mere ? json(cell.mere) : json(nullptr)},
                          {"mare", cell.has_mere ? json(cell.mare) : json(nullptr)},
                          {"mere_threshold", cell.mere_threshold},
                          {"seconds", cell.seconds},
                          {"failures", cell.failures}});
  }
  for (const FaultCheck& f : c.faults) {
    j["planted_faults"].push_back({{"order", f.order},
                                   {"family", f.family},
                                   {"fault", f.fault},
                                   {"law", f.law},
                                   {"caught", f.caught},
                                   {"cases", f.attempts},
                                   {"timing_dependent", f.timing_dependent}});
  }
  for (const ClauseRow& r : c.clauses) {
    j["traceability"].push_back({{"family", r.family},
                                 {"clause", r.id},
                                 {"source", r.source},
                                 {"condition", r.condition},
                                 {"status", r.status},
                                 {"valid_cases", r.valid_cases},
                                 {"invalid_cases", r.invalid_cases},
                                 {"validation_test", r.validation_tested},
                                 {"covered", r.covered()}});
  }
  j["margins"] = json::array();
  for (const MarginHistogram& m : c.margins) {
    j["margins"].push_back({{"order", m.order},
                            {"op", m.entry},
                            {"law", m.law},
                            {"dtype", m.dtype},
                            {"bins", m.bins}});
  }
  for (const ErrorHistogram& h : c.errors) {
    j["errors"].push_back({{"op", h.entry},
                           {"dtype", h.dtype},
                           {"tolerance_ulps", h.tolerance_ulps},
                           {"bins", h.bins}});
  }
  j["coverage"] = c.coverage;
  j["errata"]["project"] = project_errata(errata);
  for (const auto& row : spec_errata(errata)) j["errata"]["seed_documents"].push_back(row);
  return j.dump(2) + "\n";
}

bool campaign_from_json(const std::string& text, Campaign* out, std::string* error) {
  const json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    *error = "not JSON";
    return false;
  }
  if (j.value("schema_version", 0) != kReportSchemaVersion) {
    *error = "schema_version is not " + std::to_string(kReportSchemaVersion);
    return false;
  }
  try {
    Campaign c;
    c.options.seed = j.at("seed").get<uint64_t>();
    c.options.budget_seconds = j.at("budget_seconds").get<double>();
    c.cases_per_cell = j.at("cases_per_binding").get<int>();
    c.seconds = j.at("seconds").get<double>();
    const json& o = j.at("options");
    c.options.ops = o.at("ops").get<std::vector<std::string>>();
    c.options.laws = o.at("laws").get<std::vector<std::string>>();
    c.options.dtypes = o.at("dtypes").get<std::vector<std::string>>();
    c.options.profile = o.at("profile").get<std::string>();
    c.options.shard_index = o.at("shard_index").get<int>();
    c.options.shard_count = o.at("shard_count").get<int>();
    for (const json& x : j.at("cells")) {
      Cell cell;
      cell.order = x.at("order").get<int>();
      cell.family = x.at("family").get<std::string>();
      cell.entry = x.at("op").get<std::string>();
      cell.law = x.at("law").get<std::string>();
      cell.dtype = x.at("dtype").get<std::string>();
      cell.profile = x.value("profile", std::string("seed"));
      cell.cases = x.at("cases").get<int>();
      cell.failed = x.at("failed").get<int>();
      cell.mistrusted = x.at("mistrusted").get<int>();
      cell.mistrust_reason = x.at("mistrust_reason").get<std::string>();
      cell.discarded = x.at("discarded").get<int>();
      cell.bounded_elements = x.at("bounded_elements").get<int64_t>();
      cell.exact_elements = x.at("exact_elements").get<int64_t>();
      cell.checks = x.at("checks").get<int64_t>();
      cell.worst_error_over_bound = x.at("worst_error_over_bound").get<double>();
      cell.worst_repro = x.at("worst_repro").get<std::string>();
      // JSON has no infinity: nlohmann writes a non-finite double as null.
      auto number = [](const json& v) { return v.is_null() ? INFINITY : v.get<double>(); };
      cell.max_rel_error = number(x.at("max_rel_error"));
      cell.max_abs_error = number(x.at("max_abs_error"));
      cell.has_mere = !x.at("mere").is_null();
      if (cell.has_mere) {
        cell.mere = number(x.at("mere"));
        cell.mare = number(x.at("mare"));
      }
      cell.mere_threshold = x.at("mere_threshold").get<double>();
      cell.seconds = x.at("seconds").get<double>();
      cell.failures = x.at("failures").get<std::vector<std::string>>();
      c.cells.push_back(std::move(cell));
    }
    for (const json& x : j.at("planted_faults")) {
      c.faults.push_back({x.at("order").get<int>(), x.at("family").get<std::string>(),
                          x.at("fault").get<std::string>(), x.at("law").get<std::string>(),
                          x.at("caught").get<bool>(), x.at("cases").get<int>(),
                          x.value("timing_dependent", false)});
    }
    for (const json& x : j.at("traceability")) {
      ClauseRow row{x.at("family").get<std::string>(), x.at("clause").get<std::string>(),
                    x.at("source").get<std::string>(), x.at("condition").get<std::string>(),
                    x.at("status").get<int>()};
      row.valid_cases = x.at("valid_cases").get<int>();
      row.invalid_cases = x.at("invalid_cases").get<int>();
      row.validation_tested = x.at("validation_test").get<bool>();
      c.clauses.push_back(std::move(row));
    }
    for (const json& x : j.at("margins")) {
      MarginHistogram m;
      m.order = x.at("order").get<int>();
      m.entry = x.at("op").get<std::string>();
      m.law = x.at("law").get<std::string>();
      m.dtype = x.at("dtype").get<std::string>();
      m.bins = x.at("bins").get<std::vector<int>>();
      m.bins.resize(kMarginBins);
      c.margins.push_back(std::move(m));
    }
    for (const json& x : j.at("errors")) {
      ErrorHistogram h;
      h.entry = x.at("op").get<std::string>();
      h.dtype = x.at("dtype").get<std::string>();
      h.tolerance_ulps = x.at("tolerance_ulps").get<double>();
      h.bins = x.at("bins").get<std::vector<int>>();
      h.bins.resize(kUlpBins);
      c.errors.push_back(std::move(h));
    }
    c.coverage = j.at("coverage").get<std::map<std::string, std::map<std::string, int>>>();
    *out = std::move(c);
    return true;
  } catch (const json::exception& e) {
    *error = e.what();
    return false;
  }
}

std::string render_junit(const Campaign& c) {
  pugi::xml_document doc;
  auto suites = doc.append_child("testsuites");
  auto suite = suites.append_child("testsuite");
  suite.append_attribute("name") = "gradconf check";
  int failures = 0;
  for (const Cell& cell : c.cells) {
    auto tc = suite.append_child("testcase");
    tc.append_attribute("classname") = cell.entry.c_str();
    tc.append_attribute("name") = (cell.law + "[" + cell.profile + ", " + cell.dtype + "]").c_str();
    tc.append_attribute("time") = cell.seconds;
    if (cell.status() == CellStatus::kFailed) {
      ++failures;
      auto f = tc.append_child("failure");
      f.append_attribute("message") =
          fmt::format("{} of {} cases failed", cell.failed, cell.cases).c_str();
      std::string text;
      for (const auto& d : cell.failures) text += d + "\n";
      f.append_child(pugi::node_pcdata).set_value(text.c_str());
    }
    if (cell.status() == CellStatus::kSkipped) tc.append_child("skipped");
  }
  for (const FaultCheck& fc : c.faults) {
    auto tc = suite.append_child("testcase");
    tc.append_attribute("classname") = ("planted." + fc.family).c_str();
    tc.append_attribute("name") = (fc.law + " sees " + fc.fault).c_str();
    if (!fc.caught) {
      ++failures;
      tc.append_child("failure").append_attribute("message") = "the law did not see the fault";
    }
  }
  suite.append_attribute("tests") = static_cast<int>(c.cells.size() + c.faults.size());
  suite.append_attribute("failures") = failures;
  std::ostringstream out;
  doc.save(out, "  ");
  return out.str();
}

std::string render_html(const Campaign& c, const Errata& errata) {
  const auto dtypes = dtypes_of(c);
  std::string h =
      "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>gradconf "
      "conformance report</title><style>body{font:14px system-ui,sans-serif;margin:24px;color:"
      "#222}table{border-collapse:collapse;margin:8px 0 24px}td,th{border:1px solid #ccc;"
      "padding:3px 8px;text-align:left}th{background:#f3f3f3}.PASSED{background:#cdeccd}"
      ".FAILED{background:#f5b5b5;font-weight:bold}.MISTRUSTED{background:#f8e7a6}"
      ".SKIPPED{background:#e8e8e8;color:#777}.UNCOVERED{background:#f5b5b5}.verdict{font-size:"
      "20px}small{color:#666}</style></head><body>";
  h += fmt::format(
      "<h1>gradconf conformance report</h1><p class=\"verdict\">Verdict: <span class=\"{}\">{}"
      "</span></p><p>{} cells, {} cases per law binding, seed {}, budget {:.0f} s, ran {:.1f} "
      "s.</p>",
      c.failed() ? "FAILED" : "PASSED", c.failed() ? "FAILED" : "PASSED", c.cells.size(),
      c.cases_per_cell, c.options.seed, c.options.budget_seconds, c.seconds);
  h += "<h2>Spec profiles</h2><table id=\"profiles\"><tr><th>profile</th><th>implements</th>"
       "</tr>";
  for (SpecProfile p : implemented_profiles()) {
    h += "<tr><td>" + html_escape(std::string(profile_name(p))) + "</td><td>" +
         html_escape(std::string(profile_description(p))) + "</td></tr>";
  }
  h += "</table><h2>Matrix: op &times; law &times; profile &times; dtype</h2><table "
       "id=\"matrix\"><tr><th>op</th><th>law</th><th>profile</th>";
  for (const auto& d : dtypes) h += "<th>" + html_escape(d) + "</th>";
  h += "</tr>";
  for (const MatrixRow& row : rows_of(c)) {
    h += "<tr><td>" + html_escape(row.entry) + "</td><td>" + html_escape(row.law) + "</td><td>" +
         html_escape(row.profile) + "</td>";
    for (const auto& d : dtypes) {
      const Cell* cell = find_cell(c, row, d);
      if (!cell) {
        h += "<td class=\"SKIPPED\">-</td>";
        continue;
      }
      const std::string status(cell_status_name(cell->status()));
      std::string title = fmt::format("{} cases; compared {}; worst error/bound {}; max rel {}",
                                      cell->cases, compared_text(*cell), margin_text(*cell),
                                      bounded_number(*cell, cell->max_rel_error));
      if (cell->has_mere) title += "; MERE / MARE " + mere_text(*cell);
      if (cell->mistrusted > 0) title += "; mistrusted: " + cell->mistrust_reason;
      h +=
          fmt::format("<td class=\"{}\" title=\"{}\">{} <small>{} &middot; {}</small></td>", status,
                      html_escape(title), status, cell->cases, html_escape(margin_text(*cell)));
    }
    h += "</tr>";
  }
  h += "</table>" + render_plots(c) + "<h2>Failures</h2><ul>";
  for (const Cell& cell : c.cells) {
    for (const auto& f : cell.failures) {
      h += "<li><b>" + html_escape(cell.law + " / " + cell.dtype) + "</b>: <code>" +
           html_escape(f) + "</code></li>";
    }
  }
  h += "</ul><h2>Planted faults</h2><table id=\"faults\"><tr><th>op</th><th>fault</th><th>law"
       "</th><th>caught</th><th>cases</th></tr>";
  for (const FaultCheck& f : c.faults) {
    h += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"{}\">{}</td><td>{}</td>"
        "</tr>",
        html_escape(f.family), html_escape(f.fault), html_escape(f.law),
        f.caught ? "PASSED" : "FAILED", f.caught ? "yes" : "NO", f.attempts);
  }
  h += fmt::format(
      "</table><h2>Traceability ({} clauses, {} uncovered)</h2><table "
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
  h += "</table><h2>Errata: the project's decisions</h2><table id=\"errata\"><tr><th>id</th>"
       "<th>op</th><th>summary</th></tr>";
  for (const json& e : project_errata(errata)) {
    h += "<tr><td>" + html_escape(e.value("id", "")) + "</td><td>" +
         html_escape(e.value("op", "")) + "</td><td>" + html_escape(e.value("summary", "")) +
         "</td></tr>";
  }
  h += "</table><h2>Errata: the seed documents</h2><table><tr><th>id</th><th>op</th><th>seed says"
       "</th><th>decision</th></tr>";
  for (const auto& row : spec_errata(errata)) {
    if (row.size() < 5) continue;
    h += "<tr><td>" + html_escape(row[0]) + "</td><td>" + html_escape(row[1]) + "</td><td>" +
         html_escape(row[2]) + "</td><td>" + html_escape(row[4]) + "</td></tr>";
  }
  h += "</table></body></html>\n";
  return h;
}

bool write_reports(const Campaign& c, const Errata& errata, const std::string& dir,
                   std::string* error) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    *error = "cannot create " + dir + ": " + ec.message();
    return false;
  }
  const std::pair<const char*, std::string> files[] = {{"summary.md", render_markdown(c, errata)},
                                                       {"report.json", render_json(c, errata)},
                                                       {"junit.xml", render_junit(c)},
                                                       {"report.html", render_html(c, errata)}};
  for (const auto& [name, text] : files) {
    std::ofstream out(std::filesystem::path(dir) / name, std::ios::binary);
    out << text;
    if (!out) {
      *error = std::string("cannot write ") + name + " in " + dir;
      return false;
    }
  }
  return true;
}

}  // namespace gradconf::reports
