#include "support/clause_rows.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "harness/backend.h"

namespace gradconf::testing {
namespace {

props::Call edited(const BaseCall& base, Direction direction, SpecProfile profile,
                   const CallEdit& edit) {
  props::Call call = base(direction, profile);
  edit(call);
  return call;
}

std::string where(const ClauseRow& row, const Edit& edit, const props::Call& call) {
  return row.clause + " [" + std::string(profile_name(call.profile)) + ", " +
         std::string(call.entry_name()) + "] " + edit.what + "\n  " + props::summarize(call);
}

}  // namespace

void expect_rows_hold(const BaseCall& base, std::span<const ClauseRow> rows) {
  const props::Backend& backend = props::Backend::linked();
  int valid_runs = 0, invalid_runs = 0;
  for (const ClauseRow& row : rows) {
    for (SpecProfile profile : row.profiles) {
      for (Direction direction : {Direction::kForward, Direction::kBackward}) {
        const unsigned bit = direction == Direction::kForward ? kForwardEntry : kBackwardEntry;
        if ((row.entries & bit) == 0) continue;

        const props::Call valid = edited(base, direction, profile, row.just_valid.apply);
        const props::Outcome ok = props::run(valid, {}, backend);
        ++valid_runs;
        EXPECT_EQ(ok.status, ACLNN_SUCCESS)
            << "just-valid refused: " << ok.message << "\n  " << where(row, row.just_valid, valid);
        bool wrote = false;
        for (size_t i = 0; i < valid.tensors.size(); ++i) {
          if (valid.tensors[i].output && !ok.view_untouched[i]) wrote = true;
        }
        EXPECT_TRUE(!ok.ok() || wrote)
            << "just-valid wrote no output: " << where(row, row.just_valid, valid);

        const props::Call invalid = edited(base, direction, profile, row.just_invalid.apply);
        const props::Outcome refused = props::run(invalid, {}, backend);
        ++invalid_runs;
        EXPECT_EQ(refused.status, row.status)
            << "message: " << refused.message << "\n  " << where(row, row.just_invalid, invalid);
        EXPECT_EQ(refused.failed_phase, 1) << where(row, row.just_invalid, invalid);
        EXPECT_EQ(refused.message.rfind(row.clause + ": ", 0), 0u)
            << "message \"" << refused.message << "\" does not name the clause first\n  "
            << where(row, row.just_invalid, invalid);
        for (size_t i = 0; i < invalid.tensors.size(); ++i) {
          if (invalid.tensors[i].output && !invalid.tensors[i].null) {
            EXPECT_TRUE(refused.view_untouched[i])
                << invalid.tensors[i].name
                << " written on error: " << where(row, row.just_invalid, invalid);
          }
        }
        EXPECT_TRUE(refused.outside_views_untouched) << refused.violations;
      }
    }
  }
  // A table of rows that runs nothing proves nothing.
  EXPECT_GT(valid_runs, 0);
  EXPECT_EQ(valid_runs, invalid_runs);
}

void expect_rows_cover(std::span<const std::pair<std::string_view, ProfileSet>> table_ids,
                       std::span<const ClauseRow> rows) {
  ASSERT_FALSE(table_ids.empty());
  for (const auto& entry : table_ids) {
    // (Named, not a structured binding: clang 14 does not capture those in lambdas.)
    const std::string_view id = entry.first;
    for (SpecProfile profile : implemented_profiles()) {
      if (!contains(entry.second, profile)) continue;
      const bool covered = std::any_of(rows.begin(), rows.end(), [&](const ClauseRow& row) {
        return row.clause == id &&
               std::find(row.profiles.begin(), row.profiles.end(), profile) != row.profiles.end();
      });
      EXPECT_TRUE(covered) << "no hand-written row for " << id << " under "
                           << profile_name(profile);
    }
  }
  for (const ClauseRow& row : rows) {
    const bool known = std::any_of(table_ids.begin(), table_ids.end(),
                                   [&](const auto& entry) { return entry.first == row.clause; });
    EXPECT_TRUE(known) << row.clause << " has a row but is not in the clause table";
    for (SpecProfile profile : row.profiles) {
      const bool active = std::any_of(table_ids.begin(), table_ids.end(), [&](const auto& entry) {
        return entry.first == row.clause && contains(entry.second, profile);
      });
      EXPECT_TRUE(active) << row.clause << " has a row for " << profile_name(profile)
                          << " but the table does not apply it there";
    }
  }
}

std::vector<ClauseRow> rows_of(const std::string& clause, const std::vector<SpecProfile>& profiles,
                               aclnnStatus status, const std::vector<Side>& just_valid,
                               const std::vector<Side>& just_invalid) {
  std::vector<ClauseRow> rows;
  std::vector<bool> valid_used(just_valid.size(), false);
  // The first side of `sides`, from `start` on, cyclically, that shares an entry with `entries`.
  auto partner = [](const std::vector<Side>& sides, size_t start, unsigned entries) -> int {
    for (size_t k = 0; k < sides.size(); ++k) {
      const size_t at = (start + k) % sides.size();
      if ((sides[at].entries & entries) != 0) return static_cast<int>(at);
    }
    return -1;
  };
  for (size_t i = 0; i < just_invalid.size(); ++i) {
    const Side& invalid = just_invalid[i];
    const int v = just_valid.empty() ? -1 : partner(just_valid, i, invalid.entries);
    if (v < 0) {
      rows.push_back({clause, profiles, invalid.entries, status, kAsGiven, invalid.edit});
      continue;
    }
    valid_used[static_cast<size_t>(v)] = true;
    const Side& valid = just_valid[static_cast<size_t>(v)];
    rows.push_back(
        {clause, profiles, valid.entries & invalid.entries, status, valid.edit, invalid.edit});
  }
  for (size_t j = 0; j < just_valid.size(); ++j) {
    const int i = valid_used[j] ? -1 : partner(just_invalid, 0, just_valid[j].entries);
    if (i < 0) continue;
    const Side& invalid = just_invalid[static_cast<size_t>(i)];
    rows.push_back({clause, profiles, just_valid[j].entries & invalid.entries, status,
                    just_valid[j].edit, invalid.edit});
  }
  return rows;
}

void resize(props::Call& call, std::initializer_list<std::pair<const char*, size_t>> sites,
            int64_t size) {
  for (const auto& [name, dim] : sites) {
    if (call.index_of(name) < 0) continue;
    props::TensorSpec& t = call.tensor(name);
    t.dims[dim] = size;
    t.layout = LayoutSpec{};
    if (!t.output) t.values.clear();
  }
}

}  // namespace gradconf::testing
