#include "reports/src/round_plan.h"

#include <algorithm>

#include "registry/registry.h"

namespace gradconf::reports {
namespace {

// The first round is small, to measure the pace; the next ones are sized from it to take about
// kRoundShare of the budget (at least kMinRoundSeconds, at most what is left), so the reports are
// rewritten often and a kill loses little.
constexpr int kFirstRoundCases = 4;
constexpr double kRoundShare = 0.125;
constexpr double kMinRoundSeconds = 5;
constexpr int kMaxCasesPerRound = 100000;

// The work of case `index` relative to a size-0 case. Tensor extents grow with the generator
// size, so a case costs about the square of (1 + size). Rounds are sized in this work, not in
// cases: the pace round's cases have sizes 0, 37, 74 and 10 (mean 30; every 101 cases have mean
// 50), and seconds per case from it made the second round take about three times its share.
double case_work(int index) {
  const double size = 1.0 + props::case_size(index);
  return size * size;
}

double round_work(int cases) {
  double work = 0;
  for (int i = 0; i < cases; ++i) work += case_work(i);
  return work;
}

// The most cases, from index 0, whose work fits in `work` (at least 1, at most
// kMaxCasesPerRound).
int cases_within(double work) {
  int cases = 0;
  for (double sum = case_work(0); cases < kMaxCasesPerRound && sum <= work;) {
    sum += case_work(++cases);
  }
  return std::max(cases, 1);
}

}  // namespace

int cases_in_round(const Round& round, int max_cases, int done) {
  if (max_cases <= 0) return round.cases;
  const int cases = std::min(round.cases, std::max(0, max_cases - done));
  if (!round.spreads_capped) return cases;
  return std::min(cases, std::max(1, max_cases / kRoundsPerCap));
}

void run_rounds_on_the_clock(double budget_seconds, uint64_t seed, int shard,
                             const std::function<RoundCost(const Round&)>& run_round,
                             const std::function<double()>& elapsed) {
  int cases = kFirstRoundCases;
  bool last = false;
  for (int r = 0;; ++r) {
    const RoundCost cost = run_round({shard, round_seed(seed, r), cases, true});
    // After the round sized to what was left, whatever is left is less than a round's share:
    // rounds of a size-0 case each would fill it, rewriting the reports every time.
    if (last || !cost.more_to_run) break;
    // Seconds per unit of case work, and per case, of the bindings whose cost grows with cases.
    const double per_work = cost.scaling_seconds / round_work(cases);
    const double per_case = cost.scaling_seconds / cases;
    const double left = budget_seconds - elapsed();
    if (!(left > cost.fixed_seconds + per_work * case_work(0))) break;
    // The seconds for the growing part: its share, on top of the capped bindings' fixed cost, or
    // what is left in the last round.
    const double share = std::max(kMinRoundSeconds, kRoundShare * budget_seconds);
    last = left - cost.fixed_seconds <= share;
    const double target = last ? left - cost.fixed_seconds : share;
    // A case also has a fixed cost that its work does not model. Sized by work alone, a round of
    // one size-0 case took long enough that the next was one size-0 case again: 64 such rounds on
    // one shard of a 60 s campaign. So a round may also double the last, as far as the seconds
    // per case of the last allow.
    const int by_work = cases_within(target / std::max(per_work, 1e-12));
    const int by_count =
        static_cast<int>(std::min<double>(target / std::max(per_case, 1e-12), kMaxCasesPerRound));
    // The last round is sized by work alone: it must end within the budget.
    cases = last ? by_work : std::max(by_work, std::min(2 * cases, by_count));
  }
}

}  // namespace gradconf::reports
