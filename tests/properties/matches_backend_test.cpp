// The differential law (matches_backend, `gradconf check --against`) must see every planted
// fault that the reference law sees, whichever side carries it: on the case where
// matches_reference catches the fault, matches_backend of the planted library judged against
// ours fails, and so does ours judged against the planted library, unless the error is within
// twice the table's bound (two conforming backends may differ that much: the law's bound is the
// sum of both sides' allowances). With no fault on either side it holds on the same cases.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "registry/registry.h"
#include "support/planted_backend.h"

namespace gradconf::props {
namespace {

// Cases tried per fault to find one that matches_reference catches.
constexpr int kAttempts = 150;

struct Tally {
  int seen_by_reference = 0;
  /// Faults whose every catch by matches_reference was an error within twice the table's bound:
  /// two correct backends may differ that much, so the differential law must let it pass.
  std::vector<std::string> within_two_bounds;
  std::vector<std::string> missed;
};

void check_fault(const OpFamily& family, std::string_view fault, Tally& tally) {
  const Backend& planted = gradconf::testing::planted_backend(family.family, fault);
  const auto planted_against_ours = planted.judged_against(unowned(Backend::linked()));
  const auto ours_against_planted = Backend::linked().judged_against(unowned(planted));
  const std::string name = std::string(family.family) + "." + std::string(fault);
  bool small_only = false;
  for (const EntrySpec* entry : family.entries) {
    const LawBinding* reference = family.law(std::string(entry->name) + ".matches_reference");
    const LawBinding* differential = family.law(std::string(entry->name) + ".matches_backend");
    ASSERT_TRUE(reference && differential) << entry->name;
    ASSERT_TRUE(differential->differential);
    for (int i = 0; i < kAttempts; ++i) {
      const LawResult caught = run_law_case(*reference, planted, i);
      if (caught.holds || !run_law_case(*reference, Backend::linked(), i).holds) continue;
      const bool by_value = caught.measured.bounded();
      if (by_value && caught.measured.worst_error_over_bound <= 2) {
        small_only = true;
        continue;
      }
      tally.seen_by_reference += 1;
      const LawResult one_way = run_law_case(*differential, *planted_against_ours, i);
      const LawResult other_way = run_law_case(*differential, *ours_against_planted, i);
      if (one_way.holds || other_way.holds) {
        tally.missed.push_back(name + " on " + std::string(entry->name) + " case " +
                               std::to_string(i) + ": " + caught.detail);
      }
      return;
    }
  }
  if (small_only) tally.within_two_bounds.push_back(name);
}

TEST(MatchesBackend, sees_every_planted_fault_the_reference_law_sees_from_either_side) {
  Tally tally;
  for (const OpFamily* family : op_families()) {
    for (std::string_view fault : family->faults) check_fault(*family, fault, tally);
  }
  gradconf::testing::planted_backend().select_fault("");
  EXPECT_GE(tally.seen_by_reference, 20) << "too few faults to prove anything";
  EXPECT_TRUE(tally.missed.empty()) << ::testing::PrintToString(tally.missed);
  std::cout << "matches_backend saw all " << tally.seen_by_reference
            << " planted faults matches_reference saw beyond twice its bound; within twice the "
               "bound only: "
            << ::testing::PrintToString(tally.within_two_bounds) << "\n";
}

TEST(MatchesBackend, holds_between_our_kernels_and_the_unfaulted_planted_library) {
  const Backend& planted = gradconf::testing::planted_backend();
  planted.select_fault("");
  const auto judged = planted.judged_against(unowned(Backend::linked()));
  for (const OpFamily* family : op_families()) {
    for (const LawBinding& law : family->laws) {
      if (!law.differential) continue;
      for (int i = 0; i < 30; ++i) {
        const LawResult r = run_law_case(law, *judged, i);
        EXPECT_TRUE(r.holds) << r.detail;
        EXPECT_TRUE(r.measured.compared_anything()) << law.name << " case " << i;
      }
    }
  }
}

}  // namespace
}  // namespace gradconf::props
