// The round plan of a campaign on the clock, on a simulated clock: a capped binding whose cases
// cost seconds each (the fork law) beside bindings whose cost grows with the round's cases. The
// plan must spend the budget without overrunning it, and the capped binding's cost must not
// shrink the rounds after the first (it made them 1 or 2 cases, 8 to 10 per binding in a 60 s
// campaign where 90 fit).
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "registry/registry.h"
#include "reports/src/round_plan.h"

namespace gradconf::reports {
namespace {

struct SimulatedCampaign {
  double now = 0;
  double seconds_per_work = 0.002;     ///< the growing bindings, per unit of case work
  double seconds_per_capped_case = 5;  ///< the capped bindings of a shard, per case each
  int cap = 4;
  bool has_growing = true;  ///< false: the capped bindings alone
  int capped_done = 0;
  std::vector<Round> rounds;

  RoundCost run(const Round& round) {
    rounds.push_back(round);
    RoundCost cost;
    for (int i = 0; has_growing && i < round.cases; ++i) {
      const double size = 1.0 + props::case_size(i);
      cost.scaling_seconds += seconds_per_work * size * size;
    }
    const int capped = cases_in_round(round, cap, capped_done);
    capped_done += capped;
    const double capped_seconds = capped * seconds_per_capped_case;
    if (capped_done < cap) cost.fixed_seconds = capped_seconds;
    cost.more_to_run = has_growing || capped_done < cap;
    now += cost.scaling_seconds + capped_seconds;
    return cost;
  }

  void plan(double budget) {
    run_rounds_on_the_clock(
        budget, 7, 0, [this](const Round& r) { return run(r); }, [this] { return now; });
  }
};

TEST(RoundPlan, ACappedBindingsCostDoesNotShrinkTheRoundsAfterTheFirst) {
  SimulatedCampaign with_capped, without;
  with_capped.seconds_per_work = without.seconds_per_work = 1e-4;
  without.seconds_per_capped_case = 0;
  with_capped.plan(120);
  without.plan(120);
  // Every round but the last (sized to what is left) as large as the same round without the
  // capped binding's seconds.
  ASSERT_GE(with_capped.rounds.size(), 4u);
  for (size_t r = 0; r + 1 < with_capped.rounds.size(); ++r) {
    EXPECT_TRUE(with_capped.rounds[r].spreads_capped);
    ASSERT_LT(r, without.rounds.size());
    EXPECT_EQ(with_capped.rounds[r].cases, without.rounds[r].cases) << "round " << r;
  }
  EXPECT_LE(with_capped.now, 120) << "the budget was overrun";
  EXPECT_GE(with_capped.now, 0.8 * 120) << "the budget was not spent";
  EXPECT_EQ(with_capped.capped_done, with_capped.cap);
}

TEST(RoundPlan, TheRoundsSpendTheBudgetAtAnyPace) {
  for (double per_work : {1e-6, 1e-4, 0.002}) {
    SimulatedCampaign campaign;
    campaign.seconds_per_work = per_work;
    campaign.seconds_per_capped_case = 1;
    campaign.plan(120);
    EXPECT_LE(campaign.now, 120) << per_work;
    EXPECT_GE(campaign.now, 0.8 * 120) << per_work;
  }
  // A pace round longer than the budget is the only round.
  SimulatedCampaign slow;
  slow.seconds_per_work = 0.05;  // the first 4 cases: 360 s
  slow.plan(120);
  EXPECT_EQ(slow.rounds.size(), 1u);
}

TEST(RoundPlan, StopsWhenEveryBindingIsAtItsCap) {
  SimulatedCampaign campaign;
  campaign.has_growing = false;
  campaign.seconds_per_capped_case = 1;
  campaign.plan(3600);
  EXPECT_EQ(campaign.capped_done, campaign.cap);
  EXPECT_LE(campaign.rounds.size(), static_cast<size_t>(campaign.cap));
}

}  // namespace
}  // namespace gradconf::reports
