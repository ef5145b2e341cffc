#include "reports/src/render.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
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

// (entry, law) rows in campaign order.
std::vector<std::pair<std::string, std::string>> rows_of(const Campaign& c) {
  std::vector<std::pair<std::string, std::string>> rows;
  for (const Cell& cell : c.cells) {
    std::pair<std::string, std::string> key{cell.entry, cell.law};
    if (std::find(rows.begin(), rows.end(), key) == rows.end()) rows.push_back(key);
  }
  return rows;
}

const Cell* find_cell(const Campaign& c, const std::string& law, const std::string& dtype) {
  for (const Cell& cell : c.cells) {
    if (cell.law == law && cell.dtype == dtype) return &cell;
  }
  return nullptr;
}

int uncovered(const Campaign& c) {
  int n = 0;
  for (const ClauseRow& r : c.clauses) n += r.covered() ? 0 : 1;
  return n;
}

}  // namespace

std::string render_markdown(const Campaign& c, const Errata& errata) {
  std::string md = fmt::format(
      "# gradconf conformance report\n\nVerdict: **{}**. {} cells, {} cases per law binding, "
      "seed {}, budget {:.0f} s, ran {:.1f} s.\n\n",
      c.failed() ? "FAILED" : "PASSED", c.cells.size(), c.cases_per_cell, c.options.seed,
      c.options.budget_seconds, c.seconds);
  md +=
      "## Laws (op x dtype x law)\n\n| op | law | dtype | status | cases | worst error / bound | "
      "max rel | max abs | time s |\n|---|---|---|---|---|---|---|---|---|\n";
  for (const Cell& cell : c.cells) {
    md += fmt::format("| {} | {} | {} | {} | {} | {:.3g} | {:.3g} | {:.3g} | {:.2f} |\n",
                      cell.entry, cell.law, cell.dtype, cell_status_name(cell.status()), cell.cases,
                      cell.worst_error_over_bound, cell.max_rel_error, cell.max_abs_error,
                      cell.seconds);
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
  for (const Cell& cell : c.cells) {
    j["cells"].push_back({{"family", cell.family},
                          {"op", cell.entry},
                          {"law", cell.law},
                          {"dtype", cell.dtype},
                          {"status", cell_status_name(cell.status())},
                          {"cases", cell.cases},
                          {"failed", cell.failed},
                          {"mistrusted", cell.mistrusted},
                          {"worst_error_over_bound", cell.worst_error_over_bound},
                          {"max_rel_error", cell.max_rel_error},
                          {"max_abs_error", cell.max_abs_error},
                          {"seconds", cell.seconds},
                          {"failures", cell.failures}});
  }
  for (const FaultCheck& f : c.faults) {
    j["planted_faults"].push_back({{"family", f.family},
                                   {"fault", f.fault},
                                   {"law", f.law},
                                   {"caught", f.caught},
                                   {"cases", f.attempts}});
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
  j["errata"]["project"] = project_errata(errata);
  for (const auto& row : spec_errata(errata)) j["errata"]["seed_documents"].push_back(row);
  return j.dump(2) + "\n";
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
    tc.append_attribute("name") = (cell.law + "[" + cell.dtype + "]").c_str();
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
  h += "<h2>Matrix: op &times; law &times; dtype</h2><table id=\"matrix\"><tr><th>op</th><th>law"
       "</th>";
  for (const auto& d : dtypes) h += "<th>" + html_escape(d) + "</th>";
  h += "</tr>";
  for (const auto& [entry, law] : rows_of(c)) {
    h += "<tr><td>" + html_escape(entry) + "</td><td>" + html_escape(law) + "</td>";
    for (const auto& d : dtypes) {
      const Cell* cell = find_cell(c, law, d);
      if (!cell) {
        h += "<td class=\"SKIPPED\">-</td>";
        continue;
      }
      const std::string status(cell_status_name(cell->status()));
      h += fmt::format(
          "<td class=\"{}\" title=\"{} cases, worst error/bound {:.3g}, max rel "
          "{:.3g}\">{} <small>{}</small></td>",
          status, cell->cases, cell->worst_error_over_bound, cell->max_rel_error, status,
          cell->cases);
    }
    h += "</tr>";
  }
  h += "</table><h2>Failures</h2><ul>";
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
