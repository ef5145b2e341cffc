#include "families/grid_sampler2d/gen.h"

#include <algorithm>
#include <array>
#include <limits>
#include <utility>

#include "core/dtype.h"
#include "families/grid_sampler2d/ranges.h"
#include "gen/layout_gen.h"
#include "gen/problem_gen.h"
#include "grid_sampler2d/clauses.h"

namespace gradconf::props::gs {
namespace {

namespace ranges = gs_ranges;
using grid_sampler2d::Interpolation;
using grid_sampler2d::Padding;

struct SizeLimits {
  int64_t batch;
  int64_t channels;
  int64_t spatial;
};
// kMaxBatch * kMaxChannels * kMaxSpatial^2 = 14739 elements per tensor at most: a case runs in
// well under a millisecond on average (a few at most), so thousands fit in a test's budget.
constexpr SizeLimits kProblemLimits = {ranges::kMaxBatch, ranges::kMaxChannels,
                                       ranges::kMaxSpatial};
constexpr SizeLimits kBoundaryLimits = {ranges::kBoundaryMaxBatch, ranges::kBoundaryMaxChannels,
                                        ranges::kBoundaryMaxSpatial};

// A size in [0 or 1, max], biased to the values kernels treat specially: 1, the boundary sizes
// (vector widths and their neighbours), and the limit. The sized uniform part grows with
// RapidCheck's size, so early cases are small. Zero (an empty tensor) comes about once in 40.
rc::Gen<int64_t> gen_size(int64_t max, bool allow_zero) {
  std::vector<int64_t> boundary;
  for (int64_t size : ranges::kBoundarySizes) {
    if (size <= max) boundary.push_back(size);
  }
  return rc::gen::weightedOneOf<int64_t>({
      {2, rc::gen::just(int64_t{1})},
      {8, rc::gen::elementOf(boundary)},
      {3, rc::gen::just(max)},
      {26, rc::gen::inRange<int64_t>(1, max + 1)},
      {allow_zero ? 1u : 0u, rc::gen::just(int64_t{0})},
  });
}

rc::Gen<std::optional<std::array<bool, 2>>> gen_mask(bool allow_null) {
  using Mask = std::optional<std::array<bool, 2>>;
  return rc::gen::weightedElement<Mask>({
      {4, std::array<bool, 2>{true, true}},
      {2, std::array<bool, 2>{true, false}},
      {2, std::array<bool, 2>{false, true}},
      {1, std::array<bool, 2>{false, false}},
      {allow_null ? 1u : 0u, std::nullopt},
  });
}

rc::Gen<GridFill> gen_grid_fill(const GenOptions& options) {
  if (options.grid_fill) return rc::gen::just(*options.grid_fill);
  return rc::gen::weightedElement<GridFill>({
      {6, GridFill::kUniform},
      {options.allow_specials ? 2u : 0u, GridFill::kSpecials},
      {2, GridFill::kExact},
  });
}

// Non-finite input values only for the forward: its sums of weighted taps give the same inf or
// NaN in any order, so the reference is a fair judge of them.
rc::Gen<ValueFill> gen_value_fill(const GenOptions& options, Direction entry) {
  if (options.value_fill) return rc::gen::just(*options.value_fill);
  return rc::gen::weightedElement<ValueFill>(
      {{3, ValueFill::kUniform},
       {1, ValueFill::kDyadic},
       {entry == Direction::kForward && options.allow_specials ? 1u : 0u, ValueFill::kSpecials}});
}

rc::Gen<Interpolation> gen_interpolation(SpecProfile profile) {
  if (profile == SpecProfile::kCannLatest) {
    return rc::gen::element(Interpolation::kBilinear, Interpolation::kNearest,
                            Interpolation::kBicubic);
  }
  return rc::gen::element(Interpolation::kBilinear, Interpolation::kNearest);
}

rc::Gen<Padding> gen_padding(SpecProfile profile) {
  if (profile == SpecProfile::kCannLatest)
    return rc::gen::element(Padding::kZeros, Padding::kBorder, Padding::kReflection);
  return rc::gen::element(Padding::kZeros, Padding::kBorder);
}

rc::Gen<Problem> gen_problem_of(const GenOptions& options, SizeLimits limits, Direction entry,
                                SpecProfile profile) {
  const bool empty = options.allow_empty;
  const auto mask = entry == Direction::kBackward ? gen_mask(options.allow_null_mask)
                                                  : rc::gen::just(Problem{}.output_mask);
  const auto dtype =
      options.dtype ? rc::gen::just(*options.dtype) : rc::gen::elementOf(ranges::kFloatDtypes);
  const auto base = rc::gen::build<Problem>(
      rc::gen::set(&Problem::entry, rc::gen::just(entry)), rc::gen::set(&Problem::dtype, dtype),
      rc::gen::set(&Problem::n, gen_size(limits.batch, empty)),
      rc::gen::set(&Problem::c, gen_size(limits.channels, empty)),
      // GS-SHAPE-05: the input's spatial sizes are never empty.
      rc::gen::set(&Problem::in_h, gen_size(limits.spatial, false)),
      rc::gen::set(&Problem::in_w, gen_size(limits.spatial, false)),
      rc::gen::set(&Problem::out_h, gen_size(limits.spatial, empty)),
      rc::gen::set(&Problem::out_w, gen_size(limits.spatial, empty)),
      rc::gen::set(&Problem::interpolation, gen_interpolation(profile)),
      rc::gen::set(&Problem::padding, gen_padding(profile)),
      rc::gen::set(&Problem::align_corners, rc::gen::element(false, true)),
      rc::gen::set(&Problem::output_mask, mask),
      rc::gen::set(&Problem::grid_fill, gen_grid_fill(options)),
      rc::gen::set(&Problem::value_fill, gen_value_fill(options, entry)),
      // Repro lines carry seeds as non-negative int64.
      rc::gen::set(&Problem::seed,
                   rc::gen::inRange<uint64_t>(1, std::numeric_limits<int64_t>::max())),
      rc::gen::set(&Problem::profile, rc::gen::just(profile)));
  return with_layouts<Problem>(base, options.strided, layout_rule);
}

rc::Gen<Problem> gen_problem_within(const GenOptions& options, SizeLimits limits) {
  const auto entries = options.entry ? rc::gen::just(*options.entry)
                                     : rc::gen::element(Direction::kBackward, Direction::kForward);
  // extended adds nothing to GridSampler2D (DOUBLE is a seed dtype): drawn now and then so every
  // law is seen to hold under every profile.
  const auto profiles =
      options.profile ? rc::gen::just(*options.profile)
                      : rc::gen::weightedElement<SpecProfile>({{2, SpecProfile::kSeed},
                                                               {1, SpecProfile::kExtended},
                                                               {2, SpecProfile::kCannLatest}});
  return rc::gen::mapcat(rc::gen::pair(entries, profiles),
                         [options, limits](const std::pair<Direction, SpecProfile>& drawn) {
                           return gen_problem_of(options, limits, drawn.first, drawn.second);
                         });
}

}  // namespace

LayoutRule layout_rule(const Problem& p, Role role) {
  static const std::vector<std::vector<int>> orders = ranges::layout_orders();
  LayoutRule rule = default_layout_rule(entry_spec(p.entry), role_name(role));
  rule.limits.max_pad = ranges::kMaxLayoutPad;
  rule.limits.max_offset = ranges::kMaxLayoutOffset;
  rule.orders = orders;
  return rule;
}

rc::Gen<Problem> gen_problem(const GenOptions& options) {
  return gen_problem_within(options, kProblemLimits);
}

rc::Gen<BoundaryCase> gen_boundary_case(const GenOptions& options) {
  const Directions directions =
      !options.entry
          ? Directions::kBoth
          : (*options.entry == Direction::kForward ? Directions::kForward : Directions::kBackward);
  std::function<rc::Gen<Problem>(Direction)> base = [options](Direction d) {
    GenOptions o = options;
    o.entry = d == Direction::kForward ? Direction::kForward : Direction::kBackward;
    o.allow_empty = false;
    o.allow_null_mask = false;
    return gen_problem_within(o, kBoundaryLimits);
  };
  return props::gen_boundary_case<Problem>(
      clause_breakers(), clause_infos(grid_sampler2d::clause_table()), base, make_call, directions);
}

std::vector<std::string> problem_tags(const Problem& p, uint32_t axes) {
  std::vector<std::string> tags;
  const bool backward = p.entry == Direction::kBackward;
  if (axes & kAxisEntry) tags.push_back(backward ? "entry=backward" : "entry=forward");
  if (axes & kAxisDtype)
    tags.push_back("dtype=" + std::string(grid_sampler2d::dtype_repro_name(p.dtype)));
  if (axes & kAxisProfile) tags.push_back("profile=" + std::string(profile_name(p.profile)));
  if (axes & kAxisInterpolation) {
    static constexpr const char* kNames[] = {"interp=bilinear", "interp=nearest", "interp=bicubic"};
    tags.push_back(kNames[static_cast<int>(p.interpolation)]);
  }
  if (axes & kAxisPadding) {
    static constexpr const char* kNames[] = {"pad=zeros", "pad=border", "pad=reflection"};
    tags.push_back(kNames[static_cast<int>(p.padding)]);
  }
  if (axes & kAxisAlignCorners) tags.push_back(p.align_corners ? "ac=1" : "ac=0");
  if ((axes & kAxisMask) && backward) {
    tags.push_back(p.output_mask ? std::string("mask=") + ((*p.output_mask)[0] ? '1' : '0') +
                                       ((*p.output_mask)[1] ? '1' : '0')
                                 : std::string("mask=null"));
  }
  if (axes & kAxisLayouts) {
    std::vector<Role> roles = p.inputs();
    for (Role role : p.outputs()) roles.push_back(role);
    for (Role role : roles) {
      for (std::string_view kind : layout_kinds(p.layout(role))) {
        tags.push_back("layout:" + std::string(grid_sampler2d::role_name(role)) + "=" +
                       std::string(kind));
      }
    }
  }
  if ((axes & kAxisEmpty) && (p.n == 0 || p.c == 0 || p.out_h == 0 || p.out_w == 0)) {
    tags.push_back("empty");
  }
  if (axes & kAxisBoundarySizes) {
    const std::array<std::pair<const char*, int64_t>, 6> sizes = {
        {{"n", p.n}, {"c", p.c}, {"ih", p.in_h}, {"iw", p.in_w}, {"oh", p.out_h}, {"ow", p.out_w}}};
    for (const auto& [name, value] : sizes) {
      const auto& boundary = ranges::kBoundarySizes;
      if (std::find(boundary.begin(), boundary.end(), value) != boundary.end()) {
        tags.push_back(std::string("boundary:") + name + "=" + std::to_string(value));
      }
    }
  }
  if (axes & kAxisGridFill)
    tags.push_back("grid=" + std::string(grid_sampler2d::grid_fill_name(p.grid_fill)));
  if (axes & kAxisValueFill) {
    tags.push_back("values=" + std::string(grid_sampler2d::value_fill_name(p.value_fill)));
  }
  return tags;
}

void classify(const Problem& problem, uint32_t axes) {
  for (const std::string& tag : problem_tags(problem, axes)) RC_TAG(tag);
}

void showValue(const Call& call, std::ostream& os) { os << summarize(call); }

}  // namespace gradconf::props::gs
