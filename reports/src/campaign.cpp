#include "reports/src/campaign.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

#include "compare/tolerance.h"
#include "registry/registry.h"

namespace gradconf::reports {
namespace {

// Average cost of one case across the laws measured on the CI machine (2 cores): the budget is
// turned into a case count with it, so the count, not the clock, decides what runs.
constexpr double kSecondsPerCase = 0.005;
constexpr int kMinCasesPerCell = 4;
constexpr int kMaxCasesPerCell = 2000;
constexpr size_t kFailuresKept = 3;
// The error contract keeps drawing until both sides of every clause have a case: at least this many
// draws even at the smallest budget (boundary cases are cheap: validation only), so a short
// `--strict` campaign covers the traceability matrix too.
constexpr int kMinBoundaryDraws = 4000;

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
  Progress(bool enabled, int total, int64_t planned_cases)
      : enabled_(enabled),
        tty_(isatty(2) != 0),
        total_(total),
        planned_(planned_cases),
        start_(std::chrono::steady_clock::now()) {}
  void update(int done, int cases, int failures, const std::string& what) {
    if (!enabled_) return;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    // Time left from the pace so far: cases run, not cells, since cells differ in size.
    const double left =
        cases > 0 ? elapsed * static_cast<double>(planned_ - cases) / static_cast<double>(cases)
                  : 0;
    if (tty_) {
      std::fprintf(stderr, "\r[%3d/%3d cells] %6d cases, %d failed, %4.0f s left  %-40.40s", done,
                   total_, cases, failures, left, what.c_str());
    } else {
      std::fprintf(stderr, "[%d/%d cells] %d cases, %d failed, %.0f s left: %s\n", done, total_,
                   cases, failures, left, what.c_str());
    }
    std::fflush(stderr);
  }
  void finish() {
    if (enabled_ && tty_) std::fprintf(stderr, "\n");
  }

 private:
  bool enabled_, tty_;
  int total_;
  int64_t planned_;
  std::chrono::steady_clock::time_point start_;
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

std::string_view Cell::measure() const {
  if (bounded_elements > 0) return "within bound";
  if (exact_elements > 0) return "exact";
  if (checks > 0) return "checks";
  return "not measured";
}

int margin_bin(double margin) {
  if (!(margin >= 0)) return kMarginBins - 1;  // NaN: beyond any bound
  if (margin == 0) return 0;
  if (margin >= 1) return kMarginBins - 1;
  for (int k = 1; k < kMarginBins - 1; ++k) {
    if (margin < std::ldexp(1.0, k - 25)) return k;
  }
  return kMarginBins - 1;
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

int ulp_bin(double ulps) {
  if (!(ulps > 0)) return ulps == 0 ? 0 : kUlpBins - 1;  // NaN: the worst bin
  for (int k = 1; k < kUlpBins - 1; ++k) {
    if (ulps < std::ldexp(1.0, k - 8)) return k;
  }
  return kUlpBins - 1;
}

namespace {

struct Work {
  int order;
  const props::OpFamily* family;
  const props::LawBinding* law;
};

/// What one law binding's cases produced; joined into the campaign in binding order.
struct WorkResult {
  std::map<std::pair<int, std::string>, Cell> cells;        ///< by (profile order, dtype)
  std::map<std::string, std::pair<int, int>> clause_sides;  ///< clause -> (valid, invalid)
  std::map<std::string, std::vector<int>> ulp_bins;         ///< dtype -> histogram
  std::map<std::string, std::vector<int>> margin_bins;      ///< dtype -> histogram
  std::map<std::string, int> tags;
  int cases = 0, failures = 0;
};

aclDataType dtype_of(const std::string& name) {
  if (name == "f16") return ACL_FLOAT16;
  if (name == "bf16") return ACL_BF16;
  if (name == "f64") return ACL_DOUBLE;
  return ACL_FLOAT;
}

// The profile a case ran under: its repro line's --profile (seed when absent, the default).
SpecProfile profile_of(const std::string& repro) {
  for (SpecProfile p : implemented_profiles()) {
    const std::string option = "--profile=" + std::string(profile_name(p)) + " ";
    if (repro.find(option) != std::string::npos) return p;
  }
  return SpecProfile::kSeed;
}

WorkResult run_work(const Work& w, const CampaignOptions& options, int cases,
                    const props::Backend& backend) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  WorkResult out;
  // Boundary cases draw a clause and a side at random; the traceability matrix wants both sides
  // of every clause, so the error contract keeps drawing (the same draws for a seed, in any
  // shard) until each side of each of its family's clauses has a case, or 10x its cases (at least
  // kMinBoundaryDraws) ran.
  std::set<std::pair<std::string, bool>> sides_missing;
  if (w.law->law == "error_contract") {
    for (const props::ClauseInfo& c : w.family->clauses) {
      const auto& tested = w.family->validation_tested;
      if (std::find(tested.begin(), tested.end(), c.id) != tested.end()) continue;
      sides_missing.insert({std::string(c.id), true});
      sides_missing.insert({std::string(c.id), false});
    }
  }
  for (int i = 0;
       i < cases || (!sides_missing.empty() && i < std::max(10 * cases, kMinBoundaryDraws)); ++i) {
    props::LawResult r = props::run_law_case(*w.law, backend, i, options.seed);
    if (!r.clause.empty()) sides_missing.erase({r.clause, r.just_valid});
    if (!options.dtypes.empty() && !selected(options.dtypes, {r.dtype})) continue;
    const SpecProfile profile = profile_of(r.repro);
    if (!options.profile.empty() && profile_name(profile) != options.profile) continue;
    Cell& cell = out.cells[{static_cast<int>(profile), r.dtype}];
    cell.profile = profile_name(profile);
    cell.order = w.order;
    cell.family = std::string(w.family->family);
    cell.entry = std::string(w.law->entry);
    cell.law = w.law->name;
    cell.dtype = r.dtype;
    if (cell.mere_threshold == 0) {
      cell.mere_threshold = props::tolerance_for(cell.entry, "*", dtype_of(r.dtype)).mere_threshold;
    }
    if (r.vacuous()) {
      cell.discarded += 1;
      continue;
    }
    cell.cases += 1;
    if (r.mistrusted) {
      cell.mistrusted += 1;
      if (cell.mistrust_reason.empty()) cell.mistrust_reason = r.mistrust_reason;
    }
    const props::LawMeasurements& m = r.measured;
    cell.bounded_elements += m.bounded_elements;
    cell.exact_elements += m.exact_elements;
    cell.checks += m.checks;
    if (m.bounded() &&
        (cell.worst_repro.empty() || m.worst_error_over_bound > cell.worst_error_over_bound)) {
      cell.worst_error_over_bound = m.worst_error_over_bound;
      cell.worst_repro = r.repro;
    }
    cell.max_rel_error = std::max(cell.max_rel_error, m.max_rel_error);
    cell.max_abs_error = std::max(cell.max_abs_error, m.max_abs_error);
    if (m.has_mere) {
      cell.mere = std::max(cell.mere, m.mere);
      cell.mare = std::max(cell.mare, m.mare);
      cell.has_mere = true;
    }
    if (m.bounded()) {
      auto& bins = out.margin_bins[r.dtype];
      bins.resize(kMarginBins);
      bins[static_cast<size_t>(margin_bin(m.worst_error_over_bound))] += 1;
    }
    if (!r.holds) {
      cell.failed += 1;
      out.failures += 1;
      if (cell.failures.size() < kFailuresKept) cell.failures.push_back(r.detail);
    }
    if (!r.clause.empty()) {
      auto& sides = out.clause_sides[r.clause];
      (r.just_valid ? sides.first : sides.second) += 1;
    }
    if (w.law->law == "matches_reference" && r.measured.bounded()) {
      auto& bins = out.ulp_bins[r.dtype];
      bins.resize(kUlpBins);
      const double eps = props::machine_epsilon(dtype_of(r.dtype));
      bins[static_cast<size_t>(ulp_bin(r.measured.max_rel_error / eps))] += 1;
    }
    for (const std::string& t : r.tags) out.tags[t] += 1;
    out.cases += 1;
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  for (auto& [key, cell] : out.cells) {
    cell.seconds = seconds / static_cast<double>(out.cells.size());
  }
  return out;
}

}  // namespace

namespace {

// The clause rows of a family, once per clause id across families.
void add_clause_rows(const props::OpFamily& family, Campaign& campaign) {
  for (const props::ClauseInfo& c : family.clauses) {
    const bool seen = std::any_of(campaign.clauses.begin(), campaign.clauses.end(),
                                  [&](const ClauseRow& r) { return r.id == c.id; });
    if (seen) continue;
    ClauseRow row{std::string(family.family), std::string(c.id), std::string(c.source),
                  std::string(c.condition), static_cast<int>(c.status)};
    row.validation_tested =
        std::find(family.validation_tested.begin(), family.validation_tested.end(), c.id) !=
        family.validation_tested.end();
    campaign.clauses.push_back(row);
  }
}

// Every law binding the options select, in registry order, and the families they come from.
std::vector<Work> select_work(const CampaignOptions& options, Campaign& campaign,
                              std::vector<const props::OpFamily*>& families) {
  std::vector<Work> all;
  for (const props::OpFamily* family : props::op_families()) {
    bool family_selected = options.ops.empty() || selected(options.ops, {family->family});
    for (const auto* e : family->entries) {
      family_selected = family_selected || selected(options.ops, {e->name});
    }
    if (!family_selected) continue;
    families.push_back(family);
    for (const props::LawBinding& law : family->laws) {
      if (!options.ops.empty() && !selected(options.ops, {family->family, law.entry})) continue;
      if (!selected(options.laws, {law.law, law.name})) continue;
      if (law.differential && options.against.empty()) continue;
      all.push_back({static_cast<int>(all.size()), family, &law});
    }
    add_clause_rows(*family, campaign);
  }
  return all;
}

// The results of the shard's bindings into the campaign: cells, clause sides, error histograms,
// margins and coverage tags.
void collect_results(const std::vector<Work>& work, std::vector<WorkResult>& results,
                     Campaign& campaign) {
  std::map<std::pair<std::string, std::string>, ErrorHistogram> histograms;
  for (size_t i = 0; i < work.size(); ++i) {
    WorkResult& r = results[i];
    for (auto& [key, cell] : r.cells) campaign.cells.push_back(std::move(cell));
    for (const auto& [clause, sides] : r.clause_sides) {
      for (ClauseRow& row : campaign.clauses) {
        if (row.id != clause) continue;
        row.valid_cases += sides.first;
        row.invalid_cases += sides.second;
      }
    }
    const std::string entry(work[i].law->entry);
    for (const auto& [dtype, bins] : r.ulp_bins) {
      ErrorHistogram& h = histograms[{entry, dtype}];
      h.entry = entry;
      h.dtype = dtype;
      const props::Tolerance& t = props::tolerance_for(entry, "*", dtype_of(dtype));
      h.tolerance_ulps = t.rtol / props::machine_epsilon(dtype_of(dtype));
      for (size_t k = 0; k < bins.size(); ++k) h.bins[k] += bins[k];
    }
    for (const auto& [dtype, bins] : r.margin_bins) {
      campaign.margins.push_back({work[i].order, entry, work[i].law->name, dtype, bins});
    }
    for (const auto& [tag, n] : r.tags) {
      campaign.coverage[std::string(work[i].family->family)][tag] += n;
    }
  }
  for (auto& [key, h] : histograms) campaign.errors.push_back(std::move(h));
}

// The planted-fault self-test: each fault row of the shard must be caught by its law on a case
// the shipped backend holds (a case the shipped backend also fails proves nothing).
void run_fault_self_test(const CampaignOptions& options,
                         const std::vector<const props::OpFamily*>& families,
                         const props::Backend& backend, Campaign& campaign) {
  const int shards = std::max(1, options.shard_count);
  std::string error;
  auto planted = props::Backend::load(options.planted_library, &error);
  int order = 0;
  for (const props::OpFamily* family : families) {
    for (const props::FaultRow& row : family->fault_rows) {
      const int this_order = order++;
      if (this_order % shards != options.shard_index) continue;
      FaultCheck check{this_order, std::string(family->family), std::string(row.fault),
                       std::string(row.law)};
      check.timing_dependent = row.timing_dependent;
      const props::LawBinding* law = family->law(row.law);
      if (planted && law &&
          planted->select_fault(props::planted_fault_name(family->family, row.fault))) {
        for (int i = 0; i < row.attempts && !check.caught; ++i) {
          check.attempts = i + 1;
          check.caught = !props::run_law_case(*law, *planted, i).holds &&
                         props::run_law_case(*law, backend, i).holds;
        }
        planted->select_fault("");
      }
      campaign.faults.push_back(check);
    }
  }
}

}  // namespace

Campaign run_campaign(const CampaignOptions& options, const props::Backend& backend) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  Campaign campaign;
  campaign.options = options;
  const int shards = std::max(1, options.shard_count);
  std::vector<const props::OpFamily*> families;
  const std::vector<Work> all = select_work(options, campaign, families);
  // The case count follows from the whole campaign, so every shard runs the cases it would.
  const int bindings = std::max<int>(1, static_cast<int>(all.size()));
  campaign.cases_per_cell =
      std::clamp(static_cast<int>(options.budget_seconds / kSecondsPerCase / bindings),
                 kMinCasesPerCell, kMaxCasesPerCell);
  std::vector<Work> work;
  for (const Work& w : all) {
    if (w.order % shards == options.shard_index) work.push_back(w);
  }

  Progress progress(options.progress, static_cast<int>(work.size()),
                    static_cast<int64_t>(work.size()) * campaign.cases_per_cell);
  // One process runs one binding at a time: the backend's spec profile and thread count are
  // process-wide, so `gradconf check --jobs N` runs N shard processes instead of threads.
  std::vector<WorkResult> results(work.size());
  int total_cases = 0, total_failures = 0;
  for (size_t i = 0; i < work.size(); ++i) {
    const int cases = work[i].law->cases_of(campaign.cases_per_cell);
    results[i] = run_work(work[i], options, cases, backend);
    total_cases += cases;
    total_failures += results[i].failures;
    progress.update(static_cast<int>(i) + 1, total_cases, total_failures, work[i].law->name);
  }
  progress.finish();
  collect_results(work, results, campaign);
  if (!options.planted_library.empty()) {
    run_fault_self_test(options, families, backend, campaign);
  }
  campaign.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return campaign;
}

Campaign merge_campaigns(const std::vector<Campaign>& parts) {
  Campaign merged;
  if (parts.empty()) return merged;
  merged.options = parts.front().options;
  merged.options.shard_index = 0;
  merged.options.shard_count = 1;
  merged.cases_per_cell = parts.front().cases_per_cell;
  merged.clauses = parts.front().clauses;
  for (ClauseRow& row : merged.clauses) row.valid_cases = row.invalid_cases = 0;
  std::map<std::pair<std::string, std::string>, ErrorHistogram> histograms;
  for (const Campaign& part : parts) {
    merged.seconds = std::max(merged.seconds, part.seconds);
    merged.cells.insert(merged.cells.end(), part.cells.begin(), part.cells.end());
    merged.faults.insert(merged.faults.end(), part.faults.begin(), part.faults.end());
    merged.margins.insert(merged.margins.end(), part.margins.begin(), part.margins.end());
    for (const ClauseRow& row : part.clauses) {
      auto it = std::find_if(merged.clauses.begin(), merged.clauses.end(),
                             [&](const ClauseRow& r) { return r.id == row.id; });
      if (it == merged.clauses.end()) {
        merged.clauses.push_back(row);
      } else {
        it->valid_cases += row.valid_cases;
        it->invalid_cases += row.invalid_cases;
      }
    }
    for (const ErrorHistogram& h : part.errors) {
      ErrorHistogram& into = histograms[{h.entry, h.dtype}];
      into.entry = h.entry;
      into.dtype = h.dtype;
      into.tolerance_ulps = h.tolerance_ulps;
      for (size_t k = 0; k < h.bins.size() && k < into.bins.size(); ++k) into.bins[k] += h.bins[k];
    }
    for (const auto& [family, tags] : part.coverage) {
      for (const auto& [tag, n] : tags) merged.coverage[family][tag] += n;
    }
  }
  std::stable_sort(merged.cells.begin(), merged.cells.end(), [](const Cell& a, const Cell& b) {
    const auto rank = [](const Cell& c) {
      return static_cast<int>(parse_profile(c.profile).value_or(SpecProfile::kSeed));
    };
    return std::make_tuple(a.order, rank(a), a.dtype) < std::make_tuple(b.order, rank(b), b.dtype);
  });
  std::stable_sort(merged.faults.begin(), merged.faults.end(),
                   [](const FaultCheck& a, const FaultCheck& b) { return a.order < b.order; });
  std::stable_sort(merged.margins.begin(), merged.margins.end(),
                   [](const MarginHistogram& a, const MarginHistogram& b) {
                     return std::tie(a.order, a.dtype) < std::tie(b.order, b.dtype);
                   });
  for (auto& [key, h] : histograms) merged.errors.push_back(std::move(h));
  return merged;
}

}  // namespace gradconf::reports
