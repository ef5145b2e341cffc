// check --shard I/N + merge-reports: three shards of a campaign, merged, are the campaign run
// whole (every cell, fault check, clause count, error histogram and coverage count; only times
// differ), and a report.json read back is the campaign it was written from.
#include <gtest/gtest.h>

#include <sstream>

#include "harness/backend.h"
#include "reports/src/campaign.h"
#include "reports/src/render.h"

namespace gradconf::reports {
namespace {

/// Everything a report says about a campaign except how long it took.
std::string canonical(const Campaign& c) {
  std::ostringstream out;
  out.precision(17);
  out << "cases " << c.cases_per_cell << "\n";
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
  options.budget_seconds = 1;  // the minimum case count per law binding
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

}  // namespace
}  // namespace gradconf::reports
