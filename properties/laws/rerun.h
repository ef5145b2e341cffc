// Two runs of the same logical call by one backend (another memory layout, a batch split):
// compared bit for bit when the backend promises bitwise invariance (ours does,
// gradconfBitwiseInvariant), else element by element to rerun_bound (compare/tolerance.h) plus
// each run's cancellation floor, so a correct backend that orders its sums by shape is not a
// false alarm and a wrong stride or a batch read from the wrong rows still is.
#ifndef GRADCONF_PROPERTIES_LAWS_RERUN_H_
#define GRADCONF_PROPERTIES_LAWS_RERUN_H_

#include <optional>
#include <string>
#include <vector>

#include "compare/tolerance.h"
#include "laws/law.h"

namespace gradconf::props {

/// nullopt when `got` is the same as `expected` (the run it must reproduce) in the sense above;
/// else what differs. Records what was compared in `measured`.
/// `floors` (compare()'s, from the reference; may be empty): each run may also err by its
/// element's cancellation floor, so two runs by twice that.
inline std::optional<std::string> rerun_difference(const Backend& backend, const Tolerance& row,
                                                   aclDataType dtype, std::span<const double> got,
                                                   std::span<const double> expected,
                                                   std::span<const int64_t> shape,
                                                   LawMeasurements& measured,
                                                   std::span<const double> floors = {}) {
  if (backend.bitwise_invariant()) {
    measured.add_exact(static_cast<int64_t>(expected.size()));
    const int64_t at = first_bit_difference(got, expected);
    if (at < 0) return std::nullopt;
    const auto i = static_cast<size_t>(at);
    if (i >= got.size() || i >= expected.size()) return "sizes differ";
    return "at flat index " + std::to_string(at) + ": " + std::to_string(got[i]) + " vs " +
           std::to_string(expected[i]) + " (bitwise)";
  }
  if (got.size() != expected.size()) return "sizes differ";
  std::vector<double> bounds(got.size());
  const bool floored = floors.size() == got.size();
  for (size_t i = 0; i < got.size(); ++i) {
    bounds[i] = rerun_bound(row, dtype, got[i], expected[i]) + (floored ? 2 * floors[i] : 0.0);
  }
  const Comparison c = compare_bounded(got, expected, bounds, shape, row);
  measured.add(c, /*against_reference=*/false);
  if (c.status != CompareStatus::kFailed) return std::nullopt;
  return "beyond rerun_bound: " + c.summary();
}

}  // namespace gradconf::props

#endif  // GRADCONF_PROPERTIES_LAWS_RERUN_H_
