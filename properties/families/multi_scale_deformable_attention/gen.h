// RapidCheck generators of MultiScaleDeformableAttention problems and their coverage tags.
#ifndef GRADCONF_PROPERTIES_FAMILIES_MULTI_SCALE_DEFORMABLE_ATTENTION_GEN_H_
#define GRADCONF_PROPERTIES_FAMILIES_MULTI_SCALE_DEFORMABLE_ATTENTION_GEN_H_

#include <rapidcheck.h>

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gen/boundary.h"
#include "gen/layout_gen.h"
#include "multi_scale_deformable_attention/problem.h"

namespace gradconf::props::msda {

struct GenOptions {
  std::optional<Direction> entry = {};
  bool strided = true;
  bool allow_empty = true;
  bool allow_specials = true;
  /// Unset: seed mostly, extended (DOUBLE, C not a multiple of 8) and cann-latest (3-D
  /// gradOutput and output) a quarter of the time each.
  std::optional<SpecProfile> profile = {};
};

/// Valid problems: 1..4 levels of sizes 1x1 to 9x9 (non-square too), both index dtypes each,
/// C in {8, 16, 24, 32, 64} (extended also 1, 2, 4, 30, 71: mmcv's and Deformable-DETR's), heads,
/// queries and points small, locations mostly in [-0.1, 1.1] with specials, attention weights with
/// zeros, layouts per role, every dtype.
rc::Gen<gradconf::msda::Problem> gen_problem(const GenOptions& options = {});

/// How a role's layout is drawn, by the generators and the fuzz decoders: the RoleSpec's default
/// (inputs may broadcast, the level tables may not).
LayoutRule layout_rule(const gradconf::msda::Problem& p, gradconf::msda::Role role);

/// One breaker per MSDA-* clause that a small problem can reach (MSDA-LIMIT-02 needs 500000
/// queries and MSDA-LIMIT-05 a workspace of 2^62 bytes: validation tests cover them).
std::span<const ClauseBreaker> clause_breakers();

/// "dtype=bf16", "levels=3", "index=32.64", "loc=specials", "layout:value=permuted", "empty", ...
std::vector<std::string> problem_tags(const gradconf::msda::Problem& p);

}  // namespace gradconf::props::msda

#endif  // GRADCONF_PROPERTIES_FAMILIES_MULTI_SCALE_DEFORMABLE_ATTENTION_GEN_H_
