// When a passing case proves little: the rule behind a MISTRUSTED cell, on the outputs of cases the
// campaigns drew (MSDA backward: gradValue, gradLocation, gradAttnWeight).
#include <gtest/gtest.h>

#include "compare/compare.h"

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

}  // namespace
}  // namespace gradconf::props
