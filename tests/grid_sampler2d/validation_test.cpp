// GridSampler2D's validation at sizes no test can allocate: phase 1 only, on views over storage
// that is declared but never touched (phase 1 reads no tensor data), so a test presents views far
// bigger than it allocates. The boundaries of the other clauses are pinned by the hand-written
// rows (clause_rows_test.cpp); these pin GS-LIMIT-01, GS-LIMIT-02 and the overlap decisions of
// GS-OUT-01 that need huge or interleaved strides.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "aclnnop/aclnn_grid_sampler2d_backward.h"
#include "core/executor.h"
#include "core/layout.h"
#include "core/profile.h"
#include "families/grid_sampler2d/entries.h"
#include "grid_sampler2d/workspace.h"
#include "laws/law.h"
#include "support/declared_tensor.h"

namespace {

using gradconf::testing::DeclaredTensor;

float g_declared_storage[16];

// dims and strides over declared storage of `storage` elements.
DeclaredTensor declared(std::vector<int64_t> dims, std::vector<int64_t> strides, aclDataType dtype,
                        int64_t storage) {
  return DeclaredTensor(std::move(dims), dtype, g_declared_storage, std::move(strides), storage);
}

struct BoolArrayDeleter {
  void operator()(aclBoolArray* array) const { aclDestroyBoolArray(array); }
};
using BoolArray = std::unique_ptr<aclBoolArray, BoolArrayDeleter>;

BoolArray bool_array(std::vector<bool> values) {
  bool raw[8] = {};
  for (size_t i = 0; i < values.size(); ++i) raw[i] = values[i];
  return BoolArray(aclCreateBoolArray(raw, values.size()));
}

// Phase 1 (bilinear, zeros, unaligned) on declared tensors; returns its status and message.
aclnnStatus declared_backward_phase1(const DeclaredTensor& grad_output, const DeclaredTensor& input,
                                     const DeclaredTensor& grid, const DeclaredTensor& input_grad,
                                     const DeclaredTensor& grid_grad, std::vector<bool> mask_values,
                                     std::string* message, int64_t interpolation = 0) {
  const BoolArray mask = bool_array(std::move(mask_values));
  uint64_t ws = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = aclnnGridSampler2DBackwardGetWorkspaceSize(
      grad_output.tensor, input.tensor, grid.tensor, interpolation, 0, false, mask.get(),
      input_grad.tensor, grid_grad.tensor, &ws, &executor);
  *message = aclGetRecentErrMsg();
  if (status == ACLNN_SUCCESS) aclDestroyAclOpExecutor(executor);
  return status;
}

// Phase 1 of a backward call whose inputGrad has the given (disjoint) view; returns its status.
aclnnStatus backward_phase1_with_input_grad(std::vector<int64_t> dims, std::vector<int64_t> strides,
                                            int64_t storage_numel, std::string* message) {
  const int64_t n = dims[0], c = dims[1], h = dims[2], w = dims[3];
  DeclaredTensor input = declared({n, c, h, w}, {0, 0, 0, 0}, ACL_FLOAT, 1);
  DeclaredTensor input_grad = declared(dims, strides, ACL_FLOAT, storage_numel);
  DeclaredTensor grid = declared({n, 1, 1, 2}, {2, 2, 2, 1}, ACL_FLOAT, 2 * n);
  DeclaredTensor grid_grad = declared({n, 1, 1, 2}, {2, 2, 2, 1}, ACL_FLOAT, 2 * n);
  DeclaredTensor grad_output = declared({n, c, 1, 1}, {c, 1, 1, 1}, ACL_FLOAT, n * c);
  EXPECT_NE(input_grad.tensor, nullptr);
  return declared_backward_phase1(grad_output, input, grid, input_grad, grid_grad, {true, true},
                                  message);
}

// GS-OUT-01 must reject overlap only (spec README §3). A 3x3 inputGrad plane with strides
// (H 3K, W 2K) addresses K * {0,2,4,3,5,7,6,8,10}: nine distinct elements, interleaved (not
// provably disjoint by nested strides). With K = 2^23 the largest offset exceeds has_overlap's
// bitmap limit (2^26) and the view is reported as overlapping.
TEST(GridSampler2DValidation, small_interleaved_disjoint_output_with_large_strides_is_valid) {
  gradconf::ScopedSpecProfile seed(gradconf::SpecProfile::kSeed);
  for (int64_t k : {int64_t{1}, int64_t{1} << 10, int64_t{1} << 23}) {
    SCOPED_TRACE("K = " + std::to_string(k));
    std::string message;
    const aclnnStatus status = backward_phase1_with_input_grad(
        {1, 1, 3, 3}, {10 * k + 1, 10 * k + 1, 3 * k, 2 * k}, 10 * k + 1, &message);
    EXPECT_EQ(status, ACLNN_SUCCESS) << message;
  }
}

// The other side of GS-OUT-01: interleaved views that do repeat an element are refused by name:
// strides (H 2, W 1) over 3 x 3 (element (1, 0) is element (0, 2)) and (H 3, W 2) over 3 x 4
// ((0, 3) is (2, 0)).
TEST(GridSampler2DValidation, interleaved_overlapping_output_is_refused_by_name) {
  gradconf::ScopedSpecProfile seed(gradconf::SpecProfile::kSeed);
  for (auto [w, h_stride, w_stride] : {std::tuple{int64_t{3}, int64_t{2}, int64_t{1}},
                                       std::tuple{int64_t{4}, int64_t{3}, int64_t{2}}}) {
    std::string message;
    const int64_t last = 2 * h_stride + (w - 1) * w_stride;
    const aclnnStatus status = backward_phase1_with_input_grad(
        {1, 1, 3, w}, {last + 1, last + 1, h_stride, w_stride}, last + 1, &message);
    EXPECT_EQ(status, ACLNN_ERR_PARAM_INVALID);
    EXPECT_EQ(message.rfind("GS-OUT-01: ", 0), 0u) << message;
  }
}

// Same contract for a large interleaved view: H and W strides p = 4097, q = 4099 are coprime and
// at least the other dim's size, so i*p + j*q never repeats (p | (j - j') and q | (i - i') force
// equality), yet q <= p * (4097 - 1) so nested strides cannot prove it. 4097^2 > 2^24 elements.
TEST(GridSampler2DValidation, large_interleaved_disjoint_output_is_valid) {
  gradconf::ScopedSpecProfile seed(gradconf::SpecProfile::kSeed);
  const int64_t p = 4097, q = 4099, size = 4097;
  const int64_t last = (size - 1) * p + (size - 1) * q;
  std::string message;
  const aclnnStatus status = backward_phase1_with_input_grad(
      {1, 1, size, size}, {last + 1, last + 1, q, p}, last + 1, &message);
  EXPECT_EQ(status, ACLNN_SUCCESS) << message;
}

// A valid problem whose workspace is huge: phase 1 may refuse it, but then (spec README §2) the
// message must start with the id of a clause that the call actually violates. grid and gradOutput
// broadcast (zero strides, inputs); gridGrad (1, 2^28, 2^s, 2) is a real disjoint view.
TEST(GridSampler2DValidation, huge_valid_problem_names_a_violated_clause_if_refused) {
  gradconf::ScopedSpecProfile seed(gradconf::SpecProfile::kSeed);
  for (int shift : {24, 28, 29, 30}) {
    SCOPED_TRACE("Wout = 2^" + std::to_string(shift));
    const int64_t h = int64_t{1} << 28, w = int64_t{1} << shift;
    DeclaredTensor input = declared({1, 1, 2, 2}, {4, 4, 2, 1}, ACL_FLOAT16, 4);
    DeclaredTensor input_grad = declared({1, 1, 2, 2}, {4, 4, 2, 1}, ACL_FLOAT16, 4);
    DeclaredTensor grid = declared({1, h, w, 2}, {0, 0, 0, 0}, ACL_FLOAT16, 1);
    DeclaredTensor grid_grad =
        declared({1, h, w, 2}, {2 * h * w, 2 * w, 2, 1}, ACL_FLOAT16, 2 * h * w);
    DeclaredTensor grad_output = declared({1, 1, h, w}, {0, 0, 0, 0}, ACL_FLOAT16, 1);
    ASSERT_NE(grid_grad.tensor, nullptr);
    const BoolArray mask = bool_array({true, true});
    uint64_t ws = 0;
    aclOpExecutor* executor = nullptr;
    const aclnnStatus status = aclnnGridSampler2DBackwardGetWorkspaceSize(
        grad_output.tensor, input.tensor, grid.tensor, 0, 0, false, mask.get(), input_grad.tensor,
        grid_grad.tensor, &ws, &executor);
    const std::string message = aclGetRecentErrMsg();
    if (status == ACLNN_SUCCESS) aclDestroyAclOpExecutor(executor);
    // Shapes, dtypes, formats and attributes are valid and the views disjoint: the only clauses
    // such a call can break are the size limits (spec README §3), whatever the clause table says.
    const std::string clause = gradconf::props::clause_of_message(message);
    EXPECT_TRUE(status == ACLNN_SUCCESS || (status == ACLNN_ERR_PARAM_INVALID &&
                                            (clause == "GS-LIMIT-01" || clause == "GS-LIMIT-02")))
        << "status " << status << ", message \"" << message << "\"";
  }
}

// Empty tensors may have null data (aclCreateTensor accepts them): C = 0 with null data for
// gradOutput, input and inputGrad is valid, needs no workspace, and zero-fills gridGrad.
TEST(GridSampler2DValidation, empty_tensors_with_null_data_are_valid) {
  gradconf::ScopedSpecProfile seed(gradconf::SpecProfile::kSeed);
  auto empty = [](std::vector<int64_t> dims) {
    const std::vector<int64_t> strides = gradconf::contiguous_strides(dims);
    const int64_t storage = 0;
    return aclCreateTensor(dims.data(), dims.size(), ACL_FLOAT, strides.data(), 0, ACL_FORMAT_ND,
                           &storage, 1, nullptr);
  };
  aclTensor* grad_output = empty({2, 0, 3, 2});
  aclTensor* input = empty({2, 0, 4, 5});
  aclTensor* input_grad = empty({2, 0, 4, 5});
  ASSERT_NE(grad_output, nullptr);
  ASSERT_NE(input, nullptr);
  ASSERT_NE(input_grad, nullptr);
  std::vector<float> grid_values(2 * 3 * 2 * 2, 0.25f);
  // Canary bytes 0x7B: a huge finite float that no zero-fill leaves behind.
  std::vector<float> grid_grad_storage(grid_values.size() + 4, 1.3e36f);
  DeclaredTensor grid({2, 3, 2, 2}, ACL_FLOAT, grid_values.data(), {12, 4, 2, 1}, 24);
  DeclaredTensor grid_grad({2, 3, 2, 2}, ACL_FLOAT, grid_grad_storage.data(), {12, 4, 2, 1}, 24);
  const BoolArray mask = bool_array({true, true});
  uint64_t ws = 0xDEADBEEF;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(aclnnGridSampler2DBackwardGetWorkspaceSize(grad_output, input, grid.tensor, 0, 0, false,
                                                       mask.get(), input_grad, grid_grad.tensor,
                                                       &ws, &executor),
            ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  EXPECT_EQ(ws, 0u);
  EXPECT_EQ(aclnnGridSampler2DBackward(nullptr, 0, executor, nullptr), ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  for (size_t i = 0; i < grid_values.size(); ++i) EXPECT_EQ(grid_grad_storage[i], 0.0f) << i;
  for (size_t i = grid_values.size(); i < grid_grad_storage.size(); ++i) {
    EXPECT_EQ(grid_grad_storage[i], 1.3e36f) << "written past the view at " << i;
  }
  aclDestroyTensor(grad_output);
  aclDestroyTensor(input);
  aclDestroyTensor(input_grad);
}

// Phase 1 of a float16 bilinear backward call with only gridGrad wanted, one grid point and an
// input of one row of `win` pixels; input and gradOutput broadcast (zero strides), so only
// inputGrad's declared storage is large.
aclnnStatus grid_grad_only_phase1(int64_t win, std::string* message) {
  DeclaredTensor input = declared({1, 1, 1, win}, {0, 0, 0, 0}, ACL_FLOAT16, 1);
  DeclaredTensor input_grad = declared({1, 1, 1, win}, {win, win, win, 1}, ACL_FLOAT16, win);
  DeclaredTensor grid = declared({1, 1, 1, 2}, {2, 2, 2, 1}, ACL_FLOAT16, 2);
  DeclaredTensor grid_grad = declared({1, 1, 1, 2}, {2, 2, 2, 1}, ACL_FLOAT16, 2);
  DeclaredTensor grad_output = declared({1, 1, 1, 1}, {0, 0, 0, 0}, ACL_FLOAT16, 1);
  EXPECT_NE(input_grad.tensor, nullptr);
  return declared_backward_phase1(grad_output, input, grid, input_grad, grid_grad, {false, true},
                                  message);
}

// GS-LIMIT-01 at its exact boundary. With inputGrad masked off, a float16 bilinear call's
// workspace is its input copied channels-last, one row of kNarrowLanes float values (C = 1
// padded to a block) per input pixel and a zero row (input_copy_rows), rounded up to 64 bytes
// (gradOutput is read where it is). Win = 2^62 / 16 - 1 fills the limit exactly; one more pixel
// rounds the region up by 64 bytes, past 2^62.
TEST(GridSampler2DValidation, limit_01_workspace_boundary_is_exact) {
  gradconf::ScopedSpecProfile seed(gradconf::SpecProfile::kSeed);
  constexpr int64_t kRow = gradconf::grid_sampler2d::kNarrowLanes * sizeof(float);
  static_assert(kRow == 16);
  const int64_t largest = static_cast<int64_t>(gradconf::kMaxWorkspaceBytes) / kRow - 1;
  std::string message;
  EXPECT_EQ(grid_grad_only_phase1(largest, &message), ACLNN_SUCCESS) << message;
  EXPECT_EQ(grid_grad_only_phase1(largest + 1, &message), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(message.rfind("GS-LIMIT-01: ", 0), 0u) << message;
}

// GS-LIMIT-01 sizes only what a call uses: an input plane of 2^60 pixels (whose accumulator and
// channels-last copy no workspace could hold) is fine for nearest's gridGrad alone, which reads
// neither, and refused, by name, when inputGrad is wanted too.
TEST(GridSampler2DValidation, limit_01_ignores_accumulator_planes_that_are_not_wanted) {
  gradconf::ScopedSpecProfile seed(gradconf::SpecProfile::kSeed);
  const int64_t side = int64_t{1} << 30;  // 2^60 pixels: 8-byte accumulators overflow int64
  for (bool want_input_grad : {false, true}) {
    DeclaredTensor input = declared({1, 1, side, side}, {0, 0, 0, 0}, ACL_FLOAT16, 1);
    DeclaredTensor input_grad =
        declared({1, 1, side, side}, {side * side, side * side, side, 1}, ACL_FLOAT16, side * side);
    DeclaredTensor grid = declared({1, 1, 1, 2}, {2, 2, 2, 1}, ACL_FLOAT16, 2);
    DeclaredTensor grid_grad = declared({1, 1, 1, 2}, {2, 2, 2, 1}, ACL_FLOAT16, 2);
    DeclaredTensor grad_output = declared({1, 1, 1, 1}, {1, 1, 1, 1}, ACL_FLOAT16, 1);
    ASSERT_NE(input_grad.tensor, nullptr);
    std::string message;
    const aclnnStatus status = declared_backward_phase1(
        grad_output, input, grid, input_grad, grid_grad, {want_input_grad, true}, &message,
        /*interpolation=*/1);
    if (want_input_grad) {
      EXPECT_EQ(status, ACLNN_ERR_PARAM_INVALID);
      EXPECT_EQ(message.rfind("GS-LIMIT-01: ", 0), 0u) << message;
    } else {
      EXPECT_EQ(status, ACLNN_SUCCESS) << message;
    }
  }
}

// The workspace holds one accumulator per worker that can have work. inputGrad tasks are (batch,
// block of channels, range of input rows): one batch of 3 channels over 2 input rows has
// work for two workers, however many threads there are.
TEST(GridSampler2DValidation, workspace_is_sized_by_the_workers_that_can_work) {
  auto workspace_at = [](int threads, int64_t in_h) {
    gradconf::grid_sampler2d::Problem p;
    p.n = 1, p.c = 3, p.in_h = in_h, p.in_w = 50, p.out_h = 3, p.out_w = 4;
    gradconf::props::RunOptions options;
    options.threads = threads;
    const auto outcome = gradconf::props::run(gradconf::props::gs::make_call(p), options,
                                              gradconf::props::Backend::linked());
    EXPECT_EQ(outcome.status, ACLNN_SUCCESS) << outcome.message;
    return outcome.workspace_size;
  };
  EXPECT_LT(workspace_at(1, 2), workspace_at(2, 2));  // two row ranges
  EXPECT_EQ(workspace_at(2, 2), workspace_at(8, 2));
  EXPECT_LT(workspace_at(2, 40), workspace_at(8, 40));  // eight row ranges
}

// GS-LIMIT-02: two interleaved axes are decided in closed form at any span (strides 4097/4099
// and 2^16 + 1/2^16 + 3 over 4097^2 elements: both disjoint, valid). A third interleaved axis
// (C of size 2, stride 2^16 + 5, pairwise colliding with neither) over more than 2^28 elements
// cannot be decided within the budget (it does overlap: 65541 = 2 * 65539 - 65537, which only
// enumeration finds): refused by name, as GS-LIMIT-02 and not GS-OUT-01.
TEST(GridSampler2DValidation, limit_02_undecidable_interleaved_output_is_refused_by_name) {
  gradconf::ScopedSpecProfile seed(gradconf::SpecProfile::kSeed);
  const int64_t size = 4097;
  for (auto [channels, p, q, r, expected] :
       {std::tuple{int64_t{1}, int64_t{4097}, int64_t{4099}, int64_t{0}, ACLNN_SUCCESS},
        std::tuple{int64_t{1}, int64_t{65537}, int64_t{65539}, int64_t{0}, ACLNN_SUCCESS},
        std::tuple{int64_t{2}, int64_t{65537}, int64_t{65539}, int64_t{65541},
                   ACLNN_ERR_PARAM_INVALID}}) {
    SCOPED_TRACE("C " + std::to_string(channels) + ", strides " + std::to_string(r) + ", " +
                 std::to_string(q) + ", " + std::to_string(p));
    const int64_t last = (size - 1) * p + (size - 1) * q + (channels - 1) * r;
    std::string message;
    const aclnnStatus status = backward_phase1_with_input_grad(
        {1, channels, size, size}, {last + 1, channels > 1 ? r : last + 1, q, p}, last + 1,
        &message);
    EXPECT_EQ(status, expected) << message;
    if (expected != ACLNN_SUCCESS) {
      EXPECT_EQ(message.rfind("GS-LIMIT-02: ", 0), 0u) << message;
    }
  }
}

}  // namespace
