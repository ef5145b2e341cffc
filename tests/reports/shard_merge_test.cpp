// check --shard I/N + merge-reports: three shards of a campaign, merged, are the campaign run
// whole (every cell, fault check, clause count, error histogram and coverage count; only times
// differ), and a report.json read back is the campaign it was written from.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "harness/backend.h"
#include "reports/src/campaign.h"
#include "reports/src/render.h"
#include "reports/src/trend.h"

namespace gradconf::reports {
namespace {

/// Everything a report says about a campaign except how long it took.
std::string canonical(const Campaign& c) {
  std::ostringstream out;
  out.precision(17);
  out << "cases " << c.cases_per_cell << " fewest " << c.fewest_cases_per_cell << "\n";
  for (const Cell& x : c.cells) {
    out << "cell " << x.order << " " << x.family << " " << x.entry << " " << x.law << " " << x.dtype
        << " " << x.cases << " " << x.failed << " " << x.mistrusted << " "
        << x.worst_error_over_bound << " " << x.max_rel_error << " " << x.max_abs_error << "\n";
    for (const auto& f : x.failures) out << "  " << f << "\n";
  }
  for (const FaultCheck& f : c.faults) {
    // A timing-dependent row is caught after as many cases as the scheduling takes.
    out << "fault " << f.order << " " << f.family << " " << f.fault << " " << f.law << " "
        << f.caught << " " << (f.timing_dependent ? "-" : std::to_string(f.attempts)) << "\n";
  }
  for (const ClauseRow& r : c.clauses) {
    out << "clause " << r.id << " " << r.valid_cases << " " << r.invalid_cases << "\n";
  }
  for (const ErrorHistogram& h : c.errors) {
    out << "errors " << h.entry << " " << h.dtype << " " << h.tolerance_ulps;
    for (int n : h.bins) out << " " << n;
    out << "\n";
  }
  for (const auto& [family, tags] : c.coverage) {
    for (const auto& [tag, n] : tags) out << "tag " << family << " " << tag << " " << n << "\n";
  }
  return out.str();
}

CampaignOptions small_campaign() {
  CampaignOptions options;
  options.ops = {"nsa_compress", "multi_scale_deformable_attention"};
  options.fixed_cases = 4;
  // What is merged is the same for every law; the 48-fork law would only add minutes.
  options.skipped_laws = {"host_fork_under_load"};
  options.seed = 5;
  options.progress = false;
  options.planted_library = GRADCONF_PLANTED_LIBRARY;
  return options;
}

TEST(ShardMerge, ThreeShardsMergedEqualTheWholeCampaign) {
  const props::Backend& backend = props::Backend::linked();
  const Campaign whole = run_campaign(small_campaign(), backend);
  ASSERT_GT(whole.cells.size(), 20u);
  ASSERT_FALSE(whole.faults.empty());
  std::vector<Campaign> shards;
  for (int i = 0; i < 3; ++i) {
    CampaignOptions options = small_campaign();
    options.shard_index = i;
    options.shard_count = 3;
    shards.push_back(run_campaign(options, backend));
    EXPECT_LT(shards.back().cells.size(), whole.cells.size()) << "shard " << i << " ran it all";
  }
  EXPECT_EQ(canonical(merge_campaigns(shards)), canonical(whole));
}

TEST(ShardMerge, ReportJsonReadsBackAsTheCampaign) {
  CampaignOptions options = small_campaign();
  options.shard_index = 1;
  options.shard_count = 2;
  const Campaign part = run_campaign(options, props::Backend::linked());
  Campaign read;
  std::string error;
  ASSERT_TRUE(campaign_from_json(render_json(part, {}), &read, &error)) << error;
  EXPECT_EQ(canonical(read), canonical(part));
  EXPECT_EQ(read.options.shard_index, 1);
  EXPECT_EQ(read.options.shard_count, 2);
  EXPECT_FALSE(campaign_from_json("{\"schema_version\": 1}", &read, &error));
}

// Shards run at their own pace: the merged report says how few cases the slowest shard ran, not
// only how many the fastest did, and keeps it through report.json.
TEST(ShardMerge, AMergeOfShardsOfDifferentPaceStatesBothCounts) {
  Campaign slow, fast;
  slow.cases_per_cell = slow.fewest_cases_per_cell = 4;
  fast.cases_per_cell = fast.fewest_cases_per_cell = 154;
  const Campaign merged = merge_campaigns({slow, fast});
  EXPECT_EQ(cases_per_binding_text(merged), "4 to 154");
  EXPECT_EQ(cases_per_binding_text(slow), "4");
  Campaign read;
  std::string error;
  ASSERT_TRUE(campaign_from_json(render_json(merged, {}), &read, &error)) << error;
  EXPECT_EQ(cases_per_binding_text(read), "4 to 154");
}

// A campaign on the clock runs rounds until its budget is spent; the rounds its report records
// rerun it exactly, whatever the machine's speed; the reports are rewritten after every round.
TEST(Rounds, AClockCampaignReplaysExactlyFromItsRounds) {
  CampaignOptions options;
  options.ops = {"nsa_compress"};
  options.skipped_laws = {"host_fork_under_load"};
  options.seed = 11;
  options.progress = false;
  // The budget is three pace rounds on this machine, as loaded as it is now (at least 4 s): a
  // fixed budget failed on a slower machine, whose pace round alone took it all.
  options.budget_seconds = 0.001;
  const Campaign pace = run_campaign(options, props::Backend::linked());
  ASSERT_EQ(pace.rounds.size(), 1u) << "a spent budget still runs the pace round, only it";
  options.budget_seconds = std::max(4.0, 3 * pace.seconds);
  std::vector<int> snapshots;
  options.after_round = [&](const Campaign& so_far) { snapshots.push_back(so_far.cases_per_cell); };
  const Campaign timed = run_campaign(options, props::Backend::linked());
  ASSERT_GE(timed.rounds.size(), 2u)
      << "a budget of three pace rounds (" << options.budget_seconds << " s) ran only the first";
  EXPECT_EQ(timed.rounds.front().seed, 11u);
  EXPECT_NE(timed.rounds[1].seed, timed.rounds[0].seed);
  ASSERT_EQ(snapshots.size(), timed.rounds.size());
  EXPECT_TRUE(std::is_sorted(snapshots.begin(), snapshots.end()));
  EXPECT_EQ(snapshots.back(), timed.cases_per_cell);
  EXPECT_LT(timed.seconds, options.budget_seconds * 1.5) << "the budget was overrun";

  CampaignOptions again = options;
  again.after_round = nullptr;
  again.replay = timed.rounds;
  again.budget_seconds = 0.001;  // the replay ignores the clock
  const Campaign replayed = run_campaign(again, props::Backend::linked());
  EXPECT_EQ(canonical(replayed), canonical(timed));
}

TEST(Rounds, DurationsParse) {
  EXPECT_EQ(parse_duration("90"), 90);
  EXPECT_EQ(parse_duration("90s"), 90);
  EXPECT_EQ(parse_duration("20m"), 1200);
  EXPECT_EQ(parse_duration("8h"), 28800);
  EXPECT_EQ(parse_duration("1.5m"), 90);
  for (const char* bad : {"", "h", "-5", "0", "5d", "5 m", "m5"}) {
    EXPECT_FALSE(parse_duration(bad).has_value()) << bad;
  }
}

// Three nights: a cell whose margin grows and crosses the bound on the third.
TEST(Trend, ShowsTheFirstFailureAndTheMarginByReport) {
  std::vector<TrendPoint> series;
  const double margins[] = {0.1, 0.3, 1.5};
  for (int night = 2; night >= 0; --night) {  // out of order: trend orders by start time
    TrendPoint p;
    p.label = "night" + std::to_string(night + 1);
    p.campaign.started_at = "2026-11-2" + std::to_string(night + 1) + "T02:00:00Z";
    Cell cell;
    cell.law = "NsaCompressGrad.matches_reference";
    cell.profile = "seed";
    cell.dtype = "f32";
    cell.cases = 100;
    cell.bounded_elements = 1000;
    cell.worst_error_over_bound = margins[night];
    cell.worst_repro = "nc_grad n1d16l32s16";
    cell.failed = night == 2 ? 1 : 0;
    p.campaign.cells.push_back(cell);
    series.push_back(p);
  }
  order_trend(series);
  ASSERT_EQ(series.front().label, "night1");
  const std::string md = render_trend_markdown(series);
  EXPECT_NE(md.find("| NsaCompressGrad.matches_reference | seed | f32 | 300 | #3 night3 | FAILED | "
                    "0.1 0.3 1.5 |"),
            std::string::npos)
      << md;
  const std::string html = render_trend_html(series);
  EXPECT_NE(html.find("<polyline"), std::string::npos);
  size_t circles = 0;
  for (size_t at = html.find("<circle"); at != std::string::npos; at = html.find("<circle", at + 1))
    ++circles;
  EXPECT_EQ(circles, 3u);
  EXPECT_NE(html.find("fill=\"#c00\""), std::string::npos) << "the failed night is not red";
}

}  // namespace
}  // namespace gradconf::reports
