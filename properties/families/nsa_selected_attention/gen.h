// RapidCheck generators of NsaSelectedAttention problems and their coverage tags.
#ifndef GRADCONF_PROPERTIES_FAMILIES_NSA_SELECTED_ATTENTION_GEN_H_
#define GRADCONF_PROPERTIES_FAMILIES_NSA_SELECTED_ATTENTION_GEN_H_

#include <rapidcheck.h>

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gen/boundary.h"
#include "gen/layout_gen.h"
#include "nsa_selected_attention/problem.h"

namespace gradconf::props::nsa {

struct GenOptions {
  std::optional<Direction> entry = {};
  bool strided = true;
  /// `seed` problems only; false: `extended` now and then (small heads, FLOAT/DOUBLE, small B).
  bool seed_only = false;
};

/// Valid problems: 1..3 batches of different lengths, kv length exactly B*K or a few blocks more,
/// causal-valid topk (own block usually included, the others distinct and earlier) or arbitrary
/// topk (duplicates, future blocks: fully masked rows under sparseMode 2), G from 1 to 32, N2 1
/// or 2, Dqk/Dv 128/192 (`extended`: 1..8), attenMask and attentionOut given or null, layouts.
rc::Gen<gradconf::nsa::Problem> gen_problem(const GenOptions& options = {});

/// How a role's layout is drawn, by the generators and the fuzz decoders: the RoleSpec's default
/// (topkIndices is an index input: never broadcast), the forward's results never broadcast, keys
/// and values never along the token dim.
LayoutRule layout_rule(const gradconf::nsa::Problem& p, gradconf::nsa::Role role);

/// One breaker per NSA-* clause that a small problem can reach.
std::span<const ClauseBreaker> clause_breakers();

/// "dtype=bf16", "g=4", "topk=arbitrary", "sparse=2", "row=fully-masked", "out=null", ...
std::vector<std::string> problem_tags(const gradconf::nsa::Problem& p);

}  // namespace gradconf::props::nsa

#endif  // GRADCONF_PROPERTIES_FAMILIES_NSA_SELECTED_ATTENTION_GEN_H_
