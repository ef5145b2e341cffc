// NsaCompress by hand: small cases whose every output was worked out on paper from
// spec nsa_compress.md (the arithmetic is in the comments), checked against the double reference
// and against the shipped kernels in DOUBLE (integer data: every sum is exact, so both must agree
// bit for bit). Nothing here is computed by the code under test.
#include <gtest/gtest.h>

#include <vector>

#include "families/nsa_compress/entries.h"
#include "harness/backend.h"
#include "ops/nsa_compress/reference/reference.h"

namespace {

namespace ref = gradconf::nc::reference;
using gradconf::Direction;
using gradconf::props::Call;

struct HandCase {
  ref::Dims dims;
  std::vector<double> input, weight, output, output_grad, input_grad, weight_grad;
};

// T 5, N 1, D 2, l 3, d 2, one batch: windows (5 - 3) / 2 + 1 = 2, over tokens {0,1,2}, {2,3,4}.
// input rows (t+1, 10(t+1)); weight (1, 2, 3).
//   output[0] = 1*(1,10) + 2*(2,20) + 3*(3,30) = (14, 140)
//   output[1] = 1*(3,30) + 2*(4,40) + 3*(5,50) = (26, 260)
// outputGrad g0 = (1, 0), g1 = (0, 1):
//   inputGrad t0 = 1*g0 = (1,0); t1 = 2*g0 = (2,0); t2 = 3*g0 + 1*g1 = (3,1) (both windows);
//             t3 = 2*g1 = (0,2); t4 = 3*g1 = (0,3)
//   weightGrad j = <g0, x[j]> + <g1, x[2+j]>: j0 = 1 + 30 = 31, j1 = 2 + 40 = 42, j2 = 3 + 50 = 53
HandCase overlapping_windows() {
  HandCase c;
  c.dims = {5, 1, 2, 3, 2, {}};
  c.input = {1, 10, 2, 20, 3, 30, 4, 40, 5, 50};
  c.weight = {1, 2, 3};
  c.output = {14, 140, 26, 260};
  c.output_grad = {1, 0, 0, 1};
  c.input_grad = {1, 0, 2, 0, 3, 1, 0, 2, 0, 3};
  c.weight_grad = {31, 42, 53};
  return c;
}

// T 6, N 2, D 1, l 3, d 2, actSeqLen {0, 2, 6}: batch 0 empty, batch 1 = tokens 0..1 (shorter
// than l: no window), batch 2 = tokens 2..5: (4 - 3) / 2 + 1 = 1 window over tokens {2,3,4};
// tokens 0, 1 and 5 are in no window.
// input head 0: t+1 (1..6), head 1: -(t+1); weight (l, N): head 0 (1, 2, 3), head 1 (1, 1, 1).
//   output head 0 = 1*3 + 2*4 + 3*5 = 26; head 1 = -3 - 4 - 5 = -12
// outputGrad head 0: 2, head 1: -1:
//   inputGrad t2 = (1*2, 1*-1) = (2, -1); t3 = (2*2, -1) = (4, -1); t4 = (3*2, -1) = (6, -1);
//             t0, t1, t5 = 0
//   weightGrad head 0 = 2 * (3, 4, 5) = (6, 8, 10); head 1 = -1 * (-3, -4, -5) = (3, 4, 5)
HandCase empty_and_short_batches() {
  HandCase c;
  c.dims = {6, 2, 1, 3, 2, {0, 2, 6}};
  c.input = {1, -1, 2, -2, 3, -3, 4, -4, 5, -5, 6, -6};
  c.weight = {1, 1, 2, 1, 3, 1};
  c.output = {26, -12};
  c.output_grad = {2, -1};
  c.input_grad = {0, 0, 0, 0, 2, -1, 4, -1, 6, -1, 0, 0};
  c.weight_grad = {6, 3, 8, 4, 10, 5};
  return c;
}

std::vector<HandCase> cases() { return {overlapping_windows(), empty_and_short_batches()}; }

TEST(NcReferenceByHand, forward_and_backward_match_the_hand_arithmetic) {
  for (const HandCase& c : cases()) {
    EXPECT_EQ(ref::compressed_rows(c.dims) * c.dims.heads * c.dims.dim,
              static_cast<int64_t>(c.output.size()));
    EXPECT_EQ(ref::forward(c.dims, c.input, c.weight), c.output);
    const ref::Gradients g = ref::backward(c.dims, c.input, c.weight, c.output_grad);
    EXPECT_EQ(g.input, c.input_grad);
    EXPECT_EQ(g.weight, c.weight_grad);
  }
}

// The same cases through the C API on the shipped kernels (extended: DOUBLE, any l and d).
Call hand_call(const HandCase& c, Direction direction) {
  gradconf::nc::Problem p;
  p.entry = direction;
  p.dtype = ACL_DOUBLE;
  p.profile = gradconf::SpecProfile::kExtended;
  p.heads = c.dims.heads;
  p.dim = c.dims.dim;
  p.block = c.dims.block;
  p.stride = c.dims.stride;
  p.lengths.clear();
  int64_t previous = 0;
  for (int64_t end : c.dims.act_seq_len) {
    p.lengths.push_back(end - previous);
    previous = end;
  }
  if (p.lengths.empty()) p.lengths = {c.dims.tokens};
  Call call = gradconf::props::nc::make_call(p);
  call.profile = p.profile;
  call.tensor("input").values = c.input;
  call.tensor("weight").values = c.weight;
  if (direction == Direction::kBackward) call.tensor("outputGrad").values = c.output_grad;
  return call;
}

TEST(NcKernelsByHand, kernels_give_the_hand_values_bit_for_bit) {
  const auto& backend = gradconf::props::Backend::linked();
  for (const HandCase& c : cases()) {
    const Call forward = hand_call(c, Direction::kForward);
    const auto f = gradconf::props::run(forward, {}, backend);
    ASSERT_TRUE(f.ok()) << f.message;
    EXPECT_EQ(gradconf::props::output_of(forward, f, "output"), c.output);
    const Call backward = hand_call(c, Direction::kBackward);
    const auto b = gradconf::props::run(backward, {}, backend);
    ASSERT_TRUE(b.ok()) << b.message;
    EXPECT_EQ(gradconf::props::output_of(backward, b, "inputGrad"), c.input_grad);
    EXPECT_EQ(gradconf::props::output_of(backward, b, "weightGrad"), c.weight_grad);
  }
}

}  // namespace
