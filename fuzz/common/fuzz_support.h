// What every fuzz target shares: picking from the shared range tables with a FuzzedDataProvider,
// and the one way a target reports a finding (print the repro, then trap so libFuzzer saves the
// input and the g++ replay build fails).
#ifndef GRADCONF_FUZZ_COMMON_FUZZ_SUPPORT_H_
#define GRADCONF_FUZZ_COMMON_FUZZ_SUPPORT_H_

#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <set>
#include <span>
#include <string>

#include "aclnn/acl_meta.h"
#include "core/direction.h"
#include "core/layout.h"
#include "core/profile.h"
#include "gen/layout_gen.h"
#include "laws/law.h"

namespace gradconf::fuzz {

/// One element of `values`, chosen by the input (the first one when the input is exhausted, so
/// short inputs decode to the simplest case).
template <typename T>
T pick(FuzzedDataProvider& fdp, std::span<const T> values) {
  return values[fdp.ConsumeIntegralInRange<size_t>(0, values.size() - 1)];
}
template <typename T, size_t N>
T pick(FuzzedDataProvider& fdp, const std::array<T, N>& values) {
  return pick(fdp, std::span<const T>(values));
}

/// How every decoder starts: a default problem of `direction` in one of `dtypes`.
template <typename Problem, size_t N>
Problem start_problem(FuzzedDataProvider& fdp, Direction direction,
                      const std::array<aclDataType, N>& dtypes) {
  Problem p;
  p.entry = direction;
  p.dtype = pick(fdp, dtypes);
  return p;
}

/// Any of the three spec profiles, or `extended` alone (no byte read) for a dtype only it
/// accepts.
inline SpecProfile pick_profile(FuzzedDataProvider& fdp, bool extended_only) {
  if (extended_only) return SpecProfile::kExtended;
  return pick(fdp,
              std::array{SpecProfile::kExtended, SpecProfile::kSeed, SpecProfile::kCannLatest});
}

/// A size in [lo, hi]: mostly uniform in [max(lo, 1), hi], often one of `boundary`, and 0 (when
/// lo is 0) one time in sixteen. An exhausted input gives max(lo, 1).
template <size_t N>
int64_t pick_size(FuzzedDataProvider& fdp, int64_t lo, int64_t hi,
                  const std::array<int64_t, N>& boundary) {
  const int kind = fdp.ConsumeIntegralInRange<int>(0, 15);
  if (kind == 15 && lo == 0) return 0;
  if (kind >= 9) {
    const int64_t b = pick(fdp, boundary);
    if (b >= lo && b <= hi) return b;
  }
  return fdp.ConsumeIntegralInRange<int64_t>(std::max<int64_t>(lo, 1), hi);
}

/// A layout as gen_layout draws it (contiguous about half of the time), from bytes.
LayoutSpec decode_layout(FuzzedDataProvider& fdp, int rank, bool is_input,
                         const props::LayoutLimits& limits = {},
                         const std::vector<std::vector<int>>& orders = {});

/// A layout for each role of the entry, by `rule_of(problem, role)` as with_layouts draws them.
template <typename Problem, typename RuleOf>
void decode_layouts(FuzzedDataProvider& fdp, Problem& p, RuleOf rule_of) {
  for (auto role : p.roles()) {
    const props::LayoutRule rule = rule_of(p, role);
    const int rank = static_cast<int>(p.dims(role).size());
    p.layout(role) = decode_layout(fdp, rank, rule.broadcastable, rule.limits, rule.orders);
  }
}

/// Records a coverage tag ("dtype=bf16", "clause=GS-SHAPE-04 just-invalid", ...) for the current
/// input when the replay driver asked for tags (--tags, --require-tags); a no-op otherwise, and
/// always under libFuzzer. This is how a corpus proves what it covers.
void tag(std::string_view name);
/// True when tags are being recorded: lets a target skip building a tag's text otherwise.
bool tags_enabled();
/// Turns tag recording on and returns the counts (tag -> inputs that hit it).
std::map<std::string, int, std::less<>>& enable_tags();
/// Starts a new input: tags count once per input however often they are recorded.
void begin_input();

/// Reports a finding: `what` first (it carries the repro line), then a trap.
[[noreturn]] inline void finding(const std::string& what) {
  std::fprintf(stderr, "gradconf fuzz finding: %s\n", what.c_str());
  std::fflush(stderr);
  __builtin_trap();
}

inline void require(const props::LawResult& result) {
  if (!result.holds) finding(result.detail);
}

}  // namespace gradconf::fuzz

#endif  // GRADCONF_FUZZ_COMMON_FUZZ_SUPPORT_H_
