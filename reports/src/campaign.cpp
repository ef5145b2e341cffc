#include "reports/src/campaign.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "compare/tolerance.h"
#include "registry/registry.h"
#include "reports/src/round_plan.h"

namespace gradconf::reports {
namespace {

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
  Progress(bool enabled, double budget_seconds)
      : enabled_(enabled), tty_(isatty(2) != 0), budget_(budget_seconds) {}
  void update(int round, int done, int total, int cases, int failures, double elapsed,
              const std::string& what) {
    if (!enabled_) return;
    const double left = std::max(0.0, budget_ - elapsed);
    if (tty_) {
      std::fprintf(stderr,
                   "\rround %d [%3d/%3d bindings] %7d cases, %d failed, %5.0f s left  %-36.36s",
                   round, done, total, cases, failures, left, what.c_str());
    } else {
      std::fprintf(stderr, "round %d [%d/%d bindings] %d cases, %d failed, %.0f s left: %s\n",
                   round, done, total, cases, failures, left, what.c_str());
    }
    std::fflush(stderr);
  }
  void finish() {
    if (enabled_ && tty_) std::fprintf(stderr, "\n");
  }

 private:
  bool enabled_, tty_;
  double budget_;
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

std::string cases_per_binding_text(const Campaign& c) {
  if (c.fewest_cases() >= c.cases_per_cell) return std::to_string(c.cases_per_cell);
  return std::to_string(c.fewest_cases()) + " to " + std::to_string(c.cases_per_cell);
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
  int shard_slot = 0;  ///< shard = shard_slot % shard count
};

/// What one law binding's cases produced; joined into the campaign in binding order.
struct WorkResult {
  std::map<std::pair<int, std::string>, Cell> cells;        ///< by (profile order, dtype)
  std::map<std::string, std::pair<int, int>> clause_sides;  ///< clause -> (valid, invalid)
  std::map<std::string, std::vector<int>> ulp_bins;         ///< dtype -> histogram
  std::map<std::string, std::vector<int>> margin_bins;      ///< dtype -> histogram
  std::map<std::string, int> tags;
  int cases = 0, failures = 0;
  int drawn = 0;  ///< case indices run over all rounds (filtered and extra boundary draws too)
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

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return stamp;
}

// One case's counts, as a cell of its own (add_cell adds it to its cell).
Cell cell_of_case(const props::LawResult& r) {
  Cell one;
  one.cases = 1;
  one.mistrusted = r.mistrusted ? 1 : 0;
  one.mistrust_reason = r.mistrust_reason;
  const props::LawMeasurements& m = r.measured;
  one.bounded_elements = m.bounded_elements;
  one.exact_elements = m.exact_elements;
  one.checks = m.checks;
  if (m.bounded()) {
    one.worst_error_over_bound = m.worst_error_over_bound;
    one.worst_repro = r.repro;
  }
  one.max_rel_error = m.max_rel_error;
  one.max_abs_error = m.max_abs_error;
  one.has_mere = m.has_mere;
  one.mere = m.mere;
  one.mare = m.mare;
  if (!r.holds) {
    one.failed = 1;
    one.failures.push_back(r.detail);
  }
  return one;
}

// One round of a binding: `cases` cases drawn from `seed` from index `first`, added to what
// earlier rounds left in `out`.
void run_work(const Work& w, const CampaignOptions& options, int first, int cases, uint64_t seed,
              const props::Backend& backend, WorkResult& out) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  std::set<std::pair<int, std::string>> touched;
  // Boundary cases draw a clause and a side at random; the traceability matrix wants both sides
  // of every clause, so the error contract keeps drawing (the same draws for a seed, in any
  // shard) until each side of each of its family's clauses has a case, or 10x its cases (at least
  // kMinBoundaryDraws) ran.
  std::set<std::pair<std::string, bool>> sides_missing;
  if (w.law->law == "error_contract") {
    for (const props::ClauseInfo& c : w.family->clauses) {
      const auto& tested = w.family->validation_tested;
      if (std::find(tested.begin(), tested.end(), c.id) != tested.end()) continue;
      const auto seen = out.clause_sides.find(std::string(c.id));
      const bool valid_seen = seen != out.clause_sides.end() && seen->second.first > 0;
      const bool invalid_seen = seen != out.clause_sides.end() && seen->second.second > 0;
      if (!valid_seen) sides_missing.insert({std::string(c.id), true});
      if (!invalid_seen) sides_missing.insert({std::string(c.id), false});
    }
  }
  for (int i = 0;
       i < cases || (!sides_missing.empty() && i < std::max(10 * cases, kMinBoundaryDraws)); ++i) {
    props::LawResult r = props::run_law_case(*w.law, backend, first + i, seed);
    out.drawn += 1;
    if (!r.clause.empty()) sides_missing.erase({r.clause, r.just_valid});
    if (!options.dtypes.empty() && !selected(options.dtypes, {r.dtype})) continue;
    const SpecProfile profile = profile_of(r.repro);
    if (!options.profile.empty() && profile_name(profile) != options.profile) continue;
    Cell& cell = out.cells[{static_cast<int>(profile), r.dtype}];
    touched.insert({static_cast<int>(profile), r.dtype});
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
    add_cell(cell, cell_of_case(r));
    const props::LawMeasurements& m = r.measured;
    if (m.bounded()) {
      auto& bins = out.margin_bins[r.dtype];
      bins.resize(kMarginBins);
      bins[static_cast<size_t>(margin_bin(m.worst_error_over_bound))] += 1;
    }
    if (!r.holds) out.failures += 1;
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
  for (const auto& key : touched) {
    out.cells[key].seconds += seconds / static_cast<double>(touched.size());
  }
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

// Shards by law: the items (bindings, fault rows) of one law go round the shards in turn, each
// law starting one shard after the previous law. A law's items cost alike across ops, and laws
// do not: in registry order the fork-heavy host-process laws fell on one shard, whose first round
// took a 60 s budget while the other shard ran 154 cases per binding.
class ShardSlots {
 public:
  int next(std::string_view law) {
    const int start = static_cast<int>(law_start_and_count_.size());
    auto& [first, seen] =
        law_start_and_count_.try_emplace(std::string(law), start, 0).first->second;
    return first + seen++;
  }

 private:
  std::map<std::string, std::pair<int, int>> law_start_and_count_;
};

void assign_shard_slots(std::vector<Work>& all) {
  ShardSlots slots;
  for (Work& w : all) w.shard_slot = slots.next(w.law->law);
}

// The law of a fault row's binding name ("NsaCompressGrad.host_fork_under_load").
std::string_view law_of_binding(std::string_view name) {
  const size_t dot = name.rfind('.');
  return dot == std::string_view::npos ? name : name.substr(dot + 1);
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
      if (!options.skipped_laws.empty() && selected(options.skipped_laws, {law.law, law.name})) {
        continue;
      }
      if (law.differential && options.against.empty()) continue;
      all.push_back({static_cast<int>(all.size()), family, &law});
    }
    add_clause_rows(*family, campaign);
  }
  assign_shard_slots(all);
  return all;
}

// The results of the shard's bindings into the campaign: cells, clause sides, error histograms,
// margins and coverage tags.
void collect_results(const std::vector<Work>& work, const std::vector<WorkResult>& results,
                     Campaign& campaign) {
  std::map<std::pair<std::string, std::string>, ErrorHistogram> histograms;
  for (size_t i = 0; i < work.size(); ++i) {
    const WorkResult& r = results[i];
    for (const auto& [key, cell] : r.cells) campaign.cells.push_back(cell);
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
// the shipped backend holds (a case the shipped backend also fails proves nothing). Rows go to
// shards by law, as bindings do: by row order, three of the four fork-law rows (each attempt 48
// forks, a catch a 3 s deadline) fell on one shard, which spent 30 of a 60 s budget on them.
void run_fault_self_test(const CampaignOptions& options,
                         const std::vector<const props::OpFamily*>& families,
                         const props::Backend& backend, Campaign& campaign) {
  const int shards = std::max(1, options.shard_count);
  std::string error;
  auto planted = props::Backend::load(options.planted_library, &error);
  int order = 0;
  ShardSlots slots;
  for (const props::OpFamily* family : families) {
    for (const props::FaultRow& row : family->fault_rows) {
      const int this_order = order++;
      if (slots.next(law_of_binding(row.law)) % shards != options.shard_index) continue;
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

uint64_t round_seed(uint64_t seed, int round) {
  if (round == 0) return seed;
  // splitmix64 of (seed, round): rounds of one campaign, and the same round of two seeds, draw
  // unrelated cases.
  uint64_t z = seed + 0x9E3779B97F4A7C15ull * static_cast<uint64_t>(round);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::optional<double> parse_duration(std::string_view text) {
  if (text.empty()) return std::nullopt;
  double unit = 1;
  switch (text.back()) {
    case 's':
      unit = 1, text.remove_suffix(1);
      break;
    case 'm':
      unit = 60, text.remove_suffix(1);
      break;
    case 'h':
      unit = 3600, text.remove_suffix(1);
      break;
    default:
      break;
  }
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !(value > 0)) return std::nullopt;
  return value * unit;
}

Campaign run_campaign(const CampaignOptions& options, const props::Backend& backend) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const auto elapsed = [start] {
    return std::chrono::duration<double>(Clock::now() - start).count();
  };
  Campaign campaign;
  campaign.options = options;
  campaign.started_at = utc_now();
  const int shards = std::max(1, options.shard_count);
  std::vector<const props::OpFamily*> families;
  const std::vector<Work> all = select_work(options, campaign, families);
  std::vector<Work> work;
  for (const Work& w : all) {
    if (w.shard_slot % shards == options.shard_index) work.push_back(w);
  }
  // The self-test first: its time is part of the budget, and the rounds fill what is left.
  if (!options.planted_library.empty()) {
    run_fault_self_test(options, families, backend, campaign);
  }
  const Campaign before_rounds = campaign;
  std::vector<WorkResult> results(work.size());
  // The campaign so far: the results of the rounds run, collected into a copy.
  const auto snapshot = [&] {
    Campaign c = before_rounds;
    c.rounds = campaign.rounds;
    for (const Round& r : c.rounds) c.cases_per_cell += r.cases;
    c.fewest_cases_per_cell = c.cases_per_cell;
    collect_results(work, results, c);
    c.seconds = elapsed();
    return c;
  };
  Progress progress(options.progress, options.budget_seconds);
  int total_cases = 0, total_failures = 0;
  // One process runs one binding at a time: the backend's spec profile and thread count are
  // process-wide, so `gradconf check --jobs N` runs N shard processes instead of threads.
  const auto run_round = [&](const Round& round) {
    RoundCost cost{.more_to_run = false};
    for (size_t i = 0; i < work.size(); ++i) {
      // A capped binding (the host-process laws fork per case) stops at its cap over all rounds.
      const int cap = work[i].law->cases_of(std::numeric_limits<int>::max());
      const bool capped = work[i].law->max_cases > 0;
      const int cases = cases_in_round(round, work[i].law->max_cases, results[i].cases);
      // A spread binding's cases continue its indices from the rounds before.
      const int first = capped && round.spreads_capped ? results[i].drawn : 0;
      const int failures_before = results[i].failures;
      const double binding_start = elapsed();
      run_work(work[i], options, first, cases, round.seed, backend, results[i]);
      if (results[i].cases < cap) {
        (capped ? cost.fixed_seconds : cost.scaling_seconds) += elapsed() - binding_start;
        cost.more_to_run = true;
      }
      total_cases += cases;
      total_failures += results[i].failures - failures_before;
      progress.update(static_cast<int>(campaign.rounds.size()), static_cast<int>(i) + 1,
                      static_cast<int>(work.size()), total_cases, total_failures, elapsed(),
                      work[i].law->name);
    }
    campaign.rounds.push_back(round);
    if (options.after_round) options.after_round(snapshot());
    return cost;
  };
  if (!options.replay.empty()) {
    for (const Round& round : options.replay) run_round(round);
  } else if (options.fixed_cases > 0) {
    run_round({options.shard_index, options.seed, options.fixed_cases});
  } else {
    run_rounds_on_the_clock(options.budget_seconds, options.seed, options.shard_index, run_round,
                            elapsed);
  }
  progress.finish();
  campaign = snapshot();
  return campaign;
}

}  // namespace gradconf::reports
