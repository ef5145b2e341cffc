// GridSampler2D cases the generators reach rarely or never, pinned and judged like every law case:
// law 1 (matches_reference) on a call whose values the case chooses, through the registry's
// runner on the linked backend. The generated laws cover the rest (modes, layouts, empties,
// determinism, workspace, threads); these are the regressions and the long sums.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/parallel.h"
#include "families/grid_sampler2d/traits.h"
#include "grid_sampler2d/nearest_forward.h"
#include "grid_sampler2d/workspace.h"
#include "laws/determinism.h"
#include "laws/matches_reference.h"
#include "support/planted_backend.h"

namespace {

using gradconf::Direction;
using gradconf::grid_sampler2d::Interpolation;
using gradconf::grid_sampler2d::Padding;
using gradconf::grid_sampler2d::Problem;
using gradconf::props::Backend;
using gradconf::props::Call;
using gradconf::props::GridSampler2DTraits;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr aclDataType kDtypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE};

// cann-latest: the profile that accepts every mode and every dtype.
Problem problem(aclDataType dtype, std::array<int64_t, 6> sizes) {
  Problem p;
  p.dtype = dtype;
  p.profile = gradconf::SpecProfile::kCannLatest;
  p.n = sizes[0], p.c = sizes[1], p.in_h = sizes[2], p.in_w = sizes[3];
  p.out_h = sizes[4], p.out_w = sizes[5];
  return p;
}

struct Values {
  std::vector<double> input, grid, grad_output;
};

// `values` rounded to the dtype, as the tensor holds them (the reference reads the call's values).
void set_values(Call& call, const std::string& role, const std::vector<double>& values) {
  auto& tensor = call.tensor(role);
  tensor.values.clear();
  for (double v : values) tensor.values.push_back(gradconf::round_to_dtype(tensor.dtype, v));
}

// Law 1 on `p` with the chosen values in place of the fill spec's; "" when it holds.
std::string law_1_failure(const Problem& p, const Values& values, const Backend& backend) {
  Call call = GridSampler2DTraits::make_call(p);
  if (!values.input.empty()) set_values(call, "input", values.input);
  if (!values.grid.empty()) set_values(call, "grid", values.grid);
  if (!values.grad_output.empty() && p.entry == Direction::kBackward) {
    set_values(call, "gradOutput", values.grad_output);
  }
  const auto result = gradconf::props::matches_reference_on<GridSampler2DTraits>(p, call, backend);
  return result.holds ? std::string() : result.detail;
}

void expect_matches_reference(const Problem& p, const Values& values = {}) {
  EXPECT_EQ(law_1_failure(p, values, Backend::linked()), "");
}

// Every interpolation x padding x alignCorners, as the backward with each outputMask (and a null
// one) and as the forward: the runs law 1 rejected, each as "<repro>: <why>".
std::vector<std::string> failures_over_every_mode(Problem base, const Values& values,
                                                  const Backend& backend) {
  const std::optional<std::array<bool, 2>> masks[] = {
      std::array<bool, 2>{true, true}, std::array<bool, 2>{true, false},
      std::array<bool, 2>{false, true}, std::array<bool, 2>{false, false}, std::nullopt};
  std::vector<std::string> failures;
  auto run = [&](const Problem& p) {
    const std::string failure = law_1_failure(p, values, backend);
    if (!failure.empty()) failures.push_back(p.to_repro() + ": " + failure);
  };
  for (auto interpolation :
       {Interpolation::kBilinear, Interpolation::kNearest, Interpolation::kBicubic}) {
    for (auto padding : {Padding::kZeros, Padding::kBorder, Padding::kReflection}) {
      for (bool align : {false, true}) {
        Problem p = base;
        p.interpolation = interpolation, p.padding = padding, p.align_corners = align;
        for (const auto& mask : masks) {
          p.entry = Direction::kBackward, p.output_mask = mask;
          run(p);
        }
        p.entry = Direction::kForward;
        run(p);
      }
    }
  }
  return failures;
}

void expect_every_mode_matches(const Problem& base, const Values& values = {}) {
  for (const std::string& failure : failures_over_every_mode(base, values, Backend::linked())) {
    ADD_FAILURE() << failure;
  }
}

// Large channel counts: gridGrad sums C terms per point and inputGrad many points per pixel; still
// within the tolerance table's rows.
TEST(GridSampler2DPinned, long_channel_sum) {
  for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16}) {
    Problem p = problem(dtype, {1, 300, 3, 3, 8, 8});
    for (auto interpolation : {Interpolation::kBilinear, Interpolation::kBicubic}) {
      p.interpolation = interpolation;
      SCOPED_TRACE(p.to_repro());
      expect_matches_reference(p);
    }
  }
}

// The backward's workspace plan for a layout at 2 threads, as phase 1 makes it.
std::optional<gradconf::grid_sampler2d::BackwardWorkspace> plan_at_two_threads(
    const gradconf::grid_sampler2d::SamplerLayout& layout) {
  namespace gs = gradconf::grid_sampler2d;
  return gs::backward_workspace(layout, gs::BackwardWants{}, gs::accumulator_workers(layout, 2),
                                gs::point_workers(layout, 2));
}

// Law 7 (1, 2, 3 and 8 threads, phase 1 and phase 2 at different counts) and the reference on p.
void expect_one_thread_bits(const Problem& p) {
  SCOPED_TRACE(p.to_repro());
  const auto result = gradconf::props::determinism<GridSampler2DTraits>(p, Backend::linked());
  EXPECT_TRUE(result.holds) << result.detail;
  expect_matches_reference(p);
}

// expect_one_thread_bits on backwards of these sizes, float and bfloat16, under every
// interpolation and padding.
void expect_one_thread_bits_in_every_mode(std::array<int64_t, 6> sizes) {
  for (aclDataType dtype : {ACL_FLOAT, ACL_BF16}) {
    for (auto interpolation :
         {Interpolation::kBilinear, Interpolation::kNearest, Interpolation::kBicubic}) {
      for (auto padding : {Padding::kZeros, Padding::kBorder, Padding::kReflection}) {
        Problem p = problem(dtype, sizes);
        p.interpolation = interpolation, p.padding = padding;
        p.entry = Direction::kBackward;
        expect_one_thread_bits(p);
      }
    }
  }
}

// One batch of few channels split across workers: each point-pass worker copies the input itself
// (workspace.h, private_input_copies) and files each point's taps under the pixel ranges it
// reaches (record_chunks). The plan must take both at 2 threads, and law 7 (1, 2, 3 and 8
// threads, phase 1 and phase 2 at different counts) must see the bits of one shared copy and of
// taps stored in point order.
TEST(GridSampler2DPinned, private_copies_and_record_lists_keep_the_one_thread_bits) {
  namespace gs = gradconf::grid_sampler2d;
  const bool fine = gradconf::set_fine_split(true);
  const gs::SamplerLayout layout(1, 4, 48, 40, 40, 48);
  const auto plan = plan_at_two_threads(layout);
  gradconf::set_fine_split(fine);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->input_copies, 2);
  EXPECT_EQ(plan->record_chunks, 2);
  expect_one_thread_bits_in_every_mode({1, 4, 48, 40, 40, 48});
}

// Several batches that split evenly over the workers run batch-major (workspace.h,
// batch_major_workers): each worker takes whole batches through all three passes, its regions
// holding one batch at a time. The plan must take it at 2 threads for 2 and 4 batches (not for 3),
// and law 7 (1, 2, 3 and 8 threads) must see the bits of the passes over all batches, with every
// interpolation, padding and a half type.
TEST(GridSampler2DPinned, batch_major_plans_keep_the_one_thread_bits) {
  namespace gs = gradconf::grid_sampler2d;
  const bool fine = gradconf::set_fine_split(true);
  const auto four = plan_at_two_threads(gs::SamplerLayout(4, 12, 24, 20, 20, 24));
  const auto three = plan_at_two_threads(gs::SamplerLayout(3, 12, 24, 20, 20, 24));
  const auto plain = gs::backward_workspace(gs::SamplerLayout(4, 12, 24, 20, 20, 24),
                                            gs::BackwardWants{}, 2, 2, false);
  gradconf::set_fine_split(fine);
  ASSERT_TRUE(four && three && plain);
  EXPECT_EQ(four->batch_slots, 2);
  EXPECT_EQ(three->batch_slots, 3);
  EXPECT_EQ(plain->batch_slots, 4);
  EXPECT_LT(four->total, plain->total);
  expect_one_thread_bits_in_every_mode({4, 12, 24, 20, 20, 24});
}

// The forward's channels-last copy split into (batch, channel group) items (workspace.h,
// private_channel_groups): the groups cover the channels, their padded rows fill exactly a
// batch's copy, every worker gets the same number of items, and no group is narrower than
// kMinGroupChannels; at 2 threads N 1, C 72 splits in two groups of 40, at 3 in none. Law 7 (1,
// 2, 3 and 8 threads) and the reference on that forward, float and bfloat16, bilinear and
// bicubic, every padding.
TEST(GridSampler2DPinned, forward_channel_groups_fill_the_copy_and_keep_the_one_thread_bits) {
  namespace gs = gradconf::grid_sampler2d;
  int splits = 0;
  for (int64_t batches = 1; batches <= 9; ++batches) {
    for (int64_t channels = 5; channels <= 300; ++channels) {
      for (int parts = 1; parts <= 8; ++parts) {
        const auto split = gs::private_channel_groups(batches, channels, parts);
        if (!split) continue;
        SCOPED_TRACE(::testing::Message()
                     << batches << " batches, C " << channels << ", " << parts << " workers");
        const int64_t per_group = split->channels_per_group, groups = split->groups;
        ASSERT_GT(groups, 0);
        EXPECT_EQ(per_group % gradconf::kLanes, 0);
        EXPECT_GE(groups * per_group, channels);
        EXPECT_LT((groups - 1) * per_group, channels);
        EXPECT_EQ(batches * groups % parts, 0);
        if (groups > 1) {
          EXPECT_GE(per_group, gs::kMinGroupChannels);
        }
        int64_t row_values = 0;
        for (int64_t c0 = 0; c0 < channels; c0 += per_group)
          row_values += gradconf::lane_padded(std::min(per_group, channels - c0));
        EXPECT_EQ(row_values, gradconf::lane_padded(channels));
        splits += groups > 1;
      }
    }
  }
  EXPECT_GT(splits, 0);
  const auto two = gs::private_channel_groups(1, 72, 2);
  ASSERT_TRUE(two);
  EXPECT_EQ(two->channels_per_group, 40);
  EXPECT_EQ(two->groups, 2);
  EXPECT_FALSE(gs::private_channel_groups(1, 72, 3));
  for (aclDataType dtype : {ACL_FLOAT, ACL_BF16}) {
    for (auto interpolation : {Interpolation::kBilinear, Interpolation::kBicubic}) {
      for (auto padding : {Padding::kZeros, Padding::kBorder, Padding::kReflection}) {
        Problem p = problem(dtype, {1, 72, 12, 10, 10, 12});
        p.interpolation = interpolation, p.padding = padding;
        p.entry = Direction::kForward;
        expect_one_thread_bits(p);
      }
    }
  }
}

// The nearest forward a channel plane at a time (nearest_forward.h) locates chunks of
// kNearestChunkPoints points: 70 x 90 = 6,300 points per batch are a whole chunk and one of 2,204
// (not a multiple of kLanes), over 3 batches, and law 7's fine split cuts items inside a chunk's
// channels (each part locates that chunk again). The reference and law 7 (1, 2, 3 and 8 threads),
// float, float16 and bfloat16 (the scalar copy), every padding and alignCorners.
TEST(GridSampler2DPinned, nearest_forward_over_chunks_keeps_the_reference_bits) {
  static_assert(70 * 90 > gradconf::grid_sampler2d::kNearestChunkPoints &&
                70 * 90 < 2 * gradconf::grid_sampler2d::kNearestChunkPoints);
  for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    for (auto padding : {Padding::kZeros, Padding::kBorder, Padding::kReflection}) {
      for (bool align : {false, true}) {
        Problem p = problem(dtype, {3, 5, 33, 47, 70, 90});
        p.interpolation = Interpolation::kNearest, p.padding = padding, p.align_corners = align;
        p.entry = Direction::kForward;
        expect_one_thread_bits(p);
      }
    }
  }
}

// The bilinear forward's sampler over the channels-last copy (bilinear_from_copy.h) takes tiles of
// 2 x kLanes points: 13 x 21 = 273 points per batch are 17 whole tiles, most across an output
// row's end (written point by point), and a last tile of one point; 4 x 32 points per batch are
// whole tiles inside one row (written a cache line per plane). C 5, 19 and 40 end on a partial
// vector of channels; C 3 and 4 are copied in rows of four (each tap's rows of a group
// transposed; C 1 and 2 keep the gathers: narrow_copy_pays); taps outside read the zero row. The
// reference and law 7 (1, 2, 3 and 8 threads: float of C 5-64 takes the copy where each worker has
// whole batches or groups of its own, the gathers elsewhere), float, float16 and bfloat16, every
// padding and alignCorners.
TEST(GridSampler2DPinned, bilinear_forward_from_the_copy_keeps_the_reference_bits) {
  static_assert(13 * 21 % (2 * gradconf::kLanes) == 1 && 32 % (2 * gradconf::kLanes) == 0);
  for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    for (std::array<int64_t, 6> sizes :
         {std::array<int64_t, 6>{2, 5, 9, 11, 13, 21}, std::array<int64_t, 6>{2, 19, 9, 11, 4, 32},
          std::array<int64_t, 6>{3, 40, 17, 6, 13, 21}, std::array<int64_t, 6>{2, 4, 9, 11, 13, 21},
          std::array<int64_t, 6>{2, 4, 9, 11, 4, 32},
          std::array<int64_t, 6>{3, 3, 17, 6, 13, 21}}) {
      for (auto padding : {Padding::kZeros, Padding::kBorder, Padding::kReflection}) {
        for (bool align : {false, true}) {
          Problem p = problem(dtype, sizes);
          p.interpolation = Interpolation::kBilinear, p.padding = padding, p.align_corners = align;
          p.entry = Direction::kForward;
          expect_one_thread_bits(p);
        }
      }
    }
  }
}

// Few channels take the copy in rows of four only where its sampler beats the gathers: 3 or 4
// channels and at least a quarter as many points as pixels per batch; the copy's rows are then
// four values wide (bicubic keeps rows of kLanes: its sampler loads kLanes channels at a time).
TEST(GridSampler2DPinned, few_channels_take_the_copy_only_where_it_pays) {
  namespace gs = gradconf::grid_sampler2d;
  EXPECT_TRUE(gs::narrow_copy_pays(gs::SamplerLayout(1, 4, 256, 256, 256, 256)));
  EXPECT_TRUE(gs::narrow_copy_pays(gs::SamplerLayout(2, 3, 256, 256, 128, 128)));
  EXPECT_FALSE(gs::narrow_copy_pays(gs::SamplerLayout(1, 4, 256, 256, 64, 64)));
  EXPECT_FALSE(gs::narrow_copy_pays(gs::SamplerLayout(1, 2, 256, 256, 256, 256)));
  EXPECT_FALSE(gs::narrow_copy_pays(gs::SamplerLayout(1, 1, 256, 256, 256, 256)));
  const gs::SamplerLayout four(1, 4, 256, 256, 256, 256);
  EXPECT_EQ(gs::forward_copy_row(four, Interpolation::kBilinear), 4);
  EXPECT_EQ(gs::forward_copy_row(four, Interpolation::kBicubic), gradconf::kLanes);
  EXPECT_EQ(gs::forward_copy_row(gs::SamplerLayout(1, 12, 8, 8, 8, 8), Interpolation::kBilinear),
            16);
}

// Where each batch's passes run on one worker, the point pass writes gradOutput's rows for the
// scatter (workspace.h, with_grad_rows_by_points): at one worker, and at two in a batch-major
// plan, not for three batches over two workers (one batch's points and planes split), not for C <=
// 4 (no rows) nor rows past kMaxGradRowsBytes, and never without gradOutput in place. The bits
// are those of the scatter transposing the planes itself (law 7 and the reference above).
TEST(GridSampler2DPinned, point_pass_writes_grad_rows_only_where_one_worker_reads_them) {
  namespace gs = gradconf::grid_sampler2d;
  gs::BackwardWants in_place;
  in_place.grad_output_in_place = true;
  const auto rows_at = [&](const gs::SamplerLayout& l, int threads, bool readable = true) {
    gs::BackwardWants wants = in_place;
    wants.grad_output_in_place = readable;
    return gs::with_grad_rows_by_points(l, wants, gs::accumulator_workers(l, threads),
                                        gs::point_workers(l, threads), true)
        .grad_rows_by_points;
  };
  const bool fine = gradconf::set_fine_split(true);
  EXPECT_TRUE(rows_at(gs::SamplerLayout(4, 12, 24, 20, 20, 24), 1));
  EXPECT_TRUE(rows_at(gs::SamplerLayout(4, 12, 24, 20, 20, 24), 2));
  EXPECT_FALSE(rows_at(gs::SamplerLayout(3, 12, 24, 20, 20, 24), 2));
  EXPECT_FALSE(rows_at(gs::SamplerLayout(4, 4, 24, 20, 20, 24), 1));
  EXPECT_FALSE(rows_at(gs::SamplerLayout(1, 256, 64, 64, 64, 64), 1));
  EXPECT_FALSE(rows_at(gs::SamplerLayout(4, 12, 24, 20, 20, 24), 1, false));
  gradconf::set_fine_split(fine);
}

// A plan whose record lists would pass the workspace limit while the plain layout fits falls back
// to the plain layout, and then the inputGrad pass scatters whole planes (record_ranges 1): a
// range's task could not tell its points from the rest. 2^55 points of 4 channels: 64-byte
// records are 2^61 bytes in point order, but filed under 2 ranges with their indices they pass
// 2^62.
TEST(GridSampler2DPinned, a_plan_without_record_lists_scatters_whole_planes) {
  namespace gs = gradconf::grid_sampler2d;
  const gs::SamplerLayout layout(1, 4, 2, 2, int64_t{1} << 28, int64_t{1} << 27);
  ASSERT_EQ(gs::pixel_ranges(layout, 2), 2);
  const auto plan = plan_at_two_threads(layout);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->record_chunks, 0);
  EXPECT_EQ(plan->record_ranges, 1);
  const auto listed =
      plan_at_two_threads(gs::SamplerLayout(1, 4, 2, 2, int64_t{1} << 20, int64_t{1} << 20));
  ASSERT_TRUE(listed);
  EXPECT_EQ(listed->record_chunks, 2);
  EXPECT_EQ(listed->record_ranges, 2);
}

// Non-finite pixels: an in-bounds inf/NaN pixel poisons what reads it (as in PyTorch), with the
// reference's NaN/inf pattern; pixels no point reads stay harmless.
TEST(GridSampler2DPinned, nonfinite_input_values) {
  std::vector<double> input(2 * 2 * 4 * 5);
  for (size_t i = 0; i < input.size(); ++i) input[i] = 0.1 * static_cast<double>(i % 7) - 0.3;
  input[3] = kInf, input[27] = -kInf, input[58] = kNaN;
  for (aclDataType dtype : {ACL_FLOAT, ACL_DOUBLE, ACL_FLOAT16}) {
    Problem p = problem(dtype, {2, 2, 4, 5, 3, 4});
    p.seed = 13;
    expect_every_mode_matches(p, {.input = input, .grid = {}, .grad_output = {}});
  }
}

// A long cancelling reduction: 8192 points sample one location, half with gradOutput +0.7 and
// half with -0.7, so every inputGrad pixel is a sum of 8192 terms whose exact value is 0. Spec
// README §3: float32 accumulates in double where a reduction is long; the float32 row's absolute
// floor (2^-16) is far below what a float accumulator leaves (~8192 * 2^-24 * 0.7).
TEST(GridSampler2DPinned, input_grad_long_cancelling_sum) {
  const int64_t h = 64, w = 128;
  Values values;
  for (int64_t i = 0; i < h * w; ++i) {
    values.grid.insert(values.grid.end(), {-0.3137, 0.4271});
    values.grad_output.push_back(i < h * w / 2 ? 0.7 : -0.7);
  }
  for (auto interpolation :
       {Interpolation::kBilinear, Interpolation::kNearest, Interpolation::kBicubic}) {
    Problem p = problem(ACL_FLOAT, {1, 1, 3, 3, h, w});
    p.interpolation = interpolation;
    SCOPED_TRACE(p.to_repro());
    expect_matches_reference(p, values);
  }
}

// An offset within 2^-25 of 1 must keep its tiny tap: input [inf, 1, 2, 3], x = -0.33333334f
// (linspace(-1, 1, 4)[1] in float) with alignCorners gives ix = 0.99999997..., so the inf pixel
// has weight ~3e-8 and the output is inf (PyTorch and the reference). Rounding tx to float first
// made that weight 0 and the output NaN.
TEST(GridSampler2DPinned, bilinear_keeps_a_tap_whose_weight_is_a_few_ulps) {
  for (aclDataType dtype : kDtypes) {
    Problem p = problem(dtype, {1, 1, 1, 4, 1, 1});
    p.entry = Direction::kForward;
    p.align_corners = true;
    Call call = GridSampler2DTraits::make_call(p);
    set_values(call, "input", {kInf, 1, 2, 3});
    set_values(call, "grid", {static_cast<double>(-0.33333334f), 0});
    const auto outcome = gradconf::props::run(call, {}, Backend::linked());
    ASSERT_TRUE(outcome.ok()) << outcome.message;
    // float16 rounds x to -0.33325195, which lands just past pixel 1: the inf pixel is no tap.
    if (dtype != ACL_FLOAT16) {
      EXPECT_EQ(gradconf::props::output_of(call, outcome, "out").at(0), kInf)
          << gradconf::dtype_name(dtype);
    }
    const auto result =
        gradconf::props::matches_reference_on<GridSampler2DTraits>(p, call, Backend::linked());
    EXPECT_TRUE(result.holds) << result.detail;
  }
}

// 17 x 17 grid points: every pair of the special coordinates below.
Values grid_specials() {
  const double specials[] = {-1.25, -1,   -0.9, -0.75, -0.6, -0.5, -0.25, -0.2, 0,
                             0.2,   0.25, 0.5,  0.6,   0.75, 0.9,  1,     1.25};
  Values values;
  for (double y : specials) {
    for (double x : specials) values.grid.insert(values.grid.end(), {x, y});
  }
  return values;
}

// Grid points exactly on pixel centres, pixel edges, the half-way points between centres
// (nearest's ties), +-1, 0 and past the border, for both alignCorners conventions: every pair of
// them on a 4 x 5 input, in every dtype and mode.
TEST(GridSampler2DPinned, grid_on_corners_centres_edges_and_ties) {
  const double specials[] = {-1.25, -1,   -0.9, -0.75, -0.6, -0.5, -0.25, -0.2, 0,
                             0.2,   0.25, 0.5,  0.6,   0.75, 0.9,  1,     1.25};
  Values values;
  for (double y : specials) {
    for (double x : specials) values.grid.insert(values.grid.end(), {x, y});
  }
  for (aclDataType dtype : kDtypes) {
    expect_every_mode_matches(problem(dtype, {1, 2, 4, 5, 17, 17}), values);
  }
}

// Nearest sampling's gridGrad is 0 by construction (the spec's, for any input), so a call asking
// only for it is judged as the zero fill the spec asks of it: it holds and is not mistrusted. A
// gridGrad that is zero only for the values drawn (bilinear, gradOutput all 0) still is.
TEST(GridSampler2DPinned, nearest_grid_grad_alone_is_evidence_of_its_zero_fill) {
  Problem p = problem(ACL_FLOAT, {2, 3, 5, 6, 4, 7});
  p.entry = Direction::kBackward;
  p.output_mask = std::array<bool, 2>{false, true};
  p.interpolation = Interpolation::kNearest;
  const auto nearest =
      gradconf::props::matches_reference<GridSampler2DTraits>(p, Backend::linked());
  EXPECT_TRUE(nearest.holds) << nearest.detail;
  EXPECT_FALSE(nearest.mistrusted) << nearest.mistrust_reason;

  p.interpolation = Interpolation::kBilinear;
  Call call = GridSampler2DTraits::make_call(p);
  set_values(call, "gradOutput", std::vector<double>(call.tensor("gradOutput").values.size(), 0.0));
  const auto no_gradient =
      gradconf::props::matches_reference_on<GridSampler2DTraits>(p, call, Backend::linked());
  EXPECT_TRUE(no_gradient.holds) << no_gradient.detail;
  EXPECT_TRUE(no_gradient.mistrusted);
}

// The pinned sweeps can fail: with a planted fault in the kernels each rejects some run.
TEST(GridSampler2DPinned, sweeps_catch_planted_faults) {
  const Values specials = grid_specials();
  for (const char* fault :
       {"nearest_rounds_half_up", "dropped_border_clamp", "reflection_ignores_align_corners",
        "wrong_cubic_coefficient", "swapped_grid_grad_xy"}) {
    const Backend& planted = gradconf::testing::planted_backend("grid_sampler2d", fault);
    EXPECT_FALSE(
        failures_over_every_mode(problem(ACL_FLOAT, {1, 2, 4, 5, 17, 17}), specials, planted)
            .empty())
        << fault;
  }
}

}  // namespace
