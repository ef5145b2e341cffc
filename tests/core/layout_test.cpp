// ops/core/layout.h: the strides the test harness builds views from must be the ones the spec
// describes (checked against strides written out by hand).
#include "core/layout.h"

#include <gtest/gtest.h>

#include <vector>

namespace {

using gradconf::LayoutSpec;
using gradconf::make_geometry;

TEST(LayoutSpec, identity_is_row_major) {
  const std::vector<int64_t> dims = {2, 3, 4, 5};
  const auto g = make_geometry(dims, LayoutSpec{});
  ASSERT_TRUE(g);
  EXPECT_EQ(g->strides, (std::vector<int64_t>{60, 20, 5, 1}));
  EXPECT_EQ(g->offset, 0);
  EXPECT_EQ(g->storage_numel, 120);
  EXPECT_EQ(gradconf::contiguous_strides(dims), g->strides);
  EXPECT_TRUE(LayoutSpec{}.contiguous());
}

TEST(LayoutSpec, channels_last_order) {
  const std::vector<int64_t> dims = {2, 3, 4, 5};  // N C H W stored as N H W C
  const auto g = make_geometry(dims, LayoutSpec{{0, 2, 3, 1}});
  ASSERT_TRUE(g);
  EXPECT_EQ(g->strides, (std::vector<int64_t>{60, 1, 15, 3}));
  EXPECT_EQ(g->storage_numel, 120);
}

TEST(LayoutSpec, padding_offset_and_broadcast) {
  const std::vector<int64_t> dims = {2, 3, 4};
  // pad 1 after each level: W level 4+1 = 5, H level 3*5+1 = 16, N level 2*16+1 = 33.
  const auto padded = make_geometry(dims, LayoutSpec{{}, 1, 7});
  ASSERT_TRUE(padded);
  EXPECT_EQ(padded->strides, (std::vector<int64_t>{16, 5, 1}));
  EXPECT_EQ(padded->offset, 7);
  EXPECT_EQ(padded->storage_numel, 33 + 7);
  const auto broadcast = make_geometry(dims, LayoutSpec{{}, 0, 0, 0b010});
  ASSERT_TRUE(broadcast);
  EXPECT_EQ(broadcast->strides, (std::vector<int64_t>{4, 0, 1}));
  EXPECT_EQ(broadcast->storage_numel, 8);
  EXPECT_FALSE(make_geometry(dims, LayoutSpec{{0, 1}}));            // order of the wrong rank
  EXPECT_FALSE(make_geometry(dims, LayoutSpec{{}, 0, 0, 0b1000}));  // broadcast bit beyond rank
}

TEST(LayoutSpec, text_round_trip) {
  for (const LayoutSpec& spec : {LayoutSpec{}, LayoutSpec{{0, 2, 3, 1}}, LayoutSpec{{}, 3, 5},
                                 LayoutSpec{{3, 1, 0, 2}, 1, 7, 0b0101}}) {
    const auto parsed = LayoutSpec::parse(spec.to_string(), 4);
    ASSERT_TRUE(parsed) << spec.to_string();
    EXPECT_EQ(parsed->to_string(), spec.to_string());
  }
  EXPECT_EQ((LayoutSpec{{0, 2, 3, 1}, 3, 5, 1}).to_string(), "o0231.p3.f5.b1");
  EXPECT_FALSE(LayoutSpec::parse("o0123", 3));
  EXPECT_FALSE(LayoutSpec::parse("o0012", 4));
  EXPECT_FALSE(LayoutSpec::parse("x1", 4));
}

// Found by fuzz_problem_repro: "o0231.b15.o0123" parsed (the last order won) but printed back
// differently. Only to_string's own spelling is accepted.
TEST(LayoutSpec, only_the_canonical_spelling_parses) {
  for (const char* text :
       {"o0123", "p0", "f0", "b0", "p1.p2", "o0231.b15.o0123", "b1.p3", "f5.p3", "p03"}) {
    EXPECT_FALSE(LayoutSpec::parse(text, 4)) << text;
  }
  EXPECT_TRUE(LayoutSpec::parse("o0231.p3.f5.b1", 4));
}

// Found by fuzz_grid_sampler2d_backward_args: row-major strides of dims whose product overflows.
TEST(ContiguousStrides, saturate_instead_of_overflowing) {
  const std::vector<int64_t> dims = {2, int64_t{1} << 32, int64_t{1} << 31, 3};
  const std::vector<int64_t> strides = gradconf::contiguous_strides(dims);
  EXPECT_EQ(strides, (std::vector<int64_t>{INT64_MAX, int64_t{3} << 31, 3, 1}));
}

}  // namespace
