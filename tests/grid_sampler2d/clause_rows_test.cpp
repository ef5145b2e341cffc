// Hand-written GS-* rows (tests/support/clause_rows.h). Seed 002's 返回值 table gives 161001 for a
// null pointer and 161002 for every other rejected argument; the boundaries come from 002's
// 参数说明 and 约束说明 (4-D tensors, FLOAT/FLOAT16/BFLOAT16/DOUBLE, the same dtype as input, modes
// 0 and 1, the shape relations) and the spec's decisions (ND with the NCHW/NHWC aliases, a null
// outputMask computing nothing, outputs that must not overlap, cann-latest's bicubic and
// reflection of errata E-GS-5), typed here as numbers.
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "families/grid_sampler2d/entries.h"
#include "grid_sampler2d/clauses.h"
#include "harness/backend.h"
#include "support/clause_rows.h"

namespace {

using gradconf::SpecProfile;
using gradconf::grid_sampler2d::Problem;
using gradconf::props::Call;
using gradconf::testing::ClauseRow;
using gradconf::testing::Edit;
using gradconf::testing::kAsGiven;
using gradconf::testing::kBackwardEntry;
using gradconf::testing::kBothEntries;
using gradconf::testing::kForwardEntry;
using gradconf::testing::kInvalidStatus;
using gradconf::testing::kNullStatus;
using gradconf::testing::rows_of;
using gradconf::testing::Side;

constexpr SpecProfile kSeed = SpecProfile::kSeed, kExtended = SpecProfile::kExtended,
                      kCannLatest = SpecProfile::kCannLatest;
const std::vector<SpecProfile> kEveryProfile = {kSeed, kExtended, kCannLatest};

// N 2, C 3, input 4 x 5, output 3 x 2; bilinear, zeros, alignCorners false, FLOAT.
constexpr int64_t kN = 2, kC = 3, kHin = 4, kWin = 5, kHout = 3, kWout = 2;
const gradconf::testing::ProblemCalls<Problem> kCalls = {
    [](const Problem& p) { return gradconf::props::gs::make_call(p); }, nullptr,
    [](gradconf::Direction direction, SpecProfile profile) {
      Problem p;
      p.entry = direction, p.profile = profile;
      p.n = kN, p.c = kC, p.in_h = kHin, p.in_w = kWin, p.out_h = kHout, p.out_w = kWout;
      return p;
    }};

// The roles and the entries that have them.
struct RoleOf {
  const char* name;
  unsigned entries;
};
constexpr RoleOf kRoles[] = {{"gradOutput", kBackwardEntry}, {"input", kBothEntries},
                             {"grid", kBothEntries},         {"out", kForwardEntry},
                             {"inputGrad", kBackwardEntry},  {"gridGrad", kBackwardEntry}};

// Sets `role`'s dims (and its gradient's, which follows it), dropping values and layout.
void set_dims(Call& c, const std::string& role, std::vector<int64_t> dims) {
  for (auto& t : c.tensors) {
    if (t.name == role || t.name == role + "Grad") {
      t.dims = dims;
      t.layout = {};
      t.values.clear();
    }
  }
}

void set_dim(Call& c, const std::string& role, size_t dim, int64_t size) {
  if (c.index_of(role) < 0) return;
  std::vector<int64_t> dims = c.tensor(role).dims;
  dims[dim] = size;
  set_dims(c, role, dims);
}

Side edit(unsigned entries, std::string what, gradconf::testing::CallEdit apply) {
  return {entries, Edit{std::move(what), std::move(apply)}};
}

// One tensor at a time with `dtype` (or `format`), the others as given.
std::vector<Side> each_tensor_dtype(aclDataType dtype) {
  std::vector<Side> sides;
  for (const RoleOf& role : kRoles) {
    const std::string name = role.name;
    sides.push_back(edit(role.entries, name + " " + std::string(gradconf::dtype_name(dtype)),
                         [name, dtype](Call& c) { c.tensor(name).dtype = dtype; }));
  }
  return sides;
}

std::vector<Side> each_tensor_format(aclFormat format) {
  std::vector<Side> sides;
  for (const RoleOf& role : kRoles) {
    const std::string name = role.name;
    sides.push_back(edit(role.entries, name + " format " + std::to_string(format),
                         [name, format](Call& c) { c.tensor(name).format = format; }));
  }
  return sides;
}

Side every_tensor_dtype(aclDataType dtype) {
  return edit(kBothEntries, "every tensor " + std::string(gradconf::dtype_name(dtype)),
              [dtype](Call& c) {
                for (auto& t : c.tensors) t.dtype = dtype;
              });
}

Side every_tensor_format(aclFormat format) {
  return edit(kBothEntries, "every tensor format " + std::to_string(format), [format](Call& c) {
    for (auto& t : c.tensors) t.format = format;
  });
}

Side attr(const char* name, int64_t value) {
  return edit(kBothEntries, std::string(name) + " " + std::to_string(value),
              [name, value](Call& c) { c.attr(name) = value; });
}

Side mask(std::vector<bool> value) {
  std::string what = "outputMask {";
  for (bool b : value) what += b ? "1" : "0";
  return edit(kBackwardEntry, what + "}", [value](Call& c) { c.attr("outputMask") = value; });
}

// An output's dim `dim` with stride 0 (a broadcast view: every element overlaps).
Side zero_stride(unsigned entries, const char* role, int dim) {
  return edit(entries, std::string(role) + " stride 0 on dim " + std::to_string(dim),
              [role, dim](Call& c) { c.tensor(role).layout.broadcast = 1u << dim; });
}

template <typename... Rows>
std::vector<ClauseRow> concat(Rows... parts) {
  std::vector<ClauseRow> all;
  (all.insert(all.end(), parts.begin(), parts.end()), ...);
  return all;
}

std::vector<ClauseRow> null_rows() {
  std::vector<ClauseRow> rows;
  for (const RoleOf& role : kRoles) {
    rows.push_back(
        gradconf::testing::null_tensor_row("GS-NULL-01", kEveryProfile, role.entries, role.name));
  }
  return concat(
      rows,
      rows_of("GS-NULL-02", kEveryProfile, kNullStatus, {{kBothEntries, kAsGiven}},
              {edit(kBothEntries, "workspaceSize = nullptr",
                    [](Call& c) { c.null_workspace_size = true; }),
               edit(kBothEntries, "executor = nullptr", [](Call& c) { c.null_executor = true; })}));
}

std::vector<ClauseRow> type_rows() {
  std::vector<Side> every_wrong_dtype = each_tensor_dtype(ACL_INT32);
  for (aclDataType dtype : {ACL_INT32, ACL_INT64, ACL_BOOL, ACL_UINT8, ACL_INT8, ACL_INT16}) {
    every_wrong_dtype.push_back(every_tensor_dtype(dtype));
  }
  std::vector<Side> wrong_format = each_tensor_format(ACL_FORMAT_NC1HWC0);
  wrong_format.push_back(edit(kBothEntries, "input FRACTAL_Z",
                              [](Call& c) { c.tensor("input").format = ACL_FORMAT_FRACTAL_Z; }));
  return concat(rows_of("GS-MASK-02", kEveryProfile, kInvalidStatus,
                        {mask({true, true}), mask({true, false}), mask({false, true})},
                        {mask({}), mask({true}), mask({true, true, true})}),
                rows_of("GS-DTYPE-01", kEveryProfile, kInvalidStatus,
                        {every_tensor_dtype(ACL_FLOAT), every_tensor_dtype(ACL_FLOAT16),
                         every_tensor_dtype(ACL_BF16), every_tensor_dtype(ACL_DOUBLE)},
                        every_wrong_dtype),
                rows_of("GS-DTYPE-02", kEveryProfile, kInvalidStatus, {{kBothEntries, kAsGiven}},
                        each_tensor_dtype(ACL_FLOAT16)),
                rows_of("GS-FORMAT-01", kEveryProfile, kInvalidStatus,
                        {every_tensor_format(ACL_FORMAT_NCHW), every_tensor_format(ACL_FORMAT_NHWC),
                         edit(kBothEntries, "input NCHW, grid NHWC, the rest ND",
                              [](Call& c) {
                                c.tensor("input").format = ACL_FORMAT_NCHW;
                                c.tensor("grid").format = ACL_FORMAT_NHWC;
                              })},
                        wrong_format));
}

// Seed and extended: modes 0 and 1; cann-latest adds 2 (bicubic, reflection; E-GS-5).
std::vector<ClauseRow> attr_rows() {
  const std::vector<SpecProfile> seed_modes = {kSeed, kExtended}, cann = {kCannLatest};
  const char* const interp = "interpolationMode";
  const char* const padding = "paddingMode";
  return concat(
      rows_of("GS-ATTR-01", seed_modes, kInvalidStatus, {attr(interp, 0), attr(interp, 1)},
              {attr(interp, 2), attr(interp, -1), attr(interp, INT64_MAX)}),
      rows_of("GS-ATTR-01", cann, kInvalidStatus, {attr(interp, 2), attr(interp, 0)},
              {attr(interp, 3), attr(interp, -1)}),
      rows_of("GS-ATTR-02", seed_modes, kInvalidStatus, {attr(padding, 1), attr(padding, 0)},
              {attr(padding, 2), attr(padding, -1), attr(padding, INT64_MIN)}),
      rows_of("GS-ATTR-02", cann, kInvalidStatus, {attr(padding, 2), attr(padding, 1)},
              {attr(padding, 3), attr(padding, -1)}));
}

Side with_dims(unsigned entries, const char* role, std::vector<int64_t> dims, std::string what) {
  return edit(entries, std::string(role) + " " + what,
              [role, dims](Call& c) { set_dims(c, role, dims); });
}

Side dim_of(unsigned entries, const char* role, size_t dim, int64_t size) {
  return edit(entries,
              std::string(role) + ".dim" + std::to_string(dim) + " = " + std::to_string(size),
              [role, dim, size](Call& c) { set_dim(c, role, dim, size); });
}

std::vector<ClauseRow> rank_and_shape_rows() {
  const std::vector<Side> as_given = {{kBothEntries, kAsGiven}};
  std::vector<Side> output_shapes;
  for (const char* role : {"inputGrad", "out", "gridGrad"}) {
    const unsigned entries = std::string(role) == "out" ? kForwardEntry : kBackwardEntry;
    for (size_t d = 0; d < 4; ++d) {
      output_shapes.push_back(edit(entries, std::string(role) + ".dim" + std::to_string(d) + " + 1",
                                   [role, d](Call& c) { ++c.tensor(role).dims[d]; }));
    }
  }
  output_shapes.push_back(edit(kBackwardEntry, "inputGrad 5-D", [](Call& c) {
    c.tensor("inputGrad").dims = {kN, kC, kHin, kWin, 1};
  }));
  return concat(
      rows_of("GS-RANK-01", kEveryProfile, kInvalidStatus, as_given,
              {with_dims(kBackwardEntry, "gradOutput", {kN, kC, kHout * kWout}, "3-D"),
               with_dims(kForwardEntry, "out", {kN, kC, kHout, kWout, 1}, "5-D"),
               with_dims(kBothEntries, "input", {kN, kC, kHin * kWin}, "3-D"),
               with_dims(kBothEntries, "grid", {kN, kHout, kWout, 2, 1}, "5-D")}),
      rows_of("GS-SHAPE-01", kEveryProfile, kInvalidStatus, as_given,
              {dim_of(kBothEntries, "grid", 0, kN - 1), dim_of(kBothEntries, "grid", 0, kN + 1),
               dim_of(kBackwardEntry, "gradOutput", 0, kN + 1)}),
      rows_of("GS-SHAPE-02", kEveryProfile, kInvalidStatus, as_given,
              {dim_of(kBackwardEntry, "gradOutput", 1, kC - 1),
               dim_of(kBackwardEntry, "gradOutput", 1, kC + 1)}),
      rows_of("GS-SHAPE-03", kEveryProfile, kInvalidStatus, as_given,
              {dim_of(kBackwardEntry, "gradOutput", 2, kHout + 1),
               dim_of(kBackwardEntry, "gradOutput", 3, kWout - 1),
               dim_of(kBackwardEntry, "grid", 1, kHout + 1)}),
      rows_of("GS-SHAPE-04", kEveryProfile, kInvalidStatus, as_given,
              {dim_of(kBothEntries, "grid", 3, 3), dim_of(kBothEntries, "grid", 3, 1)}),
      rows_of("GS-SHAPE-05", kEveryProfile, kInvalidStatus,
              {dim_of(kBothEntries, "input", 2, 1), dim_of(kBothEntries, "input", 3, 1)},
              {dim_of(kBothEntries, "input", 2, 0), dim_of(kBothEntries, "input", 3, 0)}),
      rows_of("GS-SHAPE-06", kEveryProfile, kInvalidStatus, as_given, output_shapes));
}

// Outputs must not overlap (spec README §3): a zero stride on a dim of size > 1 overlaps; on a
// size-1 dim, padded and permuted views do not.
std::vector<ClauseRow> overlap_rows() {
  const Side batch_of_one = edit(kBothEntries, "N = 1, every output with stride 0 on N",
                                 kCalls.remade([](Problem& p) { p.n = 1; },
                                               [](Call& c) {
                                                 for (auto& t : c.tensors) {
                                                   if (t.output) t.layout.broadcast = 1u;
                                                 }
                                               }));
  const Side padded =
      edit(kBothEntries, "every output padded and permuted (xy or C outermost)", [](Call& c) {
        for (auto& t : c.tensors) {
          if (t.output) t.layout = {{3, 0, 1, 2}, 2, 1, 0};
        }
      });
  return rows_of(
      "GS-OUT-01", kEveryProfile, kInvalidStatus, {batch_of_one, padded},
      {zero_stride(kBackwardEntry, "inputGrad", 1), zero_stride(kBackwardEntry, "inputGrad", 3),
       zero_stride(kBackwardEntry, "gridGrad", 3), zero_stride(kForwardEntry, "out", 2)});
}

const std::vector<ClauseRow>& rows() {
  static const std::vector<ClauseRow> all =
      concat(null_rows(), type_rows(), attr_rows(), rank_and_shape_rows(), overlap_rows());
  return all;
}

TEST(GsClauseRows, rows_cover_the_clause_table) {
  // GS-MASK-01 succeeds by computing nothing (its own test below); GS-LIMIT-01/02 need views far
  // beyond any memory: validation_test.cpp declares them over tiny storage.
  gradconf::testing::expect_rows_cover(
      gradconf::testing::clause_ids(gradconf::grid_sampler2d::clause_table(),
                                    {"GS-MASK-01", "GS-LIMIT-01", "GS-LIMIT-02"}),
      rows());
}

TEST(GsClauseRows, just_valid_runs_and_just_invalid_returns_the_documented_status) {
  gradconf::testing::expect_rows_hold(kCalls.base(), rows());
}

// GS-MASK-01 (Decision E-GS-7): a null outputMask, and a mask of two false, succeed with no
// workspace and write no byte of either gradient.
TEST(GsClauseRows, mask_01_null_or_all_false_mask_computes_nothing) {
  for (SpecProfile profile : kEveryProfile) {
    for (const auto& value : {gradconf::props::AttrValue{},
                              gradconf::props::AttrValue{std::vector<bool>{false, false}}}) {
      Call call = kCalls.base()(gradconf::Direction::kBackward, profile);
      call.attr("outputMask") = value;
      const auto outcome = gradconf::props::run(call, {}, gradconf::props::Backend::linked());
      SCOPED_TRACE(gradconf::props::summarize(call));
      EXPECT_EQ(outcome.status, ACLNN_SUCCESS) << outcome.message;
      if (call.attr("outputMask").index() == 0) {
        EXPECT_EQ(outcome.workspace_size, 0u);
      }
      EXPECT_TRUE(outcome.view_untouched[static_cast<size_t>(call.index_of("inputGrad"))]);
      EXPECT_TRUE(outcome.view_untouched[static_cast<size_t>(call.index_of("gridGrad"))]);
      EXPECT_TRUE(outcome.outside_views_untouched) << outcome.violations;
    }
  }
}

// The spec's own example message: what was expected and what was got, with the shape.
TEST(GsClauseRows, message_names_expected_and_got) {
  Call call = kCalls.base()(gradconf::Direction::kBackward, kSeed);
  set_dim(call, "grid", 3, 3);
  const auto outcome = gradconf::props::run(call, {}, gradconf::props::Backend::linked());
  EXPECT_EQ(outcome.status, kInvalidStatus);
  EXPECT_NE(outcome.message.find("expected grid.dim(3) == 2"), std::string::npos)
      << outcome.message;
  EXPECT_NE(outcome.message.find("[2, 3, 2, 3]"), std::string::npos) << outcome.message;
}

}  // namespace
