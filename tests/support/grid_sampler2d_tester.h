// XNNPACK-style tester for GridSampler2D / GridSampler2DBackward: builder setters describe one
// problem (sizes, attributes, dtype, the layout of every tensor, values), Run() executes it through
// a Backend's C entry points on device tensors (support/device_tensor.h), Evaluate() compares every
// wanted output with the double reference run on the dtype-rounded inputs, using the project's one
// tolerance table and comparator, and Test() turns that into gtest failures.
//
//   GridSampler2DBackwardTester().batch(2).channels(3).input_size(4, 5).output_size(6, 7)
//       .dtype(ACL_FLOAT16).layout(Role::kInput, nhwc).Test();
#ifndef GRADCONF_TESTS_SUPPORT_GRID_SAMPLER2D_TESTER_H_
#define GRADCONF_TESTS_SUPPORT_GRID_SAMPLER2D_TESTER_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "aclnn/acl_meta.h"
#include "compare/compare.h"
#include "core/layout.h"
#include "grid_sampler2d/problem.h"
#include "harness/backend.h"

namespace gradconf::testing {

// The op's one Role (grid_sampler2d/problem.h), so testers, problems and layouts agree.
using grid_sampler2d::kRoleCount;
using grid_sampler2d::Role;
using grid_sampler2d::role_name;

enum class WorkspaceFill { kZero, kOnes, kNaN };

/// What one run produced. Output vectors are logical (row-major) values; *_bytes are the whole
/// storage images (view, gaps and canary tail) for bitwise comparisons.
struct RunResult {
  aclnnStatus phase1 = -1;
  aclnnStatus phase2 = -1;
  std::string message;
  uint64_t workspace_size = 0;
  std::vector<double> grad_output, input, grid;  ///< the inputs as the kernel saw them
  std::vector<double> input_grad, grid_grad, out;
  std::vector<uint8_t> input_grad_bytes, grid_grad_bytes, out_bytes;
  bool input_grad_untouched = false, grid_grad_untouched = false, out_untouched = false;
  bool gaps_intact = true;            ///< no byte outside any output view changed
  bool workspace_tail_intact = true;  ///< no byte beyond workspaceSize changed
};

struct OutputComparison {
  std::string name;
  gradconf::props::Comparison comparison;
};

struct Evaluation {
  RunResult run;
  std::vector<OutputComparison> comparisons;
  std::vector<std::string> problems;  ///< contract violations other than numerics
  bool any_comparison_failed() const;
  bool failed() const { return !problems.empty() || any_comparison_failed(); }
  std::string report() const;
};

class GridSampler2DBackwardTester {
 public:
  GridSampler2DBackwardTester();

  /// Runs the forward (input, grid -> out) instead of the backward.
  GridSampler2DBackwardTester& forward(bool on = true) {
    forward_ = on;
    return *this;
  }
  GridSampler2DBackwardTester& batch(int64_t n) {
    n_ = n;
    return *this;
  }
  GridSampler2DBackwardTester& channels(int64_t c) {
    c_ = c;
    return *this;
  }
  GridSampler2DBackwardTester& input_size(int64_t h, int64_t w) {
    in_h_ = h;
    in_w_ = w;
    return *this;
  }
  GridSampler2DBackwardTester& output_size(int64_t h, int64_t w) {
    out_h_ = h;
    out_w_ = w;
    return *this;
  }
  GridSampler2DBackwardTester& interpolation(int64_t mode) {
    interpolation_ = mode;
    return *this;
  }
  GridSampler2DBackwardTester& padding(int64_t mode) {
    padding_ = mode;
    return *this;
  }
  GridSampler2DBackwardTester& align_corners(bool on) {
    align_corners_ = on;
    return *this;
  }
  GridSampler2DBackwardTester& mask(bool input_grad, bool grid_grad) {
    mask_ = {input_grad, grid_grad};
    return *this;
  }
  /// outputMask = nullptr (GS-MASK-01: nothing is computed).
  GridSampler2DBackwardTester& null_mask() {
    mask_.reset();
    return *this;
  }
  GridSampler2DBackwardTester& dtype(aclDataType dtype) {
    dtype_ = dtype;
    return *this;
  }
  GridSampler2DBackwardTester& layout(Role role, const gradconf::LayoutSpec& spec) {
    layouts_[static_cast<int>(role)] = spec;
    return *this;
  }
  /// Grid values (n, out_h, out_w, 2), row-major; otherwise random in [-1.2, 1.2] (10% in [-2, 2]).
  GridSampler2DBackwardTester& grid_values(std::vector<double> v) {
    grid_ = std::move(v);
    return *this;
  }
  GridSampler2DBackwardTester& input_values(std::vector<double> v) {
    input_ = std::move(v);
    return *this;
  }
  GridSampler2DBackwardTester& grad_output_values(std::vector<double> v) {
    grad_output_ = std::move(v);
    return *this;
  }
  GridSampler2DBackwardTester& seed(uint64_t s) {
    seed_ = s;
    return *this;
  }
  /// Thread counts for phase 1 and phase 2 (0: leave the default).
  GridSampler2DBackwardTester& threads(int phase1, int phase2) {
    threads_phase1_ = phase1;
    threads_phase2_ = phase2;
    return *this;
  }
  GridSampler2DBackwardTester& threads(int n) { return threads(n, n); }
  GridSampler2DBackwardTester& workspace_fill(WorkspaceFill fill) {
    fill_ = fill;
    return *this;
  }
  /// Bytes by which the workspace pointer is offset from its (32-byte aligned) allocation.
  GridSampler2DBackwardTester& workspace_misalign(size_t bytes) {
    misalign_ = bytes;
    return *this;
  }
  GridSampler2DBackwardTester& backend(const gradconf::props::Backend& b) {
    backend_ = &b;
    return *this;
  }

  std::vector<int64_t> input_dims() const { return {n_, c_, in_h_, in_w_}; }
  std::vector<int64_t> grid_dims() const { return {n_, out_h_, out_w_, 2}; }
  std::vector<int64_t> output_dims() const { return {n_, c_, out_h_, out_w_}; }
  bool is_empty() const { return n_ == 0 || c_ == 0 || out_h_ == 0 || out_w_ == 0; }
  std::string describe() const;

  RunResult Run() const;
  Evaluation Evaluate() const;
  /// Evaluate() with every violation reported as a gtest failure.
  void Test() const;

 private:
  std::vector<double> values_or_random(const std::vector<double>& given, int64_t count,
                                       uint64_t stream, bool grid) const;

  bool forward_ = false;
  int64_t n_ = 1, c_ = 1, in_h_ = 4, in_w_ = 4, out_h_ = 4, out_w_ = 4;
  int64_t interpolation_ = 0, padding_ = 0;
  bool align_corners_ = false;
  std::optional<std::array<bool, 2>> mask_ = std::array<bool, 2>{true, true};
  aclDataType dtype_ = ACL_FLOAT;
  std::array<gradconf::LayoutSpec, kRoleCount> layouts_{};
  std::vector<double> grid_, input_, grad_output_;
  uint64_t seed_ = 1;
  int threads_phase1_ = 0, threads_phase2_ = 0;
  WorkspaceFill fill_ = WorkspaceFill::kZero;
  size_t misalign_ = 0;
  const gradconf::props::Backend* backend_;
};

}  // namespace gradconf::testing

#endif  // GRADCONF_TESTS_SUPPORT_GRID_SAMPLER2D_TESTER_H_
