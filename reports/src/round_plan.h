// How a campaign on the clock sizes its rounds (`gradconf check --budget`): a small first round
// measures the pace, and each next round is sized from the pace of the work that will run again
// to take its share of what is left.
#ifndef GRADCONF_REPORTS_SRC_ROUND_PLAN_H_
#define GRADCONF_REPORTS_SRC_ROUND_PLAN_H_

#include <functional>

#include "reports/src/campaign.h"

namespace gradconf::reports {

/// What a round cost that the next round costs again. A capped binding (the host-process laws
/// fork per case) runs a fixed number of cases a round until it reaches its cap, so its seconds
/// are a fixed cost of the next round, and once at its cap no cost at all; only the other
/// bindings' seconds grow with the round's cases. Counted as one pace, the fork law's cases in
/// the first round of a 60 s campaign made every later round 1 or 2 cases (8 to 10 cases per
/// binding in all, where 90 fit).
struct RoundCost {
  double scaling_seconds = 0;  ///< uncapped bindings
  double fixed_seconds = 0;    ///< capped bindings with cases left
  bool more_to_run = true;     ///< some binding can still run cases
};

/// The cases a binding runs in `round` when `done` ran before: the round's cases, at most what
/// is left of its cap (`max_cases` 0: no cap), and in a round that spreads capped bindings at most
/// 1/kRoundsPerCap of the cap (at least one).
int cases_in_round(const Round& round, int max_cases, int done);

/// Runs rounds (seed round_seed(seed, r), shard `shard`) until `budget_seconds` of `elapsed()`
/// are spent or no binding has cases left.
void run_rounds_on_the_clock(double budget_seconds, uint64_t seed, int shard,
                             const std::function<RoundCost(const Round&)>& run_round,
                             const std::function<double()>& elapsed);

}  // namespace gradconf::reports

#endif  // GRADCONF_REPORTS_SRC_ROUND_PLAN_H_
