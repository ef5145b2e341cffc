#include "reports/src/render.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <pugixml.hpp>
#include <set>
#include <sstream>

#include "reports/src/render_detail.h"

namespace gradconf::reports {
namespace detail {

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

nlohmann::json project_errata(const Errata& errata) {
  if (errata.project_json.empty()) return nlohmann::json::array();
  const nlohmann::json parsed = nlohmann::json::parse(errata.project_json, nullptr, false);
  if (parsed.is_discarded() || !parsed.contains("entries")) return nlohmann::json::array();
  return parsed["entries"];
}

std::vector<nlohmann::json> errata_of_kind(const Errata& errata, std::string_view kind) {
  std::vector<nlohmann::json> chosen;
  for (const nlohmann::json& e : project_errata(errata)) {
    if (e.value("kind", "decision") == kind) chosen.push_back(e);
  }
  return chosen;
}

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

int uncovered(const Campaign& c) {
  int n = 0;
  for (const ClauseRow& r : c.clauses) n += r.covered() ? 0 : 1;
  return n;
}

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

std::string margin_text(const Cell& cell) {
  if (cell.bounded_elements > 0) {
    if (cell.worst_error_over_bound == 0) return "0 (every element exact)";
    return fmt::format("{:.3g}% of bound", 100 * cell.worst_error_over_bound);
  }
  if (cell.exact_elements > 0) return "exact (bitwise)";
  if (cell.checks > 0) return "checks only";
  return "not measured";
}

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

std::string seconds_text(double seconds) {
  return seconds < 0.005 ? std::string("<0.01") : fmt::format("{:.2f}", seconds);
}

}  // namespace detail

namespace {

using namespace detail;  // NOLINT: the renderers' shared vocabulary

// What each profile is, for the reader of a report: the spec's README §4 and Changes.
std::string profiles_markdown() {
  std::string md = "## Spec profiles\n\n| profile | implements |\n|---|---|\n";
  for (SpecProfile p : implemented_profiles())
    md += fmt::format("| {} | {} |\n", profile_name(p), profile_description(p));
  return md + "\n";
}

// The verdict line and the laws table: one row per cell.
std::string markdown_laws(const Campaign& c) {
  std::string md = fmt::format(
      "# gradconf conformance report\n\nBackend judged: `{}`.{}\n\nVerdict: **{}**. {} cells, {} "
      "cases per law binding in {} rounds, seed {}, budget {:.0f} s, ran {:.1f} s.\n\n",
      c.options.backend.empty() ? "linked" : c.options.backend,
      c.options.against.empty()
          ? ""
          : fmt::format(" Compared case by case with: `{}` (law matches_backend).",
                        c.options.against),
      c.failed() ? "FAILED" : "PASSED", c.cells.size(), cases_per_binding_text(c), c.rounds.size(),
      c.options.seed, c.options.budget_seconds, c.seconds);
  if (!c.options.skipped_laws.empty()) {
    md += fmt::format("Laws left out of this campaign: `{}`.\n\n",
                      fmt::join(c.options.skipped_laws, "`, `"));
  }
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
  return md;
}

// The worst case of every bounded cell, the mistrusted cases and the failures.
std::string markdown_cases(const Campaign& c) {
  std::string md;
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
  return md;
}

std::string markdown_faults_and_clauses(const Campaign& c) {
  std::string md;
  md +=
      "## Planted faults (self-test: each must be caught by its law)\n\n| op | fault | law | "
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
  return md;
}

std::string markdown_errata(const Errata& errata) {
  std::string md;
  md += "## Errata: the project's decisions\n\n";
  for (const nlohmann::json& e : errata_of_kind(errata, "decision")) {
    md += fmt::format("- **{}** ({}): {}\n", e.value("id", ""), e.value("op", ""),
                      md_cell(e.value("summary", "")));
  }
  md += "\n## Known deviations of implementations this suite judged\n\n";
  for (const nlohmann::json& e : errata_of_kind(errata, "implementation-deviation")) {
    md += fmt::format("- **{}** ({}): {} Evidence: {}\n", e.value("id", ""), e.value("op", ""),
                      md_cell(e.value("summary", "")), md_cell(e.value("evidence", "")));
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

}  // namespace

std::string render_markdown(const Campaign& c, const Errata& errata) {
  return markdown_laws(c) + "\n" + profiles_markdown() + markdown_cases(c) + "\n" +
         markdown_faults_and_clauses(c) + "\n" + markdown_errata(errata);
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
  // Each file is written aside and renamed over the old one: a campaign killed while it rewrites
  // its reports after a round leaves the previous round's, never a torn file.
  for (const auto& [name, text] : files) {
    const std::filesystem::path final_path = std::filesystem::path(dir) / name;
    std::filesystem::path temporary = final_path;
    temporary += ".tmp";
    {
      std::ofstream out(temporary, std::ios::binary);
      out << text;
      if (!out.flush()) {
        *error = std::string("cannot write ") + name + " in " + dir;
        return false;
      }
    }
    std::filesystem::rename(temporary, final_path, ec);
    if (ec) {
      *error = std::string("cannot replace ") + name + " in " + dir + ": " + ec.message();
      return false;
    }
  }
  return true;
}

}  // namespace gradconf::reports
