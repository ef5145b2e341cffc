// What the report renderers (render.cpp, render_json.cpp, render_html.cpp) share: escaping, the
// errata as data, the matrix's rows and the texts a cell is summarised by.
#ifndef GRADCONF_REPORTS_SRC_RENDER_DETAIL_H_
#define GRADCONF_REPORTS_SRC_RENDER_DETAIL_H_

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "reports/src/render.h"

namespace gradconf::reports::detail {

std::string html_escape(std::string_view text);
/// Text for a markdown table cell ('|' escaped, newlines as spaces).
std::string md_cell(std::string_view text);

/// reports/errata.json's entries (an empty array when absent or unreadable).
nlohmann::json project_errata(const Errata& errata);
/// The project's errata of one kind: "decision" (what we chose where the spec is silent) or
/// "implementation-deviation" (where an implementation this suite judged differs from the spec).
std::vector<nlohmann::json> errata_of_kind(const Errata& errata, std::string_view kind);
/// "| E-NSA-1 | op | seed says | evidence | decision |" rows of the spec's errata table.
std::vector<std::vector<std::string>> spec_errata(const Errata& errata);

std::vector<std::string> dtypes_of(const Campaign& c);

/// One matrix row: a law binding under one spec profile.
struct MatrixRow {
  std::string entry, law, profile;
  bool operator==(const MatrixRow&) const = default;
};
/// (entry, law, profile) rows in campaign order.
std::vector<MatrixRow> rows_of(const Campaign& c);
const Cell* find_cell(const Campaign& c, const MatrixRow& row, const std::string& dtype);

/// Clauses no case reached on both sides and no validation test pins.
int uncovered(const Campaign& c);

/// What a cell compared, e.g. "12.3k bounded, 4.1k exact, 96 checks".
std::string compared_text(const Cell& cell);
/// The worst margin in words: "37% of bound", "exact" (bitwise laws), "checks only", or "not
/// measured"; never a bare 0.
std::string margin_text(const Cell& cell);
/// A measured 0 says what it means: every compared element was exact.
std::string bounded_number(const Cell& cell, double value);
std::string mere_text(const Cell& cell);
/// Seconds per cell; a cell faster than the printed resolution is said so, not printed as 0.
std::string seconds_text(double seconds);

}  // namespace gradconf::reports::detail

#endif  // GRADCONF_REPORTS_SRC_RENDER_DETAIL_H_
