// A conformance campaign (`gradconf check`): every selected law of every registered op run on a
// backend, each (entry, law, dtype) cell summarised, the clause table's traceability counted from
// the boundary cases, and every planted fault's law run against the planted-fault backend as a
// self-test of the suite. The result is data; render.h turns it into the report files.
#ifndef GRADCONF_REPORTS_SRC_CAMPAIGN_H_
#define GRADCONF_REPORTS_SRC_CAMPAIGN_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "harness/backend.h"

namespace gradconf::reports {

/// One round of a campaign: every law binding of the shard runs `cases` cases drawn from `seed`
/// (cases 0..cases-1 of run_law_case). The rounds a report records replay the campaign exactly.
struct Round {
  int shard = 0;
  uint64_t seed = 0;
  int cases = 0;
  /// A round on the clock: a capped binding runs at most 1/kRoundsPerCap of its cap this round
  /// (at least one case), continuing its case indices from the rounds before, so its cost is
  /// spread over the rounds instead of filling the first (the fork law's 4 cases per binding
  /// took 33 of a 60 s campaign's seconds, all in its first round).
  bool spreads_capped = false;
};
inline constexpr int kRoundsPerCap = 4;

struct Campaign;

struct CampaignOptions {
  std::vector<std::string> ops;           ///< family folder names or entry names; empty: all
  std::vector<std::string> laws;          ///< law names ("matches_reference"); empty: all
  std::vector<std::string> skipped_laws;  ///< law names left out of `laws`
  std::vector<std::string> dtypes;        ///< "f16", "bf16", "f32", "f64"; empty: all
  std::string profile;  ///< "seed", "extended" or "cann-latest": only its cases; empty: all
  /// Wall-clock seconds to spend: rounds run until the next would not fit (the fault self-test
  /// and every round count).
  double budget_seconds = 60;
  /// > 0: instead of the clock, one round of this many cases per binding (exact comparisons).
  int fixed_cases = 0;
  /// Non-empty: exactly these rounds (this shard's), in order: `gradconf check --replay`.
  std::vector<Round> replay;
  /// Called with the campaign so far after every round (the reports are rewritten from it).
  std::function<void(const Campaign&)> after_round;
  uint64_t seed = 0;
  std::string planted_library;  ///< empty: no fault self-test
  /// The implementation judged: props::Backend::description() (its library and version).
  std::string backend;
  /// The implementation it is compared with by matches_backend (`--against`), described the same
  /// way; empty: no differential law.
  std::string against;
  bool progress = true;
  /// This run is shard `shard_index` of `shard_count`: it runs its share of the law bindings and
  /// planted faults (each law's go round the shards in turn), with the case counts of the whole
  /// campaign, and merge_campaigns puts the shards back together into the report of the whole.
  int shard_index = 0, shard_count = 1;
};

enum class CellStatus { kPassed, kFailed, kMistrusted, kSkipped };
std::string_view cell_status_name(CellStatus status);

struct Campaign;
/// "154" or, when shards ran different counts, "4 to 154" (cases per law binding).
std::string cases_per_binding_text(const Campaign& c);

struct Cell {
  int order = 0;  ///< the law binding's place in the whole campaign (shards keep it)
  std::string family, entry, law, dtype;
  /// The spec profile the cell's cases ran under: a law's cases split per profile, so every
  /// cell is one contract (cann-latest's modes and shapes appear in its cells only).
  std::string profile = "seed";
  int cases = 0, failed = 0, mistrusted = 0;
  /// Cases that held having compared nothing (props::LawResult::vacuous): not in `cases`.
  int discarded = 0;
  /// What the cases compared (props::LawMeasurements), summed over the cell's cases.
  int64_t bounded_elements = 0, exact_elements = 0, checks = 0;
  /// Over the bounded comparisons: the worst |error| / bound and that case's repro line, the
  /// largest absolute and relative (LawMeasurements::max_rel_error) errors.
  double worst_error_over_bound = 0, max_rel_error = 0, max_abs_error = 0, seconds = 0;
  std::string worst_repro;
  /// The older standard's MERE / MARE (worst case) against its threshold T (pass: MERE < T and
  /// MARE < 10 T); has_mere when some case compared against a reference.
  bool has_mere = false;
  double mere = 0, mare = 0, mere_threshold = 0;
  std::string mistrust_reason;        ///< the first mistrusted case's reason
  std::vector<std::string> failures;  ///< the first few failure details (repro lines inside)
  CellStatus status() const;
  /// "within bound", "exact", "checks" or "not measured": the strongest kind compared.
  std::string_view measure() const;
};

struct ClauseRow {
  std::string family, id, source, condition;
  int status = 0;
  int valid_cases = 0, invalid_cases = 0;
  bool validation_tested = false;  ///< at its exact boundary by tests/<op>/validation_test.cpp
  bool covered() const { return validation_tested || (valid_cases > 0 && invalid_cases > 0); }
};

struct FaultCheck {
  int order = 0;  ///< the fault row's place in the whole campaign
  std::string family, fault, law;
  bool caught = false;
  int attempts = 0;  ///< cases run until caught (or the row's limit)
  /// The row's fault shows only under some interleaving (a race, a fork while a lock is held):
  /// how many cases it takes to be caught depends on the machine's timing.
  bool timing_dependent = false;
};

/// Relative error in ULPs of the dtype (Comparison::max_scaled_rel_error / epsilon), binned by
/// powers of two: bin 0 holds exact results, bin k (1..kUlpBins-2) errors below 2^(k-8) ULP
/// (and at least 2^(k-9), except bin 1 which starts at 0), the last bin 2^16 ULP and more.
inline constexpr int kUlpBins = 26;
int ulp_bin(double ulps);

/// One histogram per (op, dtype) over matches_reference cases.
struct ErrorHistogram {
  std::string entry, dtype;
  double tolerance_ulps = 0;  ///< the dtype's rtol in ULPs (the bound is atol + rtol |g|)
  std::vector<int> bins = std::vector<int>(kUlpBins, 0);
};

/// The margin |error| / bound of every case of a bounded law (one histogram per law binding and
/// dtype): bin 0 holds margins of exactly 0, bin 1 those below 2^-24, bin k (2..kMarginBins-2)
/// [2^(k-26), 2^(k-25)), the last bin 1 and more (beyond the bound).
inline constexpr int kMarginBins = 27;
int margin_bin(double margin);

struct MarginHistogram {
  int order = 0;  ///< the law binding's place in the whole campaign
  std::string entry, law, dtype;
  std::vector<int> bins = std::vector<int>(kMarginBins, 0);
};

struct Campaign {
  CampaignOptions options;
  /// Cases per law binding over the rounds (the largest of the shards'; a binding with a case
  /// cap, the host-process laws, runs fewer).
  int cases_per_cell = 0;
  /// The smallest of the shards' cases per binding: shards run at their own pace, so a merged
  /// report can hold bindings of 4 cases next to ones of 154.
  int fewest_cases_per_cell = 0;
  /// fewest_cases_per_cell, or cases_per_cell where it is unset (0: a report made before it).
  int fewest_cases() const {
    return fewest_cases_per_cell > 0 ? fewest_cases_per_cell : cases_per_cell;
  }
  std::vector<Round> rounds;
  /// When it started, UTC ("2026-11-26T23:15:42Z"): `gradconf trend` orders reports by it.
  std::string started_at;
  double seconds = 0;
  std::vector<Cell> cells;
  std::vector<ClauseRow> clauses;
  std::vector<FaultCheck> faults;
  std::vector<ErrorHistogram> errors;
  std::vector<MarginHistogram> margins;
  /// family -> coverage tag ("level=1x1", "dtype=bf16", ...) -> cases that carried it.
  std::map<std::string, std::map<std::string, int>> coverage;
  bool failed() const;
};

/// Runs the campaign: the fault self-test, then rounds of every selected binding until the
/// budget is spent (or the fixed or replayed rounds). Round r draws from round_seed(seed, r), so
/// the report's rounds replay it whatever the machine's speed.
Campaign run_campaign(const CampaignOptions& options, const props::Backend& backend);

/// Seed of round `round` of a campaign seeded `seed` (round 0: the seed itself).
uint64_t round_seed(uint64_t seed, int round);

/// "90", "90s", "20m", "8h" as seconds; nullopt for anything else.
std::optional<double> parse_duration(std::string_view text);

/// `from`'s cases added to `into`, a cell of the same binding, profile and dtype (another round,
/// or the same cell of another part of a campaign).
void add_cell(Cell& into, const Cell& from);

/// The campaign the shards (or any disjoint parts) make together: cells, faults, histograms and
/// coverage joined, clause counts summed; seconds is the longest part's.
Campaign merge_campaigns(const std::vector<Campaign>& parts);

}  // namespace gradconf::reports

#endif  // GRADCONF_REPORTS_SRC_CAMPAIGN_H_
