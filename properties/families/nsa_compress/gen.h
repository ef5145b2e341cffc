// RapidCheck generators of NsaCompress problems and their coverage tags.
#ifndef GRADCONF_PROPERTIES_FAMILIES_NSA_COMPRESS_GEN_H_
#define GRADCONF_PROPERTIES_FAMILIES_NSA_COMPRESS_GEN_H_

#include <rapidcheck.h>

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gen/boundary.h"
#include "gen/layout_gen.h"
#include "nsa_compress/problem.h"

namespace gradconf::props::nc {

struct GenOptions {
  std::optional<Direction> entry = {};
  bool strided = true;
  /// `seed` problems; false: `extended` now and then (small odd l and d, T_cmp = 0, FLOAT/DOUBLE).
  bool seed_only = false;
};

/// Valid problems: 1..4 sequence batches with lengths 0, below l, exactly l and longer (a leading
/// empty batch now and then), null actSeqLen and null layout now and then, l and d multiples of
/// 16 with 1 < l/d <= 8 (`extended`: small values, l <= d too), N 1..3 (128 now and then), D at
/// 16/32 (`extended`: 1..5), layouts per role, every dtype of the profile.
rc::Gen<gradconf::nc::Problem> gen_problem(const GenOptions& options = {});

/// How a role's layout is drawn, by the generators and the fuzz decoders: the RoleSpec's default
/// (inputs may broadcast).
LayoutRule layout_rule(const gradconf::nc::Problem& p, gradconf::nc::Role role);

/// One breaker per NC-* clause that a small problem can reach (NC-LIMIT-02 needs a workspace of
/// 2^62 bytes: the validation test covers it).
std::span<const ClauseBreaker> clause_breakers();

/// "dtype=bf16", "batches=3", "batch=empty", "batch=below-l", "overlap=2", "seq=null", ...
std::vector<std::string> problem_tags(const gradconf::nc::Problem& p);

}  // namespace gradconf::props::nc

#endif  // GRADCONF_PROPERTIES_FAMILIES_NSA_COMPRESS_GEN_H_
