// A conformance campaign (`gradconf check`): every selected law of every registered op run on a
// backend, each (entry, law, dtype) cell summarised, the clause table's traceability counted from
// the boundary cases, and every planted fault's law run against the planted-fault backend as a
// self-test of the suite. The result is data; render.h turns it into the report files.
#ifndef GRADCONF_REPORTS_SRC_CAMPAIGN_H_
#define GRADCONF_REPORTS_SRC_CAMPAIGN_H_

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "harness/backend.h"

namespace gradconf::reports {

struct CampaignOptions {
  std::vector<std::string> ops;     ///< family folder names or entry names; empty: all
  std::vector<std::string> laws;    ///< law names ("matches_reference"); empty: all
  std::vector<std::string> dtypes;  ///< "f16", "bf16", "f32", "f64"; empty: all
  double budget_seconds = 60;
  uint64_t seed = 0;
  std::string planted_library;  ///< empty: no fault self-test
  bool progress = true;
};

enum class CellStatus { kPassed, kFailed, kMistrusted, kSkipped };
std::string_view cell_status_name(CellStatus status);

struct Cell {
  std::string family, entry, law, dtype;
  int cases = 0, failed = 0, mistrusted = 0;
  double worst_error_over_bound = 0, max_rel_error = 0, max_abs_error = 0, seconds = 0;
  std::vector<std::string> failures;  ///< the first few failure details (repro lines inside)
  CellStatus status() const;
};

struct ClauseRow {
  std::string family, id, source, condition;
  int status = 0;
  int valid_cases = 0, invalid_cases = 0;
  bool validation_tested = false;  ///< at its exact boundary by tests/<op>/validation_test.cpp
  bool covered() const { return validation_tested || (valid_cases > 0 && invalid_cases > 0); }
};

struct FaultCheck {
  std::string family, fault, law;
  bool caught = false;
  int attempts = 0;  ///< cases run until caught (or the row's limit)
};

struct Campaign {
  CampaignOptions options;
  int cases_per_cell = 0;
  double seconds = 0;
  std::vector<Cell> cells;
  std::vector<ClauseRow> clauses;
  std::vector<FaultCheck> faults;
  bool failed() const;
};

/// Runs the campaign. The case count per cell follows from the budget alone (the same seed and
/// budget give the same cases, so the same report).
Campaign run_campaign(const CampaignOptions& options, const props::Backend& backend);

}  // namespace gradconf::reports

#endif  // GRADCONF_REPORTS_SRC_CAMPAIGN_H_
