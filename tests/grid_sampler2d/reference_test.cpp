// The double reference against values computed by hand (the arithmetic is in the comments).
#include "ops/grid_sampler2d/reference/reference.h"

#include <gtest/gtest.h>

#include "core/dtype.h"
#include "families/grid_sampler2d/entries.h"
#include "harness/backend.h"

#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

namespace {

using gradconf::grid_sampler2d::reference::Attrs;
using gradconf::grid_sampler2d::reference::backward;
using gradconf::grid_sampler2d::reference::Dims;
using gradconf::grid_sampler2d::reference::forward;
using gradconf::grid_sampler2d::reference::Gradients;

// All hand values are short binary fractions, so the reference must reproduce them up to the last
// few ulps; 1e-12 leaves room only for rounding, not for a wrong formula.
void expect_near(const std::string& what, const std::vector<double>& got,
                 const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_LE(std::fabs(got[i] - want[i]), 1e-12)
        << what << "[" << i << "]: got " << got[i] << ", want " << want[i];
  }
}

// The seed's call example: input 1x1x5x8 = 1..40 (V(r,c) = 8r + c + 1), grid 1x3x3x2, grad_output
// all ones, bilinear, zeros padding, align_corners false.
//   ix = ((x+1)*8 - 1)/2: x=-1 -> -0.5 (x0=-1, tx=.5), x=0 -> 3.5 (x0=3), x=1 -> 7.5 (x0=7)
//   iy = ((y+1)*5 - 1)/2: y=-1 -> -0.5 (y0=-1, ty=.5), y=0 -> 2 (y0=2, ty=0), y=1 -> 4.5 (y0=4)
//   mx = W/2 = 4, my = H/2 = 2.5. Column -1, column 8 and rows -1, 5 are outside (value 0).
// forward (weights .25 on each in-bounds tap unless ty = 0):
//   (-1,-1) .25*V(0,0)=.25   (0,-1) .25*(4+5)=2.25     (1,-1) .25*8=2
//   (-1, 0) .5*17=8.5        (0, 0) .5*(20+21)=20.5    (1, 0) .5*24=12
//   (-1, 1) .25*33=8.25      (0, 1) .25*(36+37)=18.25  (1, 1) .25*40=10
// input_grad: the grid is a tensor product, so input_grad(r,c) = Ry(r) * Cx(c) with row weights
//   summed over the three y: Ry = {.5, 0, 1, 0, .5} (row 3 gets weight ty = 0), and column weights
//   summed over the three x: Cx = .5 at columns 0, 3, 4, 7, else 0.
// grid_grad: gx = (1-ty)(V01-V00) + ty(V11-V10), gy = (1-tx)(V10-V00) + tx(V11-V01), then *mx, *my:
//   (-1,-1) gx=.5*(1-0)=.5 ->2       gy=.5*(1-0)=.5 ->1.25
//   ( 0,-1) gx=.5*(5-4)=.5 ->2       gy=.5*4+.5*5=4.5 ->11.25
//   ( 1,-1) gx=.5*(0-8)=-4 ->-16     gy=.5*8=4 ->10
//   (-1, 0) gx=1*(17-0)=17 ->68      gy=.5*(25-17)=4 ->10
//   ( 0, 0) gx=1*(21-20)=1 ->4       gy=.5*(28-20)+.5*(29-21)=8 ->20
//   ( 1, 0) gx=1*(0-24)=-24 ->-96    gy=.5*(32-24)=4 ->10
//   (-1, 1) gx=.5*(33-0)=16.5 ->66   gy=.5*(0-33)=-16.5 ->-41.25
//   ( 0, 1) gx=.5*(37-36)=.5 ->2     gy=.5*(0-36)+.5*(0-37)=-36.5 ->-91.25
//   ( 1, 1) gx=.5*(0-40)=-20 ->-80   gy=.5*(0-40)=-20 ->-50
TEST(GridSampler2DReference, seed_example_bilinear_zeros) {
  const Dims dims{1, 1, 5, 8, 3, 3};
  const Attrs attrs{};  // bilinear, zeros, align_corners false
  std::vector<double> input(40);
  for (int i = 0; i < 40; ++i) input[i] = i + 1;
  const std::vector<double> grid = {-1, -1, 0, -1, 1, -1, -1, 0, 0, 0, 1, 0, -1, 1, 0, 1, 1, 1};
  const std::vector<double> grad_output(9, 1.0);

  expect_near("seed.out", forward(dims, attrs, input, grid),
              {0.25, 2.25, 2, 8.5, 20.5, 12, 8.25, 18.25, 10});
  const Gradients grads = backward(dims, attrs, grad_output, input, grid);
  // clang-format off
  expect_near("seed.input_grad", grads.input_grad, {
      .25, 0, 0, .25, .25, 0, 0, .25,
      0,   0, 0, 0,   0,   0, 0, 0,
      .5,  0, 0, .5,  .5,  0, 0, .5,
      0,   0, 0, 0,   0,   0, 0, 0,
      .25, 0, 0, .25, .25, 0, 0, .25});
  expect_near("seed.grid_grad", grads.grid_grad, {
      2, 1.25,   2, 11.25,    -16, 10,
      68, 10,    4, 20,       -96, 10,
      66, -41.25, 2, -91.25,  -80, -50});
  // clang-format on
}

// Nearest, align_corners true, input 1x1x2x3 = 1..6, grid 1x1x4x2, grad_output {1, 2, 3, 4}.
//   ix = (x+1)/2*2 = x+1, iy = (y+1)/2*1.
//   (-0.5, 0): ix=.5 -> 0 (half to even), iy=.5 -> 0: V(0,0)=1
//   ( 0.5, 1): ix=1.5 -> 2 (half to even), iy=1:      V(1,2)=6
//   ( 1.2, 0): ix=2.2 -> 2, iy=.5 -> 0:               V(0,2)=3
//   ( 2,  -1): ix=3 is outside (zeros padding):      0
// input_grad: (0,0)+=1, (1,2)+=2, (0,2)+=3; grid_grad is exactly 0.
TEST(GridSampler2DReference, nearest_align_corners_rounds_half_to_even) {
  const Dims dims{1, 1, 2, 3, 1, 4};
  const Attrs attrs{1, 0, true};
  const std::vector<double> input = {1, 2, 3, 4, 5, 6};
  const std::vector<double> grid = {-0.5, 0, 0.5, 1, 1.2, 0, 2, -1};
  expect_near("nearest.out", forward(dims, attrs, input, grid), {1, 6, 3, 0});
  const Gradients grads = backward(dims, attrs, {1, 2, 3, 4}, input, grid);
  expect_near("nearest.input_grad", grads.input_grad, {1, 0, 3, 0, 0, 2});
  expect_near("nearest.grid_grad", grads.grid_grad, std::vector<double>(8, 0.0));
  for (double v : grads.grid_grad) EXPECT_FALSE(std::signbit(v)) << "grid_grad must be +0";
}

// Bilinear, border, align_corners false, input 1x1x2x2 = {1,2,3,4} (V = 1 + x + 2y inside),
// grid 1x1x4x2, grad_output {1, 2, 3, 4}. ix = x + .5, iy = y + .5, mx = my = 1.
//   A (-1, -1): ix=iy=-.5 -> clamped to 0, clamp derivative 0. Samples V(0,0)=1 with tx=ty=0;
//               input_grad (0,0) += 1; grid_grad 0 (raw gx=1, gy=2, times 0).
//   B (0, .25): ix=.5, iy=.75 inside, derivative 1. out = 1 + .5 + 2*.75 = 3; gx=2*1=2, gy=2*2=4;
//               weights (.125, .125, .375, .375) * g=2 -> (.25, .25, .75, .75).
//   C (.9, 5):  ix=1.4 -> 1, iy=5.5 -> 1, both on the far border (derivative 0). Samples V(1,1)=4;
//               input_grad (1,1) += 3; grid_grad 0.
//   D (NaN, 0): NaN survives the clamp, so the point is out of bounds: out 0, nothing, grid_grad 0.
// input_grad = (1+.25, .25, .75, .75+3) = (1.25, .25, .75, 3.75).
TEST(GridSampler2DReference, border_clamps_with_zero_derivative_and_drops_nan) {
  const Dims dims{1, 1, 2, 2, 1, 4};
  const Attrs attrs{0, 1, false};
  const std::vector<double> input = {1, 2, 3, 4};
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> grid = {-1, -1, 0, 0.25, 0.9, 5, nan, 0};
  expect_near("border.out", forward(dims, attrs, input, grid), {1, 3, 4, 0});
  const Gradients grads = backward(dims, attrs, {1, 2, 3, 4}, input, grid);
  expect_near("border.input_grad", grads.input_grad, {1.25, 0.25, 0.75, 3.75});
  expect_near("border.grid_grad", grads.grid_grad, {0, 0, 2, 4, 0, 0, 0, 0});
}

// Empty dims still give correctly sized outputs: c = 0 leaves out and input_grad empty but
// grid_grad has one zero per grid element; n = 0 empties everything.
TEST(GridSampler2DReference, empty_dims_give_correctly_sized_outputs) {
  const Attrs attrs{};
  const std::vector<double> grid = {0.1, 0.2, 0.3, 0.4};
  const Gradients c0 = backward({1, 0, 3, 3, 1, 2}, attrs, {}, {}, grid);
  expect_near("empty_c.out", forward({1, 0, 3, 3, 1, 2}, attrs, {}, grid), {});
  expect_near("empty_c.input_grad", c0.input_grad, {});
  expect_near("empty_c.grid_grad", c0.grid_grad, {0, 0, 0, 0});
  const Gradients n0 = backward({0, 2, 3, 3, 1, 2}, attrs, {}, {}, {});
  expect_near("empty_n.out", forward({0, 2, 3, 3, 1, 2}, attrs, {}, {}), {});
  expect_near("empty_n.input_grad", n0.input_grad, {});
  expect_near("empty_n.grid_grad", n0.grid_grad, {});
}

// Beyond the selftest: the huge-coordinate guard of the spec's Decision. With zeros padding,
// +-inf and 1e30 drop the point; under border padding +-inf clamps to the border (derivative 0).
// Input 1x1x1x2 = {3, 5}, align false: ix = ((x+1)*2-1)/2 = x + .5, iy = ((y+1)*1-1)/2 = y/2.
//   zeros:  (inf, 0) -> 0;  (1e30, 0) -> 0;  (0, 0): ix=.5, iy=0 -> .5*3 + .5*5 = 4
//   border: (inf, 0) -> ix clamps to 1 -> 5, grid_grad (0, 0); (-inf, 0) -> 3
TEST(GridSampler2DReference, infinite_and_huge_coordinates) {
  const Dims dims{1, 1, 1, 2, 1, 3};
  const std::vector<double> input = {3, 5};
  const double inf = std::numeric_limits<double>::infinity();
  expect_near("zeros.out", forward(dims, Attrs{0, 0, false}, input, {inf, 0, 1e30, 0, 0, 0}),
              {0, 0, 4});
  expect_near("border.out", forward(dims, Attrs{0, 1, false}, input, {inf, 0, -inf, 0, 0, 0}),
              {5, 3, 4});
  const Gradients g = backward(dims, Attrs{0, 1, false}, {1, 1, 1}, input, {inf, 0, -inf, 0, 0, 0});
  // Third point: gx = (V01 - V00) * mx = (5 - 3) * 1 = 2; iy = 0 is on the border: gy = 0.
  expect_near("border.grid_grad", g.grid_grad, {0, 0, 0, 0, 2, 0});
  expect_near("border.input_grad", g.input_grad, {1 + 0.5, 1 + 0.5});
}

}  // namespace

namespace {

// PyTorch's own ground truth (test_nn.py, TestNN.test_grid_sample, "known input"): input 1..10 as
// (1, 1, 2, 5), the point (x, y) = (-0.2, 1e-6), nearest, alignCorners false. In float,
// ix = ((-0.2f + 1) * 5 - 1) / 2 is exactly 1.5, which rounds half to even to 2; iy = 0.500001
// rounds to 1: the sample is input[1][2] = 8 (PyTorch float32 gives 8). In double, -0.2f is
// -0.200000003, ix = 1.4999999925 rounds to 1: 7 (PyTorch float64 gives 7 for the same values).
constexpr float kTieX = -0.2f;
constexpr double kTieY = 1e-6;

std::vector<double> tie_input() {
  std::vector<double> v(10);
  for (int i = 0; i < 10; ++i) v[static_cast<size_t>(i)] = i + 1;
  return v;
}

TEST(GridSampler2DReference, nearest_tie_falls_where_pytorch_puts_it_per_dtype) {
  const Dims dims{1, 1, 2, 5, 1, 1};
  const std::vector<double> grid = {static_cast<double>(kTieX), static_cast<double>(kTieY)};
  for (int64_t padding : {0, 1}) {
    EXPECT_EQ(forward(dims, Attrs{1, padding, false, true}, tie_input(), grid),
              std::vector<double>{8})
        << "float coordinates, padding " << padding;
    EXPECT_EQ(forward(dims, Attrs{1, padding, false, false}, tie_input(), grid),
              std::vector<double>{7})
        << "double coordinates, padding " << padding;
  }
}

// The same point through the C API on the shipped kernels: FLOAT computes the coordinate in float
// (8), DOUBLE in double (7). (-0.2 is no FLOAT16/BFLOAT16 value: those grids hold another point.)
TEST(GridSampler2DKernels, nearest_tie_falls_where_pytorch_puts_it_per_dtype) {
  namespace gs = gradconf::props::gs;
  for (aclDataType dtype : {ACL_FLOAT, ACL_DOUBLE}) {
    for (auto padding :
         {gradconf::grid_sampler2d::Padding::kZeros, gradconf::grid_sampler2d::Padding::kBorder}) {
      gradconf::grid_sampler2d::Problem p;
      p.entry = gradconf::Direction::kForward;
      p.dtype = dtype;
      p.profile =
          dtype == ACL_DOUBLE ? gradconf::SpecProfile::kExtended : gradconf::SpecProfile::kSeed;
      p.n = 1, p.c = 1, p.in_h = 2, p.in_w = 5, p.out_h = 1, p.out_w = 1;
      p.interpolation = gradconf::grid_sampler2d::Interpolation::kNearest;
      p.padding = padding;
      gradconf::props::Call call = gs::make_call(p);
      call.profile = p.profile;
      call.tensor("input").values = tie_input();
      call.tensor("grid").values = {static_cast<double>(kTieX), kTieY};
      const auto outcome = gradconf::props::run(call, {}, gradconf::props::Backend::linked());
      ASSERT_TRUE(outcome.ok()) << outcome.message;
      EXPECT_EQ(gradconf::props::output_of(call, outcome, "out"),
                std::vector<double>{dtype == ACL_DOUBLE ? 7.0 : 8.0})
          << gradconf::dtype_name(dtype);
    }
  }
}

// cann-latest's modes (E-GS-5), by hand. Input one row [1, 2, 4, 8] (H 1, W 4); y = 0 gives iy 0
// under both alignCorners (H 1), which every padding leaves at 0.
//   Reflection, alignCorners false: x = -1.375 -> ix = ((x+1)*4 - 1)/2 = -1.25. Folding at the
//   outer edges (low -0.5, span 4): |-1.25 + 0.5| = 0.75, no full fold, so ix = 0.75 - 0.5 = 0.25
//   with derivative -1 (the point moved left of the edge). out = 0.75*1 + 0.25*2 = 1.25;
//   gridGrad x = (W/2 = 2) * (-1) * (V01 - V00 = 1) = -2 for gradOutput 1.
//   Reflection, alignCorners true: x = 2 -> ix = (3/2)*3 = 4.5; folding at the centres (low 0,
//   span 3): 4.5 = 1 fold + 1.5, odd, so ix = 3 - 1.5 = 1.5 (derivative -1): out = (2+4)/2 = 3.
//   x = -2 -> ix = -1.5 -> 1.5 too.
//   Bicubic (A = -0.75), zeros, alignCorners false: x = -0.125 -> ix = ((0.875*4) - 1)/2 = 1.25,
//   floor 1, t = 0.25. Weights of taps 0..3: far(1.25) = A(1.953125 - 7.8125 + 10 - 4) =
//   -0.10546875, near(0.25) = (1.25*0.25 - 2.25)*0.0625 + 1 = 0.87890625, near(0.75) =
//   (0.9375 - 2.25)*0.5625 + 1 = 0.26171875, far(1.75) = A(5.359375 - 15.3125 + 14 - 4) =
//   -0.03515625 (sum 1). out = -0.10546875 + 1.7578125 + 1.046875 - 0.28125 = 2.41796875.
std::vector<double> row_1248() { return {1, 2, 4, 8}; }

TEST(GridSampler2DReference, reflection_and_bicubic_by_hand) {
  const Dims dims{1, 1, 1, 4, 1, 1};
  const Attrs reflection_edges{0, 2, false, false};
  EXPECT_EQ(forward(dims, reflection_edges, row_1248(), {-1.375, 0}), std::vector<double>{1.25});
  const Gradients g = backward(dims, reflection_edges, {1.0}, row_1248(), {-1.375, 0});
  EXPECT_EQ(g.grid_grad, (std::vector<double>{-2, 0}));
  EXPECT_EQ(g.input_grad, (std::vector<double>{0.75, 0.25, 0, 0}));
  const Attrs reflection_centres{0, 2, true, false};
  EXPECT_EQ(forward(dims, reflection_centres, row_1248(), {2, 0}), std::vector<double>{3});
  EXPECT_EQ(forward(dims, reflection_centres, row_1248(), {-2, 0}), std::vector<double>{3});
  const Attrs bicubic{2, 0, false, false};
  EXPECT_EQ(forward(dims, bicubic, row_1248(), {-0.125, 0}), std::vector<double>{2.41796875});
}

// The same hand values through the C API on the shipped kernels, in every dtype: inputs, grid,
// weights and sums are exact in float, so each output is the hand value rounded once to the dtype.
TEST(GridSampler2DKernels, reflection_and_bicubic_by_hand) {
  namespace gs = gradconf::props::gs;
  using gradconf::grid_sampler2d::Interpolation;
  using gradconf::grid_sampler2d::Padding;
  struct Case {
    Interpolation interpolation;
    Padding padding;
    bool align_corners;
    double x, out;
  };
  const Case cases[] = {{Interpolation::kBilinear, Padding::kReflection, false, -1.375, 1.25},
                        {Interpolation::kBilinear, Padding::kReflection, true, 2, 3},
                        {Interpolation::kBilinear, Padding::kReflection, true, -2, 3},
                        {Interpolation::kBicubic, Padding::kZeros, false, -0.125, 2.41796875}};
  for (aclDataType dtype : {ACL_FLOAT, ACL_DOUBLE, ACL_FLOAT16, ACL_BF16}) {
    for (const Case& k : cases) {
      gradconf::grid_sampler2d::Problem p;
      p.entry = gradconf::Direction::kForward;
      p.dtype = dtype;
      p.profile = gradconf::SpecProfile::kCannLatest;
      p.n = 1, p.c = 1, p.in_h = 1, p.in_w = 4, p.out_h = 1, p.out_w = 1;
      p.interpolation = k.interpolation;
      p.padding = k.padding;
      p.align_corners = k.align_corners;
      gradconf::props::Call call = gs::make_call(p);
      call.profile = p.profile;
      call.tensor("input").values = row_1248();
      call.tensor("grid").values = {k.x, 0};
      const auto outcome = gradconf::props::run(call, {}, gradconf::props::Backend::linked());
      ASSERT_TRUE(outcome.ok()) << outcome.message;
      const double got = gradconf::props::output_of(call, outcome, "out").at(0);
      EXPECT_EQ(got, gradconf::round_to_dtype(dtype, k.out))
          << gradconf::dtype_name(dtype) << " x " << k.x;
    }
  }
}

}  // namespace
