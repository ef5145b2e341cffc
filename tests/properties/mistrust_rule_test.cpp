// When a passing case proves little: the rule behind a MISTRUSTED cell, on the outputs of cases the
// campaigns drew (MSDA backward: gradValue, gradLocation, gradAttnWeight), and what an op marks as
// zero by construction for it (GridSampler2D's empty problems, NsaCompress's unread tokens).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "compare/compare.h"
#include "families/grid_sampler2d/traits.h"
#include "families/nsa_compress/traits.h"
#include "laws/matches_reference.h"

namespace gradconf::props {
namespace {

TEST(MistrustRule, ExpectedValuesAllZeroForTheInputsDrawnProveLittle) {
  // 'msda_grad --levels=6x5 --loc=specials ... b1m1c32q1p2': both samples fall outside the level.
  const OutputZeros outputs[] = {{960, 960, 0}, {4, 4, 0}, {2, 2, 0}};
  EXPECT_TRUE(proves_little(outputs));
}

TEST(MistrustRule, TheThresholdIsOnTheNonzeroShare) {
  const OutputZeros above[] = {{100, 96, 0}};
  const OutputZeros at[] = {{100, 95, 0}};
  EXPECT_TRUE(proves_little(above));
  EXPECT_FALSE(proves_little(at));
}

TEST(MistrustRule, ZerosByConstructionAreLeftOut) {
  // 90 rows no query reaches, and 9 of the other 10 values zero for the inputs drawn.
  const OutputZeros sparse_rest[] = {{100, 99, 90}};
  EXPECT_FALSE(proves_little(sparse_rest));
  const OutputZeros all_zero_rest[] = {{100, 100, 90}};
  EXPECT_TRUE(proves_little(all_zero_rest));
}

TEST(MistrustRule, AnOutputZeroByConstructionThroughoutIsNotJudged) {
  // C = 0: gradValue is empty and the other two sum over no channel. Comparing them checks the
  // zero fill, all there is to check.
  const OutputZeros no_channel[] = {{0, 0, 0}, {4, 4, 4}, {2, 2, 2}};
  EXPECT_FALSE(proves_little(no_channel));
  const OutputZeros empty[] = {{0, 0, 0}, {0, 0, 0}};
  EXPECT_FALSE(proves_little(empty));
  EXPECT_FALSE(proves_little({}));
  // The same outputs without the structural count are all zero for the inputs drawn.
  const OutputZeros unmarked[] = {{0, 0, 0}, {4, 4, 0}, {2, 2, 0}};
  EXPECT_TRUE(proves_little(unmarked));
}

TEST(MistrustRule, ALargeSparseOutputDoesNotDrownTheOthers) {
  // 'msda_grad --idx=32.64 --levels=5x9.3x1.1x2 --zeros=1 ... b1m1c8q1p1': three samples reach 8
  // of gradValue's 400 values; gradLocation and gradAttnWeight carry evidence.
  const OutputZeros sparse[] = {{400, 392, 0}, {6, 4, 0}, {3, 1, 0}};
  EXPECT_FALSE(proves_little(sparse));
  // Every weight zero: gradValue and gradLocation vanish, gradAttnWeight does not.
  const OutputZeros zero_weights[] = {{400, 400, 0}, {6, 6, 0}, {3, 0, 0}};
  EXPECT_FALSE(proves_little(zero_weights));
}

// E-GS-8 zero-fills gridGrad when C = 0 and inputGrad when Hout or Wout = 0, whatever the inputs:
// the reference marks them zero by construction, so our kernels' (correct) passes on such problems
// are judged as the zero fill, not MISTRUSTED (two cells of a default campaign were, from draws of
// C = 0). Unmarked, the same outputs are mistrusted:
// AnOutputZeroByConstructionThroughoutIsNotJudged.
TEST(MistrustRule, GridSampler2DEmptyProblemsMarkTheirZeroFills) {
  struct Case {
    const char* repro;
    std::string zero_filled;  // "" for a problem with nothing zero by construction
  };
  const Case cases[] = {
      {"grid_sampler2d_backward --dt=f16 n2c0_ih5iw8_oh3ow3", "gridGrad"},
      {"grid_sampler2d_backward n2c3_ih5iw8_oh0ow3", "inputGrad"},
      {"grid_sampler2d_backward --mask=01 n1c0_ih4iw4_oh2ow5", "gridGrad"},
      {"grid_sampler2d_backward n1c2_ih4iw4_oh2ow5", ""},
  };
  for (const Case& c : cases) {
    const auto p = grid_sampler2d::Problem::parse_repro(c.repro);
    ASSERT_TRUE(p) << c.repro;
    const Call call = GridSampler2DTraits::make_call(*p);
    for (const ExpectedOutput& e : GridSampler2DTraits::reference(*p, call)) {
      const bool zero_filled = e.name == c.zero_filled;
      EXPECT_EQ(e.structural_zeros, zero_filled ? static_cast<int64_t>(e.values.size()) : 0)
          << c.repro << ": " << e.name;
      if (zero_filled) {
        EXPECT_GT(e.values.size(), 0u) << c.repro;
      }
    }
    const LawResult r =
        matches_reference<GridSampler2DTraits>(*p, GridSampler2DTraits::default_backend());
    EXPECT_TRUE(r.holds) << r.detail;
    EXPECT_FALSE(r.mistrusted) << r.mistrust_reason;
  }
}

// NsaCompressGrad reads a token only inside a window: inputGrad of the tokens no window reads and
// weightGrad when there is no window are zero whatever the inputs hold. Every other expected value
// sums products of dense random inputs, so it is nonzero: the marked count is the zero count. An
// unmarked draw of short batches was MISTRUSTED in a default campaign.
TEST(MistrustRule, NsaCompressMarksTheTokensNoWindowReads) {
  const char* const repros[] = {
      "nc_grad --profile=extended --dt=f32 --seqs=3.2 n2d4l4s2",     // no window at all
      "nc_grad --profile=extended --dt=f32 --seqs=13.0.9 n2d4l2s4",  // gaps, tails, an empty batch
      "nc_grad --profile=extended --dt=f32 --seqs=11.4 n1d8l4s2",    // overlaps, a tail, exactly l
      "nc_grad --profile=extended --dt=f32 --seqs=64 n1d16l32s16",   // every token read
  };
  for (const char* repro : repros) {
    const auto p = nc::Problem::parse_repro(repro);
    ASSERT_TRUE(p) << repro;
    const Call call = NsaCompressTraits::make_call(*p);
    for (const ExpectedOutput& e : NsaCompressTraits::reference(*p, call)) {
      const auto zeros = std::count(e.values.begin(), e.values.end(), 0.0);
      EXPECT_EQ(e.structural_zeros, zeros) << repro << ": " << e.name;
    }
    const LawResult r =
        matches_reference<NsaCompressTraits>(*p, NsaCompressTraits::default_backend());
    EXPECT_TRUE(r.holds) << r.detail;
    EXPECT_FALSE(r.mistrusted) << r.mistrust_reason;
  }
}

}  // namespace
}  // namespace gradconf::props
