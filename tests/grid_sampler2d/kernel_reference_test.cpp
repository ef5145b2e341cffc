// Kernels vs the double reference (spec grid_sampler2d.md, README §6), through the public C API:
// every dtype x interpolation x padding x alignCorners x outputMask {11, 10, 01, 00} and the
// forward, on contiguous and strided views (permuted, padded with NaN in the gaps, offset, zero
// stride broadcast inputs), degenerate sizes, special grid values and empty problems. Each output
// is compared with gradconf::props::compare under the tolerance table's row.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "core/dtype.h"
#include "support/grid_sampler2d_tester.h"

namespace {

using gradconf::LayoutSpec;
using gradconf::testing::GridSampler2DBackwardTester;
using gradconf::testing::Role;

constexpr std::array<std::array<bool, 2>, 4> kMasks = {
    {{true, true}, {true, false}, {false, true}, {false, false}}};

// Runs `base` for every interpolation x padding x alignCorners, as the backward with each
// outputMask and as the forward.
void sweep(const GridSampler2DBackwardTester& base) {
  for (int64_t interpolation : {0, 1}) {
    for (int64_t padding : {0, 1}) {
      for (bool align : {false, true}) {
        GridSampler2DBackwardTester t = base;
        t.interpolation(interpolation).padding(padding).align_corners(align);
        for (const auto& mask : kMasks) {
          t.forward(false).mask(mask[0], mask[1]).Test();
        }
        t.forward(true).Test();
      }
    }
  }
}

GridSampler2DBackwardTester medium(aclDataType dtype) {
  return GridSampler2DBackwardTester()
      .dtype(dtype)
      .batch(2)
      .channels(3)
      .input_size(5, 7)
      .output_size(4, 6);
}

// Every NCHW tensor stored channels-last; the grid stored with its xy dim outermost.
GridSampler2DBackwardTester& nhwc(GridSampler2DBackwardTester& t) {
  const LayoutSpec channels_last{{0, 2, 3, 1}};
  for (Role r : {Role::kGradOutput, Role::kInput, Role::kInputGrad, Role::kOut}) {
    t.layout(r, channels_last);
  }
  const LayoutSpec xy_outer{{3, 0, 1, 2}};
  t.layout(Role::kGrid, xy_outer).layout(Role::kGridGrad, xy_outer);
  return t;
}

// Normalized coordinates that land exactly on pixel centres, pixel edges and (for nearest) the
// half-way points between centres, for both alignCorners conventions, plus -1, 0, +1.
std::vector<double> special_coords(int64_t size) {
  std::vector<double> v = {-1.0, 0.0, 1.0};
  const double s = static_cast<double>(size);
  for (int64_t i = 0; i <= size; ++i) {
    v.push_back((2.0 * i + 1) / s - 1);  // align false: centre of pixel i
    v.push_back(2.0 * i / s - 1);        // align false: left edge of pixel i
    if (size > 1) {
      v.push_back(2.0 * i / (s - 1) - 1);        // align true: centre of pixel i
      v.push_back((2.0 * i + 1) / (s - 1) - 1);  // align true: half-way to pixel i+1
    }
  }
  return v;
}

// (x, y) pairs cycling through the special x and y coordinates; every pair of a long enough grid.
std::vector<double> special_grid(int64_t n, int64_t points, int64_t in_h, int64_t in_w) {
  const auto xs = special_coords(in_w), ys = special_coords(in_h);
  std::vector<double> g;
  for (int64_t i = 0; i < n * points; ++i) {
    g.push_back(xs[static_cast<size_t>(i) % xs.size()]);
    g.push_back(ys[static_cast<size_t>(i / 3 + i) % ys.size()]);
  }
  return g;
}

std::vector<double> nonfinite_grid(int64_t count_points) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> specials = {nan, inf, -inf, 1e30, -1e30, 3e9, -3e9, 65504.0, 1e5};
  const std::vector<double> normal = {-0.3, 0.45, 0.9, -1.1, 0.0};
  std::vector<double> g;
  for (int64_t i = 0; i < count_points; ++i) {
    const double s = specials[static_cast<size_t>(i) % specials.size()];
    const double o = normal[static_cast<size_t>(i) % normal.size()];
    switch ((i / static_cast<int64_t>(specials.size())) % 4) {
      case 0:
        g.push_back(s), g.push_back(o);
        break;  // x special
      case 1:
        g.push_back(o), g.push_back(s);
        break;  // y special
      case 2:
        g.push_back(s), g.push_back(s);
        break;  // both
      default:
        g.push_back(o), g.push_back(-o);
        break;
    }
  }
  return g;
}

// Random problems: sizes (including empty N, C, Hout, Wout and Hin or Win = 1), attributes,
// outputMask, direction and a random layout per tensor (permutation, padding, offset, broadcast
// for inputs), reproducible from the seed printed by describe().
void random_problems(aclDataType dtype, int count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  auto layout = [&](bool input) {
    LayoutSpec spec;
    if (pick(0, 2) > 0) {
      spec.order = {0, 1, 2, 3};
      std::shuffle(spec.order.begin(), spec.order.end(), rng);
    }
    spec.pad = pick(0, 2);
    spec.offset = pick(0, 5);
    if (input && pick(0, 3) == 0) spec.broadcast = static_cast<uint32_t>(pick(1, 15));
    return spec;
  };
  for (int i = 0; i < count; ++i) {
    GridSampler2DBackwardTester t;
    t.dtype(dtype)
        .batch(pick(0, 9) == 0 ? 0 : pick(1, 3))
        .channels(pick(0, 9) == 0 ? 0 : pick(1, 5))
        .input_size(pick(1, 7), pick(1, 7))
        .output_size(pick(0, 9) == 0 ? 0 : pick(1, 7), pick(0, 9) == 0 ? 0 : pick(1, 7))
        .interpolation(pick(0, 1))
        .padding(pick(0, 1))
        .align_corners(pick(0, 1) == 1)
        .mask(pick(0, 3) != 0, pick(0, 3) != 0)
        .forward(pick(0, 4) == 0)
        .seed(seed * 1000 + static_cast<uint64_t>(i));
    for (Role r : {Role::kGradOutput, Role::kInput, Role::kGrid}) t.layout(r, layout(true));
    for (Role r : {Role::kInputGrad, Role::kGridGrad, Role::kOut}) t.layout(r, layout(false));
    t.Test();
  }
}

#define GS_KERNEL_TESTS(Suffix, kDtype)                                                           \
  TEST(GridSampler2DBackward_##Suffix, all_modes_and_masks_contiguous) { sweep(medium(kDtype)); } \
                                                                                                  \
  TEST(GridSampler2DBackward_##Suffix, bilinear_zeros_upscale) {                                  \
    GridSampler2DBackwardTester()                                                                 \
        .dtype(kDtype)                                                                            \
        .batch(2)                                                                                 \
        .channels(2)                                                                              \
        .input_size(3, 4)                                                                         \
        .output_size(9, 11)                                                                       \
        .seed(7)                                                                                  \
        .Test();                                                                                  \
  }                                                                                               \
                                                                                                  \
  TEST(GridSampler2DBackward_##Suffix, all_modes_downscale_many_points_per_pixel) {               \
    sweep(GridSampler2DBackwardTester()                                                           \
              .dtype(kDtype)                                                                      \
              .channels(4)                                                                        \
              .input_size(2, 3)                                                                   \
              .output_size(8, 9)                                                                  \
              .seed(11));                                                                         \
  }                                                                                               \
                                                                                                  \
  TEST(GridSampler2DBackward_##Suffix, channels_last_layout) {                                    \
    GridSampler2DBackwardTester t = medium(kDtype).seed(3);                                       \
    sweep(nhwc(t));                                                                               \
  }                                                                                               \
                                                                                                  \
  TEST(GridSampler2DBackward_##Suffix, padded_strides_nan_gaps_and_offset) {                      \
    GridSampler2DBackwardTester t = medium(kDtype).seed(4);                                       \
    const LayoutSpec padded{{}, 3, 5};                                                            \
    for (int r = 0; r < gradconf::testing::kRoleCount; ++r)                                       \
      t.layout(static_cast<Role>(r), padded);                                                     \
    sweep(t);                                                                                     \
  }                                                                                               \
                                                                                                  \
  TEST(GridSampler2DBackward_##Suffix, permuted_padded_offset_mix) {                              \
    GridSampler2DBackwardTester t = medium(kDtype).seed(5);                                       \
    t.layout(Role::kGradOutput, LayoutSpec{{3, 1, 0, 2}, 1, 7})                                   \
        .layout(Role::kInput, LayoutSpec{{1, 3, 2, 0}, 2, 1})                                     \
        .layout(Role::kGrid, LayoutSpec{{2, 3, 0, 1}, 1, 3})                                      \
        .layout(Role::kInputGrad, LayoutSpec{{2, 0, 3, 1}, 1, 9})                                 \
        .layout(Role::kGridGrad, LayoutSpec{{3, 2, 1, 0}, 2, 2})                                  \
        .layout(Role::kOut, LayoutSpec{{1, 0, 3, 2}, 1, 4});                                      \
    sweep(t);                                                                                     \
  }                                                                                               \
                                                                                                  \
  TEST(GridSampler2DBackward_##Suffix, zero_stride_broadcast_inputs) {                            \
    GridSampler2DBackwardTester t = medium(kDtype).seed(6);                                       \
    t.layout(Role::kInput, LayoutSpec{{}, 0, 2, 0b0010})   /* same image for every channel */     \
        .layout(Role::kGrid, LayoutSpec{{}, 1, 0, 0b0001}) /* same grid for every batch */        \
        .layout(Role::kGradOutput, LayoutSpec{{}, 0, 3, 0b0101}); /* broadcast over N and H */    \
    sweep(t);                                                                                     \
  }                                                                                               \
                                                                                                  \
  TEST(GridSampler2DBackward_##Suffix, input_height_or_width_one) {                               \
    for (auto [h, w] : {std::pair<int64_t, int64_t>{1, 6}, {5, 1}, {1, 1}}) {                     \
      SCOPED_TRACE("input " + std::to_string(h) + "x" + std::to_string(w));                       \
      sweep(GridSampler2DBackwardTester()                                                         \
                .dtype(kDtype)                                                                    \
                .batch(2)                                                                         \
                .channels(2)                                                                      \
                .input_size(h, w)                                                                 \
                .output_size(3, 5)                                                                \
                .seed(static_cast<uint64_t>(h * 10 + w)));                                        \
    }                                                                                             \
  }                                                                                               \
                                                                                                  \
  TEST(GridSampler2DBackward_##Suffix, grid_on_corners_centres_and_edges) {                       \
    for (auto [h, w] : {std::pair<int64_t, int64_t>{3, 4}, {1, 2}, {2, 1}}) {                     \
      SCOPED_TRACE("input " + std::to_string(h) + "x" + std::to_string(w));                       \
      sweep(GridSampler2DBackwardTester()                                                         \
                .dtype(kDtype)                                                                    \
                .batch(2)                                                                         \
                .channels(2)                                                                      \
                .input_size(h, w)                                                                 \
                .output_size(5, 6)                                                                \
                .grid_values(special_grid(2, 30, h, w)));                                         \
    }                                                                                             \
  }                                                                                               \
                                                                                                  \
  TEST(GridSampler2DBackward_##Suffix, nan_inf_and_huge_grid_values) {                            \
    sweep(GridSampler2DBackwardTester()                                                           \
              .dtype(kDtype)                                                                      \
              .batch(2)                                                                           \
              .channels(3)                                                                        \
              .input_size(4, 5)                                                                   \
              .output_size(6, 6)                                                                  \
              .grid_values(nonfinite_grid(72)));                                                  \
  }                                                                                               \
                                                                                                  \
  TEST(GridSampler2DBackward_##Suffix, empty_batch_channels_and_output) {                         \
    sweep(medium(kDtype).batch(0));                                                               \
    sweep(medium(kDtype).channels(0));                                                            \
    sweep(medium(kDtype).output_size(0, 6));                                                      \
    sweep(medium(kDtype).output_size(4, 0));                                                      \
    sweep(medium(kDtype).batch(0).channels(0).output_size(0, 0));                                 \
  }                                                                                               \
                                                                                                  \
  TEST(GridSampler2DBackward_##Suffix, random_problems_and_layouts) {                             \
    random_problems(kDtype, 300, static_cast<uint64_t>(kDtype) + 17);                             \
  }                                                                                               \
                                                                                                  \
  TEST(GridSampler2DBackward_##Suffix, empty_problems_with_strided_outputs) {                     \
    GridSampler2DBackwardTester t = medium(kDtype).channels(0);                                   \
    t.layout(Role::kGridGrad, LayoutSpec{{3, 0, 1, 2}, 2, 3});                                    \
    sweep(t);                                                                                     \
    GridSampler2DBackwardTester u = medium(kDtype).output_size(0, 3);                             \
    u.layout(Role::kInputGrad, LayoutSpec{{0, 2, 3, 1}, 1, 5});                                   \
    sweep(u);                                                                                     \
  }

GS_KERNEL_TESTS(F32, ACL_FLOAT)
GS_KERNEL_TESTS(F16, ACL_FLOAT16)
GS_KERNEL_TESTS(BF16, ACL_BF16)
GS_KERNEL_TESTS(F64, ACL_DOUBLE)

// Large channel counts: gridGrad sums C terms (in double) and inputGrad accumulates many points
// per pixel (in the compute type); still within the table's float32 / float16 rows.
TEST(GridSampler2DBackward_F32, long_channel_sum) {
  GridSampler2DBackwardTester()
      .dtype(ACL_FLOAT)
      .channels(300)
      .input_size(3, 3)
      .output_size(8, 8)
      .Test();
}

TEST(GridSampler2DBackward_F16, long_channel_sum) {
  GridSampler2DBackwardTester()
      .dtype(ACL_FLOAT16)
      .channels(300)
      .input_size(3, 3)
      .output_size(8, 8)
      .Test();
}

// A null outputMask computes nothing (GS-MASK-01), whatever the problem.
TEST(GridSampler2DBackward_F32, null_mask_writes_nothing) {
  medium(ACL_FLOAT).null_mask().Test();
  medium(ACL_DOUBLE).interpolation(1).padding(1).null_mask().Test();
  GridSampler2DBackwardTester t = medium(ACL_FLOAT16).null_mask();
  nhwc(t).Test();
}

// Non-finite pixels: an in-bounds inf/NaN pixel poisons what reads it (as in PyTorch), with the
// same NaN/inf pattern as the reference; pixels no point reads stay harmless.
TEST(GridSampler2DBackward_F32, nonfinite_input_values) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> input(2 * 2 * 4 * 5);
  for (size_t i = 0; i < input.size(); ++i) input[i] = 0.1 * static_cast<double>(i % 7) - 0.3;
  input[3] = inf;
  input[27] = -inf;
  input[58] = nan;
  for (aclDataType dtype : {ACL_FLOAT, ACL_DOUBLE, ACL_FLOAT16}) {
    sweep(GridSampler2DBackwardTester()
              .dtype(dtype)
              .batch(2)
              .channels(2)
              .input_size(4, 5)
              .output_size(3, 4)
              .input_values(input)
              .seed(13));
  }
}

// A long cancelling reduction: 8192 points sample the same location, the first half with
// gradOutput +0.7, the second with -0.7, so every inputGrad pixel is a sum of 8192 terms whose
// exact value is 0 (the double reference gets ~1e-14). The spec (README §3) has float32
// "accumulate in double where a reduction is long"; the table's float32 row needs
// |a - g| <= 2^-16 + 2^-10 |g| on every element.
TEST(GridSampler2DBackward_F32, input_grad_long_cancelling_sum) {
  const int64_t h = 64, w = 128;
  std::vector<double> grid, grad_output;
  for (int64_t i = 0; i < h * w; ++i) {
    grid.push_back(-0.3137);
    grid.push_back(0.4271);
    grad_output.push_back(i < h * w / 2 ? 0.7 : -0.7);
  }
  for (int64_t interpolation : {0, 1}) {
    GridSampler2DBackwardTester()
        .dtype(ACL_FLOAT)
        .input_size(3, 3)
        .output_size(h, w)
        .interpolation(interpolation)
        .grid_values(grid)
        .grad_output_values(grad_output)
        .Test();
  }
}

// An offset within 2^-25 of 1 must keep its tiny tap: input [inf, 1, 2, 3], x = -0.33333334f
// (linspace(-1, 1, 4)[1] in float) with alignCorners gives ix = 0.99999997..., so the inf pixel
// has weight ~3e-8 and the output is inf (PyTorch and the reference). Rounding tx to float first
// made that weight 0 and the output NaN.
TEST(GridSampler2D, bilinear_keeps_a_tap_whose_weight_is_a_few_ulps) {
  const double inf = std::numeric_limits<double>::infinity();
  for (aclDataType dtype : {ACL_FLOAT, ACL_BF16, ACL_FLOAT16, ACL_DOUBLE}) {
    const auto result = GridSampler2DBackwardTester()
                            .forward()
                            .dtype(dtype)
                            .input_size(1, 4)
                            .output_size(1, 1)
                            .align_corners(true)
                            .input_values({inf, 1, 2, 3})
                            .grid_values({static_cast<double>(-0.33333334f), 0})
                            .Evaluate();
    ASSERT_EQ(result.run.out.size(), 1u);
    // float16 rounds x to -0.33325195, which lands just past pixel 1: the inf pixel is no tap.
    if (dtype != ACL_FLOAT16) {
      EXPECT_EQ(result.run.out[0], inf) << gradconf::dtype_name(dtype);
    }
    EXPECT_FALSE(result.failed()) << result.report();
  }
}

}  // namespace
