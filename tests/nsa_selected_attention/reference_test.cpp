// NsaSelectedAttention by hand: small cases worked out on paper from spec
// nsa_selected_attention.md (the arithmetic is in the comments), checked against the double
// reference and against the shipped kernels in DOUBLE. Scores are 0 or ln 3, so every softmax is
// a ratio of small integers; the only rounding is ln 3 itself and exp(ln 3) (a few ulps), hence
// the bound of 64 ulps of the largest magnitude. Nothing here is computed by the code under test.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "families/nsa_selected_attention/entries.h"
#include "harness/backend.h"
#include "ops/nsa_selected_attention/reference/reference.h"

namespace {

namespace ref = gradconf::nsa::reference;
using gradconf::Direction;
using gradconf::props::Call;

const double kLn3 = std::log(3.0);

// Each value within 64 ulps of max(1, |expected|).
void expect_near_all(const std::vector<double>& got, const std::vector<double>& want,
                     const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    const double bound =
        64 * std::numeric_limits<double>::epsilon() * std::max(1.0, std::abs(want[i]));
    EXPECT_NEAR(got[i], want[i], bound) << what << "[" << i << "]";
  }
}

struct HandCase {
  ref::Dims dims;
  std::vector<double> query, key, value, topk, out, max, sum, out_grad, dq, dk, dv;
};

// One batch: T1 2 queries, T2 4 keys, N1 2 query heads on N2 1 kv head (G 2), Dqk = Dv = 1,
// B 2, K 2, scale 1, sparseMode 2 (causal: local kv position > s is masked).
// query (t, n1): q0 = (1, 2), q1 = (1, 0); key = (0, ln3, 5, 7); value = (4, 8, 100, 200).
// topk (t, 0, :): query 0 = (0, 1), keys 0,1 | 2,3; query 1 = (0, 0), keys 0,1,0,1 (duplicate).
// Forward:
//   q0 (s 0), both heads: positions 1, 2, 3 are > 0, masked; only key 0: P = (1, 0, 0, 0),
//     out = 4, m = score of key 0 = 0, l = 1.
//   q1 (s 1) head 0 (q 1): scores (0, ln3, 0, ln3), exp (1, 3, 1, 3), total 8:
//     P = (1/8, 3/8, 1/8, 3/8), out = (4 + 24 + 4 + 24) / 8 = 7, m = ln3, l = 1/3 + 1 + 1/3 + 1 =
//     8/3.
//   q1 head 1 (q 0): scores all 0, P = 1/4 each, out = (4 + 8 + 4 + 8) / 4 = 6, m = 0, l = 4.
// Backward, dO: q0 = (1, 1), q1 = (1, 2); Dr = dO * out; dP_j = dO * v_j; dS_j = P_j (dP_j - Dr):
//   q0 both heads: dS = 0 (P is one-hot on key 0 and dP_0 = Dr = 4 dO); dq = 0;
//     dv0 += 1 (head 0) + 1 (head 1).
//   q1 head 0: Dr 7, dP (4, 8, 4, 8), dS (-3/8, 3/8, -3/8, 3/8); dq = 3/8 ln3 + 3/8 ln3 = 3/4 ln3;
//     dk0 += (-3/8 - 3/8) * 1 = -3/4, dk1 += +3/4; dv0 += 1/8 + 1/8 = 1/4, dv1 += 3/8 + 3/8 = 3/4.
//   q1 head 1: dO 2, Dr 12, dP (8, 16, 8, 16), dS (-1, 1, -1, 1); dq = ln3 + ln3 = 2 ln3;
//     dk += dS * q = 0; dv0 += (1/4 + 1/4) * 2 = 1, dv1 += 1.
//   dq = (0, 0, 3/4 ln3, 2 ln3); dk = (-3/4, 3/4, 0, 0) (keys 2, 3: masked, no gradient);
//   dv = (1 + 1 + 1/4 + 1, 3/4 + 1, 0, 0) = (3.25, 1.75, 0, 0).
HandCase causal_with_duplicates_and_groups() {
  HandCase c;
  c.dims.q_tokens = 2;
  c.dims.kv_tokens = 4;
  c.dims.q_heads = 2;
  c.dims.kv_heads = 1;
  c.dims.dim_qk = c.dims.dim_v = 1;
  c.dims.block = 2;
  c.dims.count = 2;
  c.dims.seq_q = {2};
  c.dims.seq_kv = {4};
  c.dims.scale = 1;
  c.dims.causal = true;
  c.query = {1, 2, 1, 0};
  c.key = {0, kLn3, 5, 7};
  c.value = {4, 8, 100, 200};
  c.topk = {0, 1, 0, 0};
  c.out = {4, 4, 7, 6};
  const double m[] = {0, 0, kLn3, 0}, l[] = {1, 1, 8.0 / 3, 4};
  for (int row = 0; row < 4; ++row) {
    c.max.insert(c.max.end(), 8, m[row]);
    c.sum.insert(c.sum.end(), 8, l[row]);
  }
  c.out_grad = {1, 1, 1, 2};
  c.dq = {0, 0, 0.75 * kLn3, 2 * kLn3};
  c.dk = {-0.75, 0.75, 0, 0};
  c.dv = {3.25, 1.75, 0, 0};
  return c;
}

// Two batches, sparseMode 0 (no mask), N1 = N2 = 1, Dqk 1, Dv 2, B 1, K 2, scale 1/2.
// Batch 0: 1 query, keys 0..1; batch 1: 1 query, keys 2..4 (block indices local to the batch).
// query (2, 2); key (0, 2 ln3, 2 ln3, 7, 0); value rows (1, 0), (0, 1), (9, 9), (2, 4), (6, 2).
// topk: query 0 = (0, 1) -> keys 0, 1; query 1 = (2, 0) -> keys 4, 2 (local 2 and 0).
//   q0: scores 1/2 * 2 * (0, 2 ln3) = (0, 2 ln3): exp (1, 9), P = (1/10, 9/10),
//     out = (1/10, 9/10), m = 2 ln3, l = 1/9 + 1 = 10/9.
//   q1: scores 1/2 * 2 * (0, 2 ln3) for (key 4, key 2): P = (1/10, 9/10),
//     out = 1/10 (6, 2) + 9/10 (9, 9) = (8.7, 8.3), m = 2 ln3, l = 10/9.
// dO: q0 = (1, 0), q1 = (0, 1):
//   q0: Dr = 1/10; dP = (1, 0); dS = (1/10 (1 - 1/10), 9/10 (0 - 1/10)) = (9/100, -9/100);
//     dq0 = 1/2 (9/100 * 0 + -9/100 * 2 ln3) = -9/100 ln3; dk0 += 1/2 * 9/100 * 2 = 9/100,
//     dk1 += -9/100; dv0 += 1/10 (1, 0), dv1 += 9/10 (1, 0).
//   q1: Dr = 8.3; dP = (2 (key 4), 9 (key 2)); dS = (1/10 (2 - 8.3), 9/10 (9 - 8.3))
//     = (-0.63, 0.63); dq1 = 1/2 (-0.63 * 0 + 0.63 * 2 ln3) = 0.63 ln3;
//     dk4 += 1/2 * -0.63 * 2 = -0.63, dk2 += 0.63; dv4 += 1/10 (0, 1), dv2 += 9/10 (0, 1).
//   dk = (0.09, -0.09, 0.63, 0, -0.63) (key 3 never selected);
//   dv rows (0.1, 0), (0.9, 0), (0, 0.9), (0, 0), (0, 0.1).
HandCase two_batches_unmasked() {
  HandCase c;
  c.dims.q_tokens = 2;
  c.dims.kv_tokens = 5;
  c.dims.q_heads = c.dims.kv_heads = 1;
  c.dims.dim_qk = 1;
  c.dims.dim_v = 2;
  c.dims.block = 1;
  c.dims.count = 2;
  c.dims.seq_q = {1, 2};
  c.dims.seq_kv = {2, 5};
  c.dims.scale = 0.5;
  c.dims.causal = false;
  c.query = {2, 2};
  c.key = {0, 2 * kLn3, 2 * kLn3, 7, 0};
  c.value = {1, 0, 0, 1, 9, 9, 2, 4, 6, 2};
  c.topk = {0, 1, 2, 0};
  c.out = {0.1, 0.9, 8.7, 8.3};
  for (int row = 0; row < 2; ++row) {
    c.max.insert(c.max.end(), 8, 2 * kLn3);
    c.sum.insert(c.sum.end(), 8, 10.0 / 9);
  }
  c.out_grad = {1, 0, 0, 1};
  c.dq = {-0.09 * kLn3, 0.63 * kLn3};
  c.dk = {0.09, -0.09, 0.63, 0, -0.63};
  c.dv = {0.1, 0, 0.9, 0, 0, 0.9, 0, 0, 0, 0.1};
  return c;
}

std::vector<HandCase> cases() {
  return {causal_with_duplicates_and_groups(), two_batches_unmasked()};
}

TEST(NsaReferenceByHand, forward_and_backward_match_the_hand_arithmetic) {
  for (const HandCase& c : cases()) {
    const ref::Forward f = ref::forward(c.dims, c.query, c.key, c.value, c.topk);
    expect_near_all(f.attention_out, c.out, "attentionOut");
    expect_near_all(f.softmax_max, c.max, "softmaxMax");
    expect_near_all(f.softmax_sum, c.sum, "softmaxSum");
    for (bool recompute : {false, true}) {
      const ref::Gradients g =
          ref::backward(c.dims, c.query, c.key, c.value, recompute ? std::vector<double>{} : c.out,
                        c.out_grad, c.max, c.sum, c.topk);
      expect_near_all(g.dq, c.dq, "dq");
      expect_near_all(g.dk, c.dk, "dk");
      expect_near_all(g.dv, c.dv, "dv");
    }
  }
}

// The same cases through the C API on the shipped kernels (extended: DOUBLE, Dqk 1, B 1 or 2).
Call hand_call(const HandCase& c, Direction direction) {
  gradconf::nsa::Problem p;
  p.entry = direction;
  p.dtype = ACL_DOUBLE;
  p.profile = gradconf::SpecProfile::kExtended;
  p.q_heads = c.dims.q_heads;
  p.kv_heads = c.dims.kv_heads;
  p.dim_qk = c.dims.dim_qk;
  p.dim_v = c.dims.dim_v;
  p.block = c.dims.block;
  p.count = c.dims.count;
  p.sparse_mode = c.dims.causal ? 2 : 0;
  p.scale = c.dims.scale;
  p.seqs.clear();
  for (size_t b = 0; b < c.dims.seq_q.size(); ++b) {
    const int64_t q0 = b ? c.dims.seq_q[b - 1] : 0, k0 = b ? c.dims.seq_kv[b - 1] : 0;
    p.seqs.push_back({c.dims.seq_q[b] - q0, c.dims.seq_kv[b] - k0});
  }
  Call call = gradconf::props::nsa::make_call(p);
  call.profile = p.profile;
  call.tensor("query").values = c.query;
  call.tensor("key").values = c.key;
  call.tensor("value").values = c.value;
  call.tensor("topkIndices").values = c.topk;
  if (direction == Direction::kBackward) {
    call.tensor("attentionOut").values = c.out;
    call.tensor("attentionOutGrad").values = c.out_grad;
    call.tensor("softmaxMax").values = c.max;
    call.tensor("softmaxSum").values = c.sum;
  }
  return call;
}

TEST(NsaKernelsByHand, kernels_give_the_hand_values) {
  const auto& backend = gradconf::props::Backend::linked();
  for (const HandCase& c : cases()) {
    const Call forward = hand_call(c, Direction::kForward);
    const auto f = gradconf::props::run(forward, {}, backend);
    ASSERT_TRUE(f.ok()) << f.message;
    using gradconf::props::output_of;
    expect_near_all(output_of(forward, f, "attentionOut"), c.out, "attentionOut");
    expect_near_all(output_of(forward, f, "softmaxMaxOut"), c.max, "softmaxMaxOut");
    expect_near_all(output_of(forward, f, "softmaxSumOut"), c.sum, "softmaxSumOut");
    const Call backward = hand_call(c, Direction::kBackward);
    const auto b = gradconf::props::run(backward, {}, backend);
    ASSERT_TRUE(b.ok()) << b.message;
    expect_near_all(output_of(backward, b, "dqOut"), c.dq, "dqOut");
    expect_near_all(output_of(backward, b, "dkOut"), c.dk, "dkOut");
    expect_near_all(output_of(backward, b, "dvOut"), c.dv, "dvOut");
  }
}

}  // namespace
