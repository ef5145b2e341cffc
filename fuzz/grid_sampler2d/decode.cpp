#include "grid_sampler2d/decode.h"

#include <array>
#include <limits>
#include <vector>

#include "common/fuzz_support.h"
#include "families/grid_sampler2d/gen.h"
#include "families/grid_sampler2d/ranges.h"

namespace gradconf::fuzz::gs {
namespace {

namespace ranges = props::gs_ranges;
using grid_sampler2d::GridFill;
using grid_sampler2d::Interpolation;
using grid_sampler2d::Padding;
using grid_sampler2d::Role;
using grid_sampler2d::ValueFill;

int64_t decode_size(FuzzedDataProvider& fdp, int64_t max, bool allow_zero) {
  return pick_size(fdp, allow_zero ? 0 : 1, max, ranges::kBoundarySizes);
}

}  // namespace

Problem decode_problem(FuzzedDataProvider& fdp, Direction entry) {
  Problem p = start_problem<Problem>(fdp, entry, ranges::kFloatDtypes);
  p.n = decode_size(fdp, ranges::kMaxBatch, true);
  p.c = decode_size(fdp, ranges::kMaxChannels, true);
  p.in_h = decode_size(fdp, ranges::kMaxSpatial, false);  // GS-SHAPE-05
  p.in_w = decode_size(fdp, ranges::kMaxSpatial, false);
  p.out_h = decode_size(fdp, ranges::kMaxSpatial, true);
  p.out_w = decode_size(fdp, ranges::kMaxSpatial, true);
  p.interpolation = pick(
      fdp, std::array{Interpolation::kBilinear, Interpolation::kNearest, Interpolation::kBicubic});
  p.padding = pick(fdp, std::array{Padding::kZeros, Padding::kBorder, Padding::kReflection});
  p.align_corners = fdp.ConsumeBool();
  if (entry == Direction::kBackward) {
    switch (fdp.ConsumeIntegralInRange<int>(0, 4)) {
      case 0:
        p.output_mask = std::array<bool, 2>{true, true};
        break;
      case 1:
        p.output_mask = std::array<bool, 2>{true, false};
        break;
      case 2:
        p.output_mask = std::array<bool, 2>{false, true};
        break;
      case 3:
        p.output_mask = std::array<bool, 2>{false, false};
        break;
      default:
        p.output_mask = std::nullopt;
        break;  // GS-MASK-01 early-out
    }
  }
  decode_layouts(fdp, p, props::gs::layout_rule);
  p.grid_fill = pick(fdp, std::array{GridFill::kUniform, GridFill::kSpecials, GridFill::kExact,
                                     GridFill::kSmooth});
  p.value_fill = fdp.ConsumeBool() ? ValueFill::kDyadic : ValueFill::kUniform;
  // Repro lines carry seeds as positive int64.
  p.seed = fdp.ConsumeIntegralInRange<uint64_t>(1, std::numeric_limits<int64_t>::max());
  p.profile =
      pick(fdp, std::array{SpecProfile::kSeed, SpecProfile::kExtended, SpecProfile::kCannLatest});
  // Bicubic and reflection are cann-latest's (E-GS-5).
  if (p.interpolation == Interpolation::kBicubic || p.padding == Padding::kReflection)
    p.profile = SpecProfile::kCannLatest;
  return p;
}

}  // namespace gradconf::fuzz::gs
