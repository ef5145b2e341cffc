#include "reports/src/campaign.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>

#include "op/registry.h"

namespace gradconf::reports {
namespace {

// Average cost of one case across the laws measured on the CI machine (2 cores): the budget is
// turned into a case count with it, so the count, not the clock, decides what runs.
constexpr double kSecondsPerCase = 0.005;
constexpr int kMinCasesPerCell = 4;
constexpr int kMaxCasesPerCell = 2000;
constexpr size_t kFailuresKept = 3;

bool selected(const std::vector<std::string>& wanted,
              std::initializer_list<std::string_view> names) {
  if (wanted.empty()) return true;
  for (const auto& w : wanted) {
    for (std::string_view n : names) {
      if (w == n) return true;
    }
  }
  return false;
}

class Progress {
 public:
  Progress(bool enabled, int total) : enabled_(enabled), tty_(isatty(2) != 0), total_(total) {}
  void update(int done, int cases, int failures, const std::string& what) {
    if (!enabled_) return;
    if (tty_) {
      std::fprintf(stderr, "\r[%3d/%3d cells] %6d cases, %d failed  %-48.48s", done, total_, cases,
                   failures, what.c_str());
    } else {
      std::fprintf(stderr, "[%d/%d cells] %d cases, %d failed: %s\n", done, total_, cases, failures,
                   what.c_str());
    }
    std::fflush(stderr);
  }
  void finish() {
    if (enabled_ && tty_) std::fprintf(stderr, "\n");
  }

 private:
  bool enabled_, tty_;
  int total_;
};

}  // namespace

std::string_view cell_status_name(CellStatus status) {
  switch (status) {
    case CellStatus::kPassed:
      return "PASSED";
    case CellStatus::kFailed:
      return "FAILED";
    case CellStatus::kMistrusted:
      return "MISTRUSTED";
    case CellStatus::kSkipped:
      return "SKIPPED";
  }
  return "?";
}

CellStatus Cell::status() const {
  if (cases == 0) return CellStatus::kSkipped;
  if (failed > 0) return CellStatus::kFailed;
  if (mistrusted * 2 > cases) return CellStatus::kMistrusted;
  return CellStatus::kPassed;
}

bool Campaign::failed() const {
  for (const Cell& c : cells) {
    if (c.status() == CellStatus::kFailed) return true;
  }
  for (const FaultCheck& f : faults) {
    if (!f.caught) return true;
  }
  return false;
}

Campaign run_campaign(const CampaignOptions& options, const props::Backend& backend) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  Campaign campaign;
  campaign.options = options;

  struct Work {
    const props::OpFamily* family;
    const props::LawBinding* law;
  };
  std::vector<Work> work;
  for (const props::OpFamily* family : props::op_families()) {
    std::vector<std::string_view> entries;
    for (const auto* e : family->entries) entries.push_back(e->name);
    bool family_selected = options.ops.empty() || selected(options.ops, {family->family});
    for (auto e : entries) family_selected = family_selected || selected(options.ops, {e});
    if (!family_selected) continue;
    for (const props::LawBinding& law : family->laws) {
      if (!options.ops.empty() && !selected(options.ops, {family->family, law.entry})) continue;
      if (!selected(options.laws, {law.law, law.name})) continue;
      work.push_back({family, &law});
    }
    for (const props::ClauseInfo& c : family->clauses) {
      const bool seen = std::any_of(campaign.clauses.begin(), campaign.clauses.end(),
                                    [&](const ClauseRow& r) { return r.id == c.id; });
      if (!seen) {
        ClauseRow row{std::string(family->family), std::string(c.id), std::string(c.source),
                      std::string(c.condition), static_cast<int>(c.status)};
        row.validation_tested =
            std::find(family->validation_tested.begin(), family->validation_tested.end(), c.id) !=
            family->validation_tested.end();
        campaign.clauses.push_back(row);
      }
    }
  }
  const int bindings = std::max<int>(1, static_cast<int>(work.size()));
  campaign.cases_per_cell =
      std::clamp(static_cast<int>(options.budget_seconds / kSecondsPerCase / bindings),
                 kMinCasesPerCell, kMaxCasesPerCell);

  Progress progress(options.progress, static_cast<int>(work.size()));
  std::map<std::tuple<std::string, std::string, std::string>, Cell> cells;
  int done = 0, total_cases = 0, total_failures = 0;
  for (const Work& w : work) {
    const auto law_start = Clock::now();
    for (int i = 0; i < campaign.cases_per_cell; ++i) {
      props::LawResult r = props::run_law_case(*w.law, backend, i, options.seed);
      if (!options.dtypes.empty() && !selected(options.dtypes, {r.dtype})) continue;
      Cell& cell = cells[{w.law->name, r.dtype, std::string(w.law->entry)}];
      cell.family = std::string(w.family->family);
      cell.entry = std::string(w.law->entry);
      cell.law = w.law->name;
      cell.dtype = r.dtype;
      cell.cases += 1;
      cell.mistrusted += r.mistrusted ? 1 : 0;
      cell.worst_error_over_bound =
          std::max(cell.worst_error_over_bound, r.measured.worst_error_over_bound);
      cell.max_rel_error = std::max(cell.max_rel_error, r.measured.max_rel_error);
      cell.max_abs_error = std::max(cell.max_abs_error, r.measured.max_abs_error);
      if (!r.holds) {
        cell.failed += 1;
        total_failures += 1;
        if (cell.failures.size() < kFailuresKept) cell.failures.push_back(r.detail);
      }
      if (!r.clause.empty()) {
        for (ClauseRow& row : campaign.clauses) {
          if (row.id == r.clause) (r.just_valid ? row.valid_cases : row.invalid_cases) += 1;
        }
      }
      total_cases += 1;
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - law_start).count();
    int law_cells = 0;
    for (auto& [key, cell] : cells) law_cells += std::get<0>(key) == w.law->name;
    for (auto& [key, cell] : cells) {
      if (std::get<0>(key) == w.law->name) cell.seconds = seconds / std::max(1, law_cells);
    }
    progress.update(++done, total_cases, total_failures, w.law->name);
  }
  progress.finish();
  for (auto& [key, cell] : cells) campaign.cells.push_back(std::move(cell));

  if (!options.planted_library.empty()) {
    std::string error;
    auto planted = props::Backend::load(options.planted_library, &error);
    for (const props::OpFamily* family : props::op_families()) {
      if (!options.ops.empty() && !selected(options.ops, {family->family})) continue;
      for (const props::FaultRow& row : family->fault_rows) {
        FaultCheck check{std::string(family->family), std::string(row.fault), std::string(row.law)};
        const props::LawBinding* law = family->law(row.law);
        if (planted && law &&
            planted->select_fault(std::string(family->family) + "." + std::string(row.fault))) {
          for (int i = 0; i < row.attempts && !check.caught; ++i) {
            check.attempts = i + 1;
            check.caught = !props::run_law_case(*law, *planted, i).holds;
          }
          planted->select_fault("");
        }
        campaign.faults.push_back(check);
      }
    }
  }
  campaign.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return campaign;
}

}  // namespace gradconf::reports
