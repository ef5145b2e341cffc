#include "families/nsa_compress/gen.h"
#include "families/nsa_compress/entries.h"
#include "gen/problem_gen.h"

#include <algorithm>
#include <limits>

#include "core/dtype.h"
#include "core/repro.h"
#include "families/nsa_compress/ranges.h"
#include "gen/layout_gen.h"

namespace gradconf::props::nc {

using gradconf::nc::Problem;
using gradconf::nc::Role;
namespace ranges = nc_ranges;

namespace {

struct Windowing {
  int64_t block, stride;
};

// seed: d in kSeedStrides, l = d + 16 k within the ranges. cann-latest also accepts l == d
// (k = 0, errata E-NC-1): drawn as often as every other k.
rc::Gen<Windowing> gen_seed_windowing(SpecProfile profile) {
  const bool equal_allowed = profile == SpecProfile::kCannLatest;
  const auto [narrow, wide] = ranges::kSeedStrides;
  return rc::gen::mapcat(
      rc::gen::weightedElement<int64_t>({{4, narrow}, {1, wide}}), [equal_allowed](int64_t d) {
        const int64_t max_k =
            std::min((ranges::kMaxBlockPerStride - 1) * d, ranges::kMaxSeedBlock - d) /
            ranges::kBlockStep;
        return rc::gen::map(
            rc::gen::weightedOneOf<int64_t>({{equal_allowed ? 5u : 0u, rc::gen::just(int64_t{0})},
                                             {3, rc::gen::just(d / ranges::kBlockStep)},
                                             {2, rc::gen::inRange<int64_t>(1, max_k + 1)}}),
            [d](int64_t k) {
              return Windowing{d + ranges::kBlockStep * k, d};
            });
      });
}

rc::Gen<Windowing> gen_extended_windowing() {
  return rc::gen::apply(
      [](int64_t l, int64_t d) {
        return Windowing{l, d};
      },
      rc::gen::inRange<int64_t>(1, ranges::kMaxExtendedBlock + 1),
      rc::gen::inRange<int64_t>(1, ranges::kMaxExtendedStride + 1));
}

// A batch length relative to l and d: empty, below l, exactly l, or a few windows with a tail.
rc::Gen<int64_t> gen_length(Windowing w) {
  return rc::gen::weightedOneOf<int64_t>(
      {{1, rc::gen::just(int64_t{0})},
       {2, rc::gen::inRange<int64_t>(1, std::max<int64_t>(w.block, 2))},
       {2, rc::gen::just(w.block)},
       {5, rc::gen::apply([w](int64_t k, int64_t r) { return w.block + k * w.stride + r; },
                          rc::gen::inRange<int64_t>(0, ranges::kMaxExtraWindows + 1),
                          rc::gen::inRange<int64_t>(0, w.stride))}});
}

rc::Gen<Problem> gen_sized(Direction entry, SpecProfile profile, Windowing w) {
  const bool extended = profile == SpecProfile::kExtended;
  const auto dtypes =
      extended ? rc::gen::elementOf(ranges::kFloatDtypes) : rc::gen::elementOf(ranges::kSeedDtypes);
  const auto dims = extended ? rc::gen::inRange<int64_t>(1, ranges::kMaxExtendedDim + 1)
                             : rc::gen::weightedElement<int64_t>(
                                   {{4, ranges::kSeedDims[0]}, {2, ranges::kSeedDims[1]}});
  const auto heads =
      rc::gen::weightedOneOf<int64_t>({{12, rc::gen::inRange<int64_t>(1, ranges::kMaxHeads + 1)},
                                       {extended ? 0u : 1u, rc::gen::just(ranges::kWideHeads)}});
  const auto lengths = rc::gen::mapcat(
      rc::gen::inRange<size_t>(1, ranges::kMaxBatches + 1),
      [w](size_t count) { return rc::gen::container<std::vector<int64_t>>(count, gen_length(w)); });
  return rc::gen::build<Problem>(
      rc::gen::set(&Problem::entry, rc::gen::just(entry)), rc::gen::set(&Problem::dtype, dtypes),
      rc::gen::set(&Problem::heads, heads), rc::gen::set(&Problem::dim, dims),
      rc::gen::set(&Problem::block, rc::gen::just(w.block)),
      rc::gen::set(&Problem::stride, rc::gen::just(w.stride)),
      rc::gen::set(&Problem::lengths, lengths),
      rc::gen::set(&Problem::null_seq_len, rc::gen::weightedElement<bool>({{5, false}, {1, true}})),
      rc::gen::set(&Problem::null_layout, rc::gen::arbitrary<bool>()),
      rc::gen::set(&Problem::seed,
                   rc::gen::inRange<uint64_t>(1, std::numeric_limits<int64_t>::max())),
      rc::gen::set(&Problem::profile, rc::gen::just(profile)));
}

// Makes a drawn problem valid for its profile: null actSeqLen means one batch; `seed` rejects
// T_cmp = 0, so its last batch then holds one window; N = 128 only with one short batch, so the
// problem stays small.
Problem make_valid(Problem p) {
  if (p.null_seq_len) p.lengths = {std::max<int64_t>(p.lengths.back(), 0)};
  if (p.heads == ranges::kWideHeads) {
    p.lengths = {p.block};
    p.dim = ranges::kSeedDims[0];
  }
  if (p.profile != SpecProfile::kExtended && p.compressed_rows() == 0) p.lengths.back() = p.block;
  return p;
}

}  // namespace

LayoutRule layout_rule(const Problem& p, Role role) {
  return default_layout_rule(entry_spec(p.entry), role_name(role));
}

rc::Gen<Problem> gen_problem(const GenOptions& options) {
  const auto entries = options.entry ? rc::gen::just(*options.entry)
                                     : rc::gen::element(Direction::kForward, Direction::kBackward);
  const auto profiles =
      options.seed_only ? rc::gen::just(SpecProfile::kSeed)
                        : rc::gen::weightedElement<SpecProfile>({{3, SpecProfile::kSeed},
                                                                 {1, SpecProfile::kExtended},
                                                                 {1, SpecProfile::kCannLatest}});
  const auto base = rc::gen::mapcat(rc::gen::pair(entries, profiles), [](auto ep) {
    const Direction entry = ep.first;
    const SpecProfile profile = ep.second;
    const auto windowing =
        profile == SpecProfile::kExtended ? gen_extended_windowing() : gen_seed_windowing(profile);
    return rc::gen::mapcat(windowing, [entry, profile](Windowing w) {
      return rc::gen::map(gen_sized(entry, profile, w), make_valid);
    });
  });
  return with_layouts<Problem>(base, options.strided, layout_rule);
}

std::vector<std::string> problem_tags(const Problem& p) {
  std::vector<std::string> tags = common_tags(p);
  tags.insert(tags.end(), {"batches=" + std::to_string(p.lengths.size()),
                           "overlap=" + std::to_string((p.block + p.stride - 1) / p.stride)});
  if (p.null_seq_len) tags.push_back("seq=null");
  if (p.null_layout) tags.push_back("layout=null");
  if (!p.null_seq_len && !p.lengths.empty() && p.lengths.front() == 0)
    tags.push_back("batch=leading-empty");
  for (int64_t l : p.lengths) {
    if (l == 0) tags.push_back("batch=empty");
    if (l > 0 && l < p.block) tags.push_back("batch=below-l");
    if (l == p.block) tags.push_back("batch=exactly-l");
    if (l >= p.block && (l - p.block) % p.stride != 0) tags.push_back("batch=uncovered-tail");
  }
  if (p.compressed_rows() == 0) tags.push_back("t_cmp=0");
  if (p.block <= p.stride) tags.push_back("windows=gapped");
  for (Role role : p.roles()) {
    for (std::string_view kind : layout_kinds(p.layout(role))) {
      tags.push_back("layout:" + std::string(role_name(role)) + "=" + std::string(kind));
    }
  }
  return tags;
}

}  // namespace gradconf::props::nc
