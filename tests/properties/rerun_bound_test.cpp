// Bounds for correct kernels that round differently from ours: on a backend without the bitwise
// promise (gradconfBitwiseInvariant, laws/rerun.h) stride_invariance and batch_split compare to
// rerun_bound instead of bits, and cancelling outputs are held to cancellation_floor. Each bound
// must hold for a correct kernel and still see a kernel that ignores a stride, reads a batch from
// the wrong rows or is wrong by more than rounding.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "registry/registry.h"
#include "support/planted_backend.h"

namespace gradconf::props {
namespace {

const LawBinding& binding(std::string_view family, std::string_view name) {
  const OpFamily* f = find_family(family);
  const LawBinding* law = f ? f->law(name) : nullptr;
  if (!law) throw std::runtime_error("no law binding " + std::string(name));
  return *law;
}

// The first failure of `law` within `attempts` cases on `backend`, or "" when every case held.
std::string first_failure(const LawBinding& law, const Backend& backend, int attempts) {
  for (int i = 0; i < attempts; ++i) {
    const LawResult r = run_law_case(law, backend, i);
    if (!r.holds) return r.detail;
  }
  return "";
}

TEST(BoundedRerun, an_ignored_stride_is_seen_without_the_bitwise_promise) {
  const auto loose = gradconf::testing::planted_backend("nsa_compress", "ignored_input_grad_stride")
                         .without_bitwise_claim();
  ASSERT_FALSE(loose->bitwise_invariant());
  const std::string why =
      first_failure(binding("nsa_compress", "NsaCompressGrad.stride_invariance"), *loose, 300);
  gradconf::testing::planted_backend().select_fault("");
  EXPECT_NE(why.find("beyond rerun_bound"), std::string::npos) << why;
}

TEST(BoundedRerun, batches_from_the_wrong_rows_are_seen_without_the_bitwise_promise) {
  const auto loose = gradconf::testing::planted_backend("nsa_compress", "lengths_not_prefix")
                         .without_bitwise_claim();
  const std::string why =
      first_failure(binding("nsa_compress", "NsaCompressGrad.batch_split"), *loose, 200);
  gradconf::testing::planted_backend().select_fault("");
  EXPECT_FALSE(why.empty()) << "lengths_not_prefix passed batch_split under rerun_bound";
}

TEST(BoundedRerun, our_kernels_hold_the_bounded_comparisons) {
  const auto loose = Backend::linked().without_bitwise_claim();
  for (const char* law : {"MultiScaleDeformableAttentionGrad.stride_invariance",
                          "MultiScaleDeformableAttentionGrad.batch_split"}) {
    EXPECT_EQ(first_failure(binding("multi_scale_deformable_attention", law), *loose, 100), "")
        << law;
  }
}

}  // namespace
}  // namespace gradconf::props

namespace gradconf::props {
namespace {

// The reference's gridGrad of a parsed case (null when the line did not parse).
const ExpectedOutput* grid_grad_of(const std::optional<CaseRecord>& record) {
  if (!record) return nullptr;
  for (const ExpectedOutput& e : record->expected) {
    if (e.name == "gridGrad") return &e;
  }
  return nullptr;
}

// A bicubic gridGrad that cancels: 176 products of magnitude ~600 summing to an exact ~1e-14.
// PyTorch's float kernel returned errors up to 5 u sum|terms| there (~1e-4), beyond fp32's atol
// 2^-16; cancellation_floor allows u ((K + 3) sum|terms| + 6 sum scales) and no more.
TEST(CancellationFloor, holds_cancelling_elements_to_their_terms_not_to_the_table) {
  const auto record = parse_repro_line(
      "grid_sampler2d_backward --interp=bicubic --pad=border --values=dyadic --ac=1 "
      "--seed=1845388352600020870 --profile=cann-latest n2c11_ih12iw9_oh15ow7");
  const ExpectedOutput* grid_grad = grid_grad_of(record);
  ASSERT_NE(grid_grad, nullptr);
  ASSERT_EQ(grid_grad->term_magnitudes.size(), grid_grad->values.size());
  EXPECT_EQ(grid_grad->terms, 11 * 16);
  const Tolerance& row = tolerance_for("GridSampler2DBackward", "gridGrad", ACL_FLOAT);
  const std::vector<double> floors = grid_grad->floors(ACL_FLOAT);
  int cancelling = 0;
  std::vector<double> rounded = grid_grad->values, wrong = grid_grad->values;
  for (size_t i = 0; i < floors.size(); ++i) {
    const double table = row.atol + row.rtol * std::fabs(grid_grad->values[i]);
    if (!(std::fabs(grid_grad->values[i]) < 1e-10 && floors[i] > table)) continue;
    ++cancelling;
    // What a float kernel that sums in another order may return there (PyTorch's was off by up
    // to 5 u of the plain sum of |terms|, which the magnitudes bound), and what no correct one
    // can.
    rounded[i] += (i % 2 ? 5 : -5) * std::ldexp(grid_grad->term_magnitudes[i], -24);
    wrong[i] += 2 * floors[i] + table;
  }
  EXPECT_GE(cancelling, 5) << "the case no longer has cancelling elements";
  EXPECT_NE(grid_grad->compare_with(rounded, row, ACL_FLOAT).status, CompareStatus::kFailed)
      << grid_grad->compare_with(rounded, row, ACL_FLOAT).summary();
  EXPECT_EQ(compare(rounded, grid_grad->values, grid_grad->dims, row).status,
            CompareStatus::kFailed)
      << "without the floor the table alone must raise the false alarm this floor removes";
  EXPECT_EQ(grid_grad->compare_with(wrong, row, ACL_FLOAT).status, CompareStatus::kFailed);
}

// x = 2.0000002 on a 1-pixel-wide input: the point's only in-bounds tap has the cubic weight
// c2(1 + 1.2e-7), 1e-7 from its root. PyTorch's float kernel returned gridGrad[0,3,4,1] =
// -3.42e-5 for the exact 1.28e-5: its float weight is off by ~1e-6 of the cubic's monomials.
TEST(CancellationFloor, counts_a_cubic_weight_evaluated_near_its_root) {
  const auto record = parse_repro_line(
      "grid_sampler2d_backward --interp=bicubic --grid=specials --values=dyadic "
      "--layout-input=o0231 --layout-inputGrad=o3210 --seed=3650124565400389042 "
      "--profile=cann-latest n1c7_ih11iw1_oh8ow17");
  const ExpectedOutput* grid_grad = grid_grad_of(record);
  ASSERT_NE(grid_grad, nullptr);
  const size_t at = ((3 * 17) + 4) * 2 + 1;  // [0, 3, 4, 1] of (1, 8, 17, 2)
  ASSERT_EQ(grid_grad->evaluation_scales.size(), grid_grad->values.size());
  EXPECT_NEAR(grid_grad->values[at], 1.2816e-5, 1e-9);
  EXPECT_GT(grid_grad->evaluation_scales[at], 1e4 * grid_grad->term_magnitudes[at]);
  const Tolerance& row = tolerance_for("GridSampler2DBackward", "gridGrad", ACL_FLOAT);
  const double pytorch_error = 1.2816e-5 + 3.4176e-5;
  EXPECT_GT(pytorch_error, row.atol + row.rtol * 1.2816e-5) << "the table alone allowed it";
  EXPECT_GT(grid_grad->floors(ACL_FLOAT)[at], pytorch_error);
}

TEST(CancellationFloor, is_zero_without_a_finite_magnitude) {
  EXPECT_EQ(cancellation_floor(ACL_FLOAT, 16, std::nan("")), 0);
  EXPECT_EQ(cancellation_floor(ACL_FLOAT, 16, INFINITY), 0);
  EXPECT_EQ(cancellation_floor(ACL_FLOAT, 0, 1.0), 0);
  // u ((K + 3) sum|terms| + 6 sum scales), the scales defaulting to the magnitudes.
  EXPECT_EQ(cancellation_floor(ACL_FLOAT, 7, 1.0), std::ldexp(16.0, -24));
  EXPECT_EQ(cancellation_floor(ACL_DOUBLE, 7, 1.0), std::ldexp(16.0, -53));
  EXPECT_EQ(cancellation_floor(ACL_FLOAT, 7, 1.0, 1000.0), std::ldexp(6010.0, -24));
}

}  // namespace
}  // namespace gradconf::props
