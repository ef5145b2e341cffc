#include "families/nsa_selected_attention/gen.h"
#include "families/nsa_selected_attention/entries.h"
#include "gen/problem_gen.h"

#include <algorithm>
#include <limits>

#include "core/dtype.h"
#include "core/repro.h"
#include "families/nsa_selected_attention/ranges.h"
#include "gen/layout_gen.h"

namespace gradconf::props::nsa {

using gradconf::nsa::Problem;
using gradconf::nsa::Role;
using gradconf::nsa::TopkFill;
namespace ranges = nsa_ranges;

namespace {

struct Heads {
  int64_t kv, group, dim_qk, dim_v, block, count;
};

rc::Gen<Heads> gen_heads(bool extended) {
  const auto group =
      rc::gen::weightedElement<int64_t>({{4, 1}, {4, 2}, {2, 4}, {1, ranges::kMaxGroup}});
  const auto dims = extended ? rc::gen::inRange<int64_t>(1, ranges::kMaxExtendedHeadDim + 1)
                             : rc::gen::elementOf(ranges::kSeedHeadDims);
  const auto block = extended ? rc::gen::inRange<int64_t>(1, ranges::kMaxExtendedBlock + 1)
                              : rc::gen::weightedElement<int64_t>(
                                    {{5, ranges::kSeedBlocks[0]}, {1, ranges::kSeedBlocks[1]}});
  return rc::gen::apply(
      [](int64_t kv, int64_t g, int64_t dqk, int64_t dv, int64_t b, int64_t k) {
        // G = 32 with one kv head and short blocks: the double reference stays fast.
        return g == ranges::kMaxGroup
                   ? Heads{1, g, dqk, dv, std::min<int64_t>(b, 16), std::min<int64_t>(k, 2)}
                   : Heads{kv, g, dqk, dv, b, k};
      },
      rc::gen::inRange<int64_t>(1, ranges::kMaxKvHeads + 1), group, dims, dims, block,
      rc::gen::inRange<int64_t>(1, ranges::kMaxCount + 1));
}

// (query length, kv length) per batch: kv exactly B*K or up to two blocks more.
rc::Gen<std::vector<std::array<int64_t, 2>>> gen_seqs(Heads h) {
  const auto one = rc::gen::mapcat(
      rc::gen::inRange<int64_t>(h.count, h.count + ranges::kMaxExtraKvBlocks + 1),
      [h](int64_t blocks) {
        const int64_t kv = blocks * h.block;
        // One query is rare: under sparseMode 2 its row sees one key, so dq and dk are zero by
        // construction (a case of mostly structural zeros proves little: MISTRUSTED).
        const int64_t most = std::min<int64_t>(kv, ranges::kMaxQueries);
        const auto queries =
            most < 2
                ? rc::gen::just(most)
                : rc::gen::weightedOneOf<int64_t>({{1, rc::gen::just(int64_t{1})},
                                                   {9, rc::gen::inRange<int64_t>(2, most + 1)}});
        return rc::gen::map(queries, [kv](int64_t q) { return std::array<int64_t, 2>{q, kv}; });
      });
  return rc::gen::mapcat(rc::gen::inRange<size_t>(1, ranges::kMaxBatches + 1), [one](size_t n) {
    return rc::gen::container<std::vector<std::array<int64_t, 2>>>(n, one);
  });
}

rc::Gen<Problem> gen_sized(Direction entry, SpecProfile profile, Heads h) {
  const bool extended = profile == SpecProfile::kExtended;
  const auto dtypes =
      extended ? rc::gen::elementOf(ranges::kFloatDtypes) : rc::gen::elementOf(ranges::kSeedDtypes);
  return rc::gen::build<Problem>(
      rc::gen::set(&Problem::entry, rc::gen::just(entry)), rc::gen::set(&Problem::dtype, dtypes),
      rc::gen::set(&Problem::q_heads, rc::gen::just(h.kv * h.group)),
      rc::gen::set(&Problem::kv_heads, rc::gen::just(h.kv)),
      rc::gen::set(&Problem::dim_qk, rc::gen::just(h.dim_qk)),
      rc::gen::set(&Problem::dim_v, rc::gen::just(h.dim_v)),
      rc::gen::set(&Problem::block, rc::gen::just(h.block)),
      rc::gen::set(&Problem::count, rc::gen::just(h.count)),
      rc::gen::set(&Problem::seqs, gen_seqs(h)),
      rc::gen::set(&Problem::sparse_mode, rc::gen::weightedElement<int64_t>({{3, 2}, {1, 0}})),
      rc::gen::set(&Problem::topk_fill, rc::gen::weightedElement<TopkFill>(
                                            {{3, TopkFill::kCausal}, {2, TopkFill::kArbitrary}})),
      rc::gen::set(&Problem::with_mask, rc::gen::arbitrary<bool>()),
      rc::gen::set(&Problem::null_attention_out,
                   rc::gen::weightedElement<bool>(
                       {{3, false}, {entry == Direction::kBackward ? 1u : 0u, true}})),
      rc::gen::set(
          &Problem::scale,
          rc::gen::weightedOneOf<double>(
              {{3, rc::gen::just(0.0)},
               {1, rc::gen::map(rc::gen::inRange(1, 40), [](int k) { return k / 64.0; })}})),
      rc::gen::set(&Problem::seed,
                   rc::gen::inRange<uint64_t>(1, std::numeric_limits<int64_t>::max())),
      rc::gen::set(&Problem::profile, rc::gen::just(profile)));
}

}  // namespace

LayoutRule layout_rule(const Problem& p, Role role) {
  LayoutRule rule = default_layout_rule(entry_spec(p.entry), role_name(role));
  // The backward's attentionOut and statistics are the forward's results for the other inputs:
  // values constant along a dim would not be.
  if (role == Role::kAttentionOut || role == Role::kSoftmaxMax || role == Role::kSoftmaxSum) {
    rule.broadcastable = false;
  }
  // Keys (values) identical along the token dim make every score (dP) of a row equal, so
  // dS = P (dP - Dr) and with it dq and dk vanish: a case of zeros by construction.
  if (role == Role::kKey || role == Role::kValue) rule.limits.broadcastable_dims = ~1u;
  return rule;
}

rc::Gen<Problem> gen_problem(const GenOptions& options) {
  const auto entries = options.entry ? rc::gen::just(*options.entry)
                                     : rc::gen::element(Direction::kForward, Direction::kBackward);
  const auto profiles = options.seed_only
                            ? rc::gen::just(SpecProfile::kSeed)
                            : rc::gen::weightedElement<SpecProfile>(
                                  // cann-latest is seed for this op (no errata): drawn now and
                                  // then so every law is seen to hold under every profile.
                                  {{4, SpecProfile::kSeed},
                                   {2, SpecProfile::kExtended},
                                   {1, SpecProfile::kCannLatest}});
  const auto base = rc::gen::mapcat(rc::gen::pair(entries, profiles), [](auto ep) {
    const Direction entry = ep.first;
    const SpecProfile profile = ep.second;
    return rc::gen::mapcat(gen_heads(profile == SpecProfile::kExtended),
                           [entry, profile](Heads h) { return gen_sized(entry, profile, h); });
  });
  return with_layouts<Problem>(base, options.strided, layout_rule);
}

std::vector<std::string> problem_tags(const Problem& p) {
  std::vector<std::string> tags = common_tags(p);
  tags.insert(tags.end(), {"g=" + std::to_string(p.q_heads / std::max<int64_t>(p.kv_heads, 1)),
                           "batches=" + std::to_string(p.seqs.size()),
                           "topk=" + std::string(topk_fill_name(p.topk_fill)),
                           "sparse=" + std::to_string(p.sparse_mode)});
  if (p.with_mask) tags.push_back("mask=given");
  if (p.null_attention_out && p.entry == Direction::kBackward) tags.push_back("out=null");
  for (const auto& [q, kv] : p.seqs) {
    if (kv == p.block * p.count) tags.push_back("kv=exactly-BK");
  }
  for (Role role : p.roles()) {
    for (std::string_view kind : layout_kinds(p.layout(role))) {
      tags.push_back("layout:" + std::string(role_name(role)) + "=" + std::string(kind));
    }
  }
  return tags;
}

}  // namespace gradconf::props::nsa
