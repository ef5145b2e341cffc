// Joining campaigns: the cells of one binding from several rounds, and the shards (or any disjoint
// parts) of one campaign into the report of one run.
#include <algorithm>
#include <map>
#include <tuple>

#include "reports/src/campaign.h"

namespace gradconf::reports {
namespace {

constexpr size_t kFailuresKept = 3;

// `item` added to the entry of `into` that `same` finds, or appended when there is none.
template <typename T, typename Same, typename Add>
void add_or_append(std::vector<T>& into, const T& item, Same same, Add add) {
  auto it = std::find_if(into.begin(), into.end(), [&](const T& x) { return same(x, item); });
  if (it == into.end()) {
    into.push_back(item);
  } else {
    add(*it, item);
  }
}

// The counts a part ran: its longest time, its most and fewest cases per binding, its rounds and
// its earliest start.
void merge_counts(Campaign& merged, const Campaign& part) {
  merged.seconds = std::max(merged.seconds, part.seconds);
  merged.cases_per_cell = std::max(merged.cases_per_cell, part.cases_per_cell);
  merged.fewest_cases_per_cell = merged.fewest_cases_per_cell == 0
                                     ? part.fewest_cases()
                                     : std::min(merged.fewest_cases_per_cell, part.fewest_cases());
  merged.rounds.insert(merged.rounds.end(), part.rounds.begin(), part.rounds.end());
  if (merged.started_at.empty() ||
      (!part.started_at.empty() && part.started_at < merged.started_at)) {
    merged.started_at = part.started_at;
  }
}

// A part's cells, faults, margins, clause sides and coverage tags into the merged campaign.
void merge_results(Campaign& merged, const Campaign& part) {
  for (const Cell& cell : part.cells) {
    add_or_append(
        merged.cells, cell,
        [](const Cell& a, const Cell& b) {
          return a.order == b.order && a.law == b.law && a.profile == b.profile &&
                 a.dtype == b.dtype;
        },
        add_cell);
  }
  merged.faults.insert(merged.faults.end(), part.faults.begin(), part.faults.end());
  for (const MarginHistogram& m : part.margins) {
    add_or_append(
        merged.margins, m,
        [](const MarginHistogram& a, const MarginHistogram& b) {
          return a.order == b.order && a.law == b.law && a.dtype == b.dtype;
        },
        [](MarginHistogram& into, const MarginHistogram& from) {
          for (size_t k = 0; k < from.bins.size() && k < into.bins.size(); ++k)
            into.bins[k] += from.bins[k];
        });
  }
  for (const ClauseRow& row : part.clauses) {
    add_or_append(
        merged.clauses, row, [](const ClauseRow& a, const ClauseRow& b) { return a.id == b.id; },
        [](ClauseRow& into, const ClauseRow& from) {
          into.valid_cases += from.valid_cases;
          into.invalid_cases += from.invalid_cases;
        });
  }
  for (const auto& [family, tags] : part.coverage) {
    for (const auto& [tag, n] : tags) merged.coverage[family][tag] += n;
  }
}

// Cells by binding order, profile and dtype; faults and margins by binding order, as one process
// lists them.
void sort_as_one_run(Campaign& merged) {
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
}

}  // namespace

void add_cell(Cell& into, const Cell& from) {
  into.cases += from.cases;
  into.failed += from.failed;
  into.mistrusted += from.mistrusted;
  into.discarded += from.discarded;
  into.bounded_elements += from.bounded_elements;
  into.exact_elements += from.exact_elements;
  into.checks += from.checks;
  if (!from.worst_repro.empty() &&
      (into.worst_repro.empty() || from.worst_error_over_bound > into.worst_error_over_bound)) {
    into.worst_error_over_bound = from.worst_error_over_bound;
    into.worst_repro = from.worst_repro;
  }
  into.max_rel_error = std::max(into.max_rel_error, from.max_rel_error);
  into.max_abs_error = std::max(into.max_abs_error, from.max_abs_error);
  into.seconds += from.seconds;
  if (from.has_mere) {
    into.mere = std::max(into.mere, from.mere);
    into.mare = std::max(into.mare, from.mare);
    into.has_mere = true;
  }
  if (into.mistrust_reason.empty()) into.mistrust_reason = from.mistrust_reason;
  for (const std::string& f : from.failures) {
    if (into.failures.size() < kFailuresKept) into.failures.push_back(f);
  }
}

Campaign merge_campaigns(const std::vector<Campaign>& parts) {
  Campaign merged;
  if (parts.empty()) return merged;
  merged.options = parts.front().options;
  merged.options.shard_index = 0;
  merged.options.shard_count = 1;
  merged.cases_per_cell = 0;
  merged.started_at.clear();
  merged.clauses = parts.front().clauses;
  for (ClauseRow& row : merged.clauses) row.valid_cases = row.invalid_cases = 0;
  std::map<std::pair<std::string, std::string>, ErrorHistogram> histograms;
  for (const Campaign& part : parts) {
    merge_counts(merged, part);
    merge_results(merged, part);
    for (const ErrorHistogram& h : part.errors) {
      ErrorHistogram& into = histograms[{h.entry, h.dtype}];
      into.entry = h.entry;
      into.dtype = h.dtype;
      into.tolerance_ulps = h.tolerance_ulps;
      for (size_t k = 0; k < h.bins.size() && k < into.bins.size(); ++k) into.bins[k] += h.bins[k];
    }
  }
  sort_as_one_run(merged);
  for (auto& [key, h] : histograms) merged.errors.push_back(std::move(h));
  return merged;
}

}  // namespace gradconf::reports
