#include "families/multi_scale_deformable_attention/gen.h"
#include "families/multi_scale_deformable_attention/entries.h"
#include "gen/problem_gen.h"

#include <algorithm>
#include <limits>

#include "core/dtype.h"
#include "core/repro.h"
#include "families/multi_scale_deformable_attention/ranges.h"
#include "gen/layout_gen.h"

namespace gradconf::props::msda {

using gradconf::msda::LocationFill;
using gradconf::msda::Problem;
using gradconf::msda::Role;
namespace ranges = msda_ranges;

namespace {

rc::Gen<std::vector<std::array<int64_t, 2>>> gen_levels() {
  const auto size = rc::gen::weightedOneOf<int64_t>(
      {{2, rc::gen::just(int64_t{1})},
       {6, rc::gen::inRange<int64_t>(1, ranges::kMaxLevelSide + 1)}});
  const auto level = rc::gen::apply(
      [](int64_t h, int64_t w) {
        return std::array<int64_t, 2>{h, w};
      },
      size, size);
  return rc::gen::mapcat(
      rc::gen::inRange<size_t>(1, ranges::kMaxLevels + 1), [level](size_t count) {
        return rc::gen::container<std::vector<std::array<int64_t, 2>>>(count, level);
      });
}

rc::Gen<int64_t> gen_count(int64_t max, bool allow_zero) {
  return rc::gen::weightedOneOf<int64_t>({{3, rc::gen::just(int64_t{1})},
                                          {6, rc::gen::inRange<int64_t>(1, max + 1)},
                                          {allow_zero ? 1u : 0u, rc::gen::just(int64_t{0})}});
}

rc::Gen<aclDataType> gen_dtype(SpecProfile profile) {
  if (profile == SpecProfile::kExtended) return rc::gen::elementOf(ranges::kFloatDtypes);
  return rc::gen::elementOf(ranges::kSeedDtypes);
}

// C (ranges.h): the small multiples of 8 most often; 0 where empty problems are wanted.
rc::Gen<int64_t> gen_channels(SpecProfile profile, bool allow_empty) {
  const unsigned any = profile == SpecProfile::kExtended ? 1u : 0u;
  const auto [c8, c16, c24, c32, c64] = ranges::kSeedChannels;
  return rc::gen::weightedOneOf<int64_t>(
      {{6, rc::gen::just(c8)},
       {3, rc::gen::just(c16)},
       {2, rc::gen::just(c24)},
       {2, rc::gen::just(c32)},
       {1, rc::gen::just(c64)},
       {allow_empty ? 1u : 0u, rc::gen::just(int64_t{0})},
       {4 * any, rc::gen::elementOf(ranges::kOddChannels)},
       {4 * any, rc::gen::inRange<int64_t>(1, ranges::kMaxOddChannels + 1)}});
}

rc::Gen<Problem> gen_problem_of(const GenOptions& options, SpecProfile profile) {
  const auto entries = options.entry ? rc::gen::just(*options.entry)
                                     : rc::gen::element(Direction::kForward, Direction::kBackward);
  const auto base = rc::gen::build<Problem>(
      rc::gen::set(&Problem::entry, entries), rc::gen::set(&Problem::dtype, gen_dtype(profile)),
      rc::gen::set(&Problem::shape_dtype, rc::gen::element(ACL_INT32, ACL_INT64)),
      rc::gen::set(&Problem::start_dtype, rc::gen::element(ACL_INT32, ACL_INT64)),
      rc::gen::set(&Problem::batch, gen_count(ranges::kMaxBatch, options.allow_empty)),
      rc::gen::set(&Problem::heads, gen_count(ranges::kMaxHeads, false)),
      rc::gen::set(&Problem::channels, gen_channels(profile, options.allow_empty)),
      rc::gen::set(&Problem::queries, gen_count(ranges::kMaxQueries, options.allow_empty)),
      rc::gen::set(&Problem::points, gen_count(ranges::kMaxPoints, false)),
      rc::gen::set(&Problem::levels, gen_levels()),
      rc::gen::set(&Problem::extra_keys,
                   rc::gen::weightedElement<int64_t>({{4, 0}, {1, ranges::kExtraKeys}})),
      rc::gen::set(&Problem::location_fill,
                   rc::gen::weightedElement<LocationFill>(
                       {{3, LocationFill::kUniform},
                        {options.allow_specials ? 2u : 0u, LocationFill::kSpecials}})),
      rc::gen::set(&Problem::zero_weights, rc::gen::arbitrary<bool>()),
      rc::gen::set(&Problem::seed,
                   rc::gen::inRange<uint64_t>(1, std::numeric_limits<int64_t>::max())),
      rc::gen::set(&Problem::profile, rc::gen::just(profile)));
  return with_layouts<Problem>(base, options.strided, layout_rule);
}

}  // namespace

LayoutRule layout_rule(const Problem& p, Role role) {
  return default_layout_rule(entry_spec(p.entry), role_name(role));
}

rc::Gen<Problem> gen_problem(const GenOptions& options) {
  const auto profiles =
      options.profile ? rc::gen::just(*options.profile)
                      : rc::gen::weightedElement<SpecProfile>({{2, SpecProfile::kSeed},
                                                               {1, SpecProfile::kExtended},
                                                               {1, SpecProfile::kCannLatest}});
  return rc::gen::mapcat(
      profiles, [options](SpecProfile profile) { return gen_problem_of(options, profile); });
}

std::vector<std::string> problem_tags(const Problem& p) {
  std::vector<std::string> tags = {
      p.entry == Direction::kForward ? "entry=forward" : "entry=backward",
      "dtype=" + std::string(dtype_repro_name(p.dtype)),
      "levels=" + std::to_string(p.levels.size()),
      std::string("index=") + (p.shape_dtype == ACL_INT32 ? "32" : "64") + "." +
          (p.start_dtype == ACL_INT32 ? "32" : "64"),
      "loc=" + std::string(location_fill_name(p.location_fill)),
      "c=" + std::to_string(p.channels),
      "profile=" + std::string(profile_name(p.profile))};
  if (p.channels % 8 != 0) tags.push_back("c=not-a-multiple-of-8");
  for (Role role : p.roles()) {
    for (std::string_view kind : layout_kinds(p.layout(role))) {
      tags.push_back("layout:" + std::string(role_name(role)) + "=" + std::string(kind));
    }
  }
  if (p.batch == 0 || p.queries == 0 || p.channels == 0) tags.push_back("empty");
  for (const auto& [h, w] : p.levels) {
    if (h == 1 && w == 1) tags.push_back("level=1x1");
    if (h != w) tags.push_back("level=non-square");
  }
  if (p.zero_weights) tags.push_back("attn=zeros");
  return tags;
}

}  // namespace gradconf::props::msda
