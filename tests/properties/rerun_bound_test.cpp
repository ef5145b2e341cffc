// stride_invariance and batch_split on a backend without the bitwise promise
// (gradconfBitwiseInvariant, laws/rerun.h) compare to rerun_bound instead of bits. That bound must
// still see a kernel that ignores a stride or reads a batch from the wrong rows, and must hold for
// a correct kernel.
#include <gtest/gtest.h>

#include <string>

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
