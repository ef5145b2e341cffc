// Hand-written MSDA-* rows (tests/support/clause_rows.h): statuses from seed 000's 返回值 section
// (161001: an input or output is a null pointer; 161002: dtype outside the supported set, dtypes
// that differ, or a 约束说明 constraint broken); boundaries from the spec's validation table and
// seeds 000/001's 约束说明, typed here as numbers.
#include <gtest/gtest.h>

#include "families/multi_scale_deformable_attention/entries.h"
#include "multi_scale_deformable_attention/clauses.h"
#include "support/clause_rows.h"

namespace {

using gradconf::Direction;
using gradconf::SpecProfile;
using gradconf::props::Call;
using gradconf::testing::ClauseRow;
using gradconf::testing::kAsGiven;
using gradconf::testing::kBackwardEntry;
using gradconf::testing::kBothEntries;
using gradconf::testing::kForwardEntry;
using gradconf::testing::kInvalidStatus;
using gradconf::testing::kNullStatus;
using gradconf::testing::null_tensor_row;
using gradconf::testing::resize;

constexpr SpecProfile kSeed = SpecProfile::kSeed, kExtended = SpecProfile::kExtended,
                      kCannLatest = SpecProfile::kCannLatest;

// bs 1, 8 keys (2 unaddressed + one 2x3 level), heads 1, C 8, Q 2, L 1, P 1, FLOAT.
Call base_call(Direction direction, SpecProfile profile) {
  gradconf::msda::Problem p;
  p.entry = direction;
  p.profile = profile;
  p.extra_keys = 2;
  Call call = gradconf::props::msda::make_call(p);
  call.profile = profile;
  return call;
}

const char* const kFloatTensors[] = {"value",  "location",  "attnWeight",   "gradOutput",
                                     "output", "gradValue", "gradLocation", "gradAttnWeight"};

void set_float_dtype(Call& c, aclDataType dtype) {
  for (const char* name : kFloatTensors) {
    if (c.index_of(name) >= 0) c.tensor(name).dtype = dtype;
  }
}

// gradOutput or output, whichever the entry has.
gradconf::props::TensorSpec& output_like(Call& c) {
  return c.index_of("gradOutput") >= 0 ? c.tensor("gradOutput") : c.tensor("output");
}

// cann-latest's (bs, Q, heads * C) output follows value's heads and C (errata E-MSDA-4).
void sync_output(Call& c) {
  const auto& value = c.tensor("value").dims;
  auto& out = output_like(c);
  if (out.dims.size() == 3) {
    resize(c, {{"gradOutput", 2}, {"output", 2}}, value[2] * value[3]);
  } else {
    resize(c, {{"gradOutput", 2}, {"output", 2}}, value[2]);
    resize(c, {{"gradOutput", 3}, {"output", 3}}, value[3]);
  }
}

void flatten_output(Call& c) {
  auto& out = output_like(c);
  out.dims = {out.dims[0], out.dims[1], out.dims[2] * out.dims[3]};
  out.layout = {};
}

void unflatten_output(Call& c) {
  const auto& value = c.tensor("value").dims;
  auto& out = output_like(c);
  out.dims = {out.dims[0], out.dims[1], value[2], value[3]};
  out.layout = {};
}

void set_channels(Call& c, int64_t channels) {
  resize(c, {{"value", 3}, {"gradValue", 3}}, channels);
  sync_output(c);
}

void set_heads(Call& c, int64_t heads) {
  resize(c,
         {{"value", 2},
          {"location", 2},
          {"attnWeight", 2},
          {"gradValue", 2},
          {"gradLocation", 2},
          {"gradAttnWeight", 2}},
         heads);
  sync_output(c);  // gradOutput and output, 3-D or 4-D
}

void set_points(Call& c, int64_t points) {
  resize(c, {{"location", 4}, {"attnWeight", 4}, {"gradLocation", 4}, {"gradAttnWeight", 4}},
         points);
}

void set_queries(Call& c, int64_t queries) {
  resize(c,
         {{"location", 1},
          {"attnWeight", 1},
          {"gradOutput", 1},
          {"output", 1},
          {"gradLocation", 1},
          {"gradAttnWeight", 1}},
         queries);
}

void set_batch(Call& c, int64_t batch) {
  resize(c,
         {{"value", 0},
          {"location", 0},
          {"attnWeight", 0},
          {"gradOutput", 0},
          {"output", 0},
          {"gradValue", 0},
          {"gradLocation", 0},
          {"gradAttnWeight", 0}},
         batch);
}

// L levels of 1x1 after the 2 unaddressed keys: value has 2 + L keys.
void set_levels(Call& c, int64_t levels) {
  resize(c, {{"location", 3}, {"attnWeight", 3}, {"gradLocation", 3}, {"gradAttnWeight", 3}},
         levels);
  resize(c, {{"spatialShape", 0}, {"levelStartIndex", 0}}, levels);
  resize(c, {{"value", 1}, {"gradValue", 1}}, 2 + levels);
  auto& shapes = c.tensor("spatialShape").values;
  auto& starts = c.tensor("levelStartIndex").values;
  for (int64_t l = 0; l < levels; ++l) {
    shapes.insert(shapes.end(), {1.0, 1.0});
    starts.push_back(static_cast<double>(2 + l));
  }
}

// The output of the entry (forward: output, backward: gradValue).
gradconf::props::TensorSpec& first_output(Call& c) {
  return c.index_of("output") >= 0 ? c.tensor("output") : c.tensor("gradValue");
}

const std::vector<ClauseRow>& rows() {
  static const std::vector<ClauseRow> r = {
      null_tensor_row("MSDA-NULL-01", {kSeed, kExtended, kCannLatest}, kBothEntries, "value"),
      {"MSDA-NULL-01",
       {kSeed, kExtended, kCannLatest},
       kBothEntries,
       kNullStatus,
       kAsGiven,
       {"workspaceSize = nullptr", [](Call& c) { c.null_workspace_size = true; }}},
      null_tensor_row("MSDA-NULL-01", {kSeed, kCannLatest}, kBackwardEntry, "gradAttnWeight"),
      {"MSDA-DTYPE-01",
       {kSeed, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       {"float tensors BFLOAT16, spatialShape INT32",
        [](Call& c) {
          set_float_dtype(c, ACL_BF16);
          c.tensor("spatialShape").dtype = ACL_INT32;
        }},
       {"float tensors DOUBLE", [](Call& c) { set_float_dtype(c, ACL_DOUBLE); }}},
      {"MSDA-DTYPE-01",
       {kExtended},
       kBothEntries,
       kInvalidStatus,
       {"float tensors DOUBLE", [](Call& c) { set_float_dtype(c, ACL_DOUBLE); }},
       {"levelStartIndex FLOAT", [](Call& c) { c.tensor("levelStartIndex").dtype = ACL_FLOAT; }}},
      {"MSDA-DTYPE-02",
       {kSeed, kExtended, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       {"float tensors FLOAT16", [](Call& c) { set_float_dtype(c, ACL_FLOAT16); }},
       {"attnWeight FLOAT16, the rest FLOAT",
        [](Call& c) { c.tensor("attnWeight").dtype = ACL_FLOAT16; }}},
      {"MSDA-FORMAT-01",
       {kSeed, kExtended, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       {"value NCHW (an alias of ND on a 4-D tensor)",
        [](Call& c) { c.tensor("value").format = ACL_FORMAT_NCHW; }},
       {"location NCHW (6-D)", [](Call& c) { c.tensor("location").format = ACL_FORMAT_NCHW; }}},
      {"MSDA-RANK-01",
       {kSeed, kExtended, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       kAsGiven,
       {"attnWeight 6-D (a leading unit dim)",
        [](Call& c) {
          auto& t = c.tensor("attnWeight");
          t.dims.insert(t.dims.begin(), 1);
        }}},
      {"MSDA-RANK-01",
       {kSeed, kExtended, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       {"spatialShape (1, 2)", [](Call&) {}},
       {"spatialShape (1, 3)",
        [](Call& c) {
          resize(c, {{"spatialShape", 1}}, 3);
        }}},
      {"MSDA-SHAPE-01",
       {kSeed, kExtended, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       {"num_heads 2 in every tensor", [](Call& c) { set_heads(c, 2); }},
       {"num_heads 2 in location only",
        [](Call& c) {
          resize(c, {{"location", 2}}, 2);
        }}},
      {"MSDA-SHAPE-01",
       {kSeed, kExtended, kCannLatest},
       kBackwardEntry,
       kInvalidStatus,
       kAsGiven,
       {"gradValue with one more key row",
        [](Call& c) {
          resize(c, {{"gradValue", 1}}, 9);
        }}},
      // C % 8 == 0 is a seed (and cann-latest) constraint only (spec Changes 2026-11-26:
      // `extended` accepts any C up to 256).
      {"MSDA-LIMIT-01",
       {kSeed, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       {"C = 16", [](Call& c) { set_channels(c, 16); }},
       {"C = 12", [](Call& c) { set_channels(c, 12); }}},
      {"MSDA-LIMIT-01",
       {kExtended},
       kBothEntries,
       kInvalidStatus,
       {"C = 71 (Deformable-DETR's test shape)", [](Call& c) { set_channels(c, 71); }},
       {"C = 257", [](Call& c) { set_channels(c, 257); }}},
      {"MSDA-LIMIT-01",
       {kSeed, kExtended, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       {"C = 256", [](Call& c) { set_channels(c, 256); }},
       {"C = 264", [](Call& c) { set_channels(c, 264); }}},
      {"MSDA-LIMIT-02",
       {kSeed, kExtended, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       {"Q = 499999", [](Call& c) { set_queries(c, 499999); }},
       {"Q = 500000", [](Call& c) { set_queries(c, 500000); }}},
      {"MSDA-LIMIT-03",
       {kSeed, kExtended, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       {"P = 16", [](Call& c) { set_points(c, 16); }},
       {"P = 17", [](Call& c) { set_points(c, 17); }}},
      {"MSDA-LIMIT-03",
       {kSeed, kExtended, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       {"num_heads = 16", [](Call& c) { set_heads(c, 16); }},
       {"num_heads = 17", [](Call& c) { set_heads(c, 17); }}},
      {"MSDA-LIMIT-04",
       {kSeed, kExtended},
       kBothEntries,
       kInvalidStatus,
       {"bs = 32", [](Call& c) { set_batch(c, 32); }},
       {"bs = 33", [](Call& c) { set_batch(c, 33); }}},
      {"MSDA-LIMIT-04",
       {kSeed, kExtended},
       kBothEntries,
       kInvalidStatus,
       {"L = 9 levels", [](Call& c) { set_levels(c, 9); }},
       {"L = 10 levels", [](Call& c) { set_levels(c, 10); }}},
      // errata E-MSDA-3: cann-latest enforces seed 000's set only, so 16 levels with bs 33 (both
      // past seed 001's limits) are valid there.
      {"MSDA-LIMIT-03",
       {kCannLatest},
       kBothEntries,
       kInvalidStatus,
       {"L = 16 levels and bs = 33",
        [](Call& c) {
          set_levels(c, 16);
          set_batch(c, 33);
        }},
       {"L = 17 levels", [](Call& c) { set_levels(c, 17); }}},
      // errata E-MSDA-4: gradOutput (and output) are 4-D in seed and extended, (bs, Q, heads * C)
      // in cann-latest.
      {"MSDA-RANK-01",
       {kSeed, kExtended},
       kBackwardEntry,
       kInvalidStatus,
       kAsGiven,
       {"gradOutput (1, 2, 8): heads and C merged", [](Call& c) { flatten_output(c); }}},
      {"MSDA-RANK-01",
       {kCannLatest},
       kBackwardEntry,
       kInvalidStatus,
       kAsGiven,
       {"gradOutput (1, 2, 1, 8): heads and C apart", [](Call& c) { unflatten_output(c); }}},
      {"MSDA-SHAPE-01",
       {kCannLatest},
       kBothEntries,
       kInvalidStatus,
       {"num_heads 2: gradOutput and output (1, 2, 16)", [](Call& c) { set_heads(c, 2); }},
       {"gradOutput and output (1, 2, 9): not heads * C",
        [](Call& c) {
          resize(c, {{"gradOutput", 2}, {"output", 2}}, 9);
        }}},
      {"MSDA-SHAPE-01",
       {kSeed, kExtended},
       kForwardEntry,
       kInvalidStatus,
       kAsGiven,
       {"output (1, 2, 8): heads and C merged", [](Call& c) { flatten_output(c); }}},
      {"MSDA-DATA-01",
       {kSeed, kExtended, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       {"level 0 starts at key 2 and ends at the last key (2 + 2*3 = 8 keys)", [](Call&) {}},
       {"level 0 starts at key 3 (3 + 6 > 8 keys)",
        [](Call& c) { c.tensor("levelStartIndex").values = {3}; }}},
      {"MSDA-DATA-01",
       {kSeed, kExtended, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       {"level 0 starts at key 0", [](Call& c) { c.tensor("levelStartIndex").values = {0}; }},
       {"level 0 starts at key -1", [](Call& c) { c.tensor("levelStartIndex").values = {-1}; }}},
      {"MSDA-OUT-01",
       {kSeed, kExtended, kCannLatest},
       kBothEntries,
       kInvalidStatus,
       {"the output's batch dim (size 1) with stride 0",
        [](Call& c) { first_output(c).layout.broadcast = 1u << 0; }},
       {"the output's channel dim (size 8) with stride 0",
        [](Call& c) {
          auto& out = first_output(c);
          out.layout.broadcast = 1u << (out.dims.size() - 1);
        }}},
  };
  return r;
}

TEST(MsdaClauseRows, rows_cover_the_clause_table) {
  // MSDA-LIMIT-05 (a workspace beyond 2^62 bytes) needs views far beyond any memory:
  // validation_test.cpp declares them over tiny storage and pins that boundary.
  gradconf::testing::expect_rows_cover(
      gradconf::testing::clause_ids(gradconf::msda::clause_table(), {"MSDA-LIMIT-05"}), rows());
}

TEST(MsdaClauseRows, just_valid_runs_and_just_invalid_returns_the_documented_status) {
  gradconf::testing::expect_rows_hold(base_call, rows());
}

}  // namespace
