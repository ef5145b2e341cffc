// One breaker per MSDA-* clause a small problem can reach, in table order. Each edits a call made
// from a valid problem so that its clause is the first to fire (just-invalid), or makes the same
// kind of edit on the allowed side (just-valid). Edits that change a size everywhere it appears
// keep every shape relation; values of resized tensors are dropped (the harness then fills zeros),
// except the level tables, which the data clause reads.
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "families/multi_scale_deformable_attention/entries.h"
#include "families/multi_scale_deformable_attention/gen.h"

namespace gradconf::props::msda {
namespace {

constexpr std::array<const char*, 8> kFloatRoles = {"value",        "location",      "attnWeight",
                                                    "gradOutput",   "output",        "gradValue",
                                                    "gradLocation", "gradAttnWeight"};

bool flat_output(const Call& call) { return call.profile == SpecProfile::kCannLatest; }

// cann-latest's gradOutput and output are (bs, Q, heads * C) (errata E-MSDA-4): their dim 2
// follows value's heads and C.
void resize_flat_outputs(Call& call) {
  const auto& value = call.tensor("value").dims;
  resize_sites(call, {{"gradOutput", 2}, {"output", 2}}, value[2] * value[3]);
}

void resize_heads(Call& call, int64_t heads) {
  resize_sites(call,
               {{"value", 2},
                {"location", 2},
                {"attnWeight", 2},
                {"gradValue", 2},
                {"gradLocation", 2},
                {"gradAttnWeight", 2}},
               heads);
  if (flat_output(call)) {
    resize_flat_outputs(call);
  } else {
    resize_sites(call, {{"gradOutput", 2}, {"output", 2}}, heads);
  }
}

void resize_batch(Call& call, int64_t batch) { resize_sites(call, batch_sites(), batch); }

void resize_channels(Call& call, int64_t channels) {
  resize_sites(call, {{"value", 3}, {"gradValue", 3}}, channels);
  if (flat_output(call)) {
    resize_flat_outputs(call);
  } else {
    resize_sites(call, {{"gradOutput", 3}, {"output", 3}}, channels);
  }
}

// MSDA-NULL-01. Just-valid: the call as it is.
void break_null(Call& call, uint64_t choice, bool just_valid) {
  if (!just_valid) null_required_argument(call, choice);
}

// MSDA-DTYPE-01: a float tensor as INT32, or an index tensor as FLOAT. Just-valid: the index
// tensor in the other integer width.
void break_dtype(Call& call, uint64_t choice, bool just_valid) {
  static constexpr std::array<const char*, 2> kIndex = {"spatialShape", "levelStartIndex"};
  if (just_valid || choice % 2 == 0) {
    TensorSpec& t = pick_tensor(call, kIndex, choice / 2);
    t.dtype = just_valid ? (t.dtype == ACL_INT32 ? ACL_INT64 : ACL_INT32) : ACL_FLOAT;
    return;
  }
  pick_tensor(call, kFloatRoles, choice / 2).dtype = ACL_INT32;
}

// MSDA-DTYPE-02: one float tensor in another float dtype. Just-valid: all of them in it.
void break_dtype_same(Call& call, uint64_t choice, bool just_valid) {
  const aclDataType current = call.tensor("value").dtype;
  static constexpr std::array<aclDataType, 3> kOthers = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  aclDataType other = kOthers[choice % 3];
  if (other == current) other = kOthers[(choice % 3 + 1) % 3];  // choice + 1 may wrap to 0
  if (just_valid) {
    for (TensorSpec* t : present_tensors(call, kFloatRoles)) t->dtype = other;
    return;
  }
  pick_tensor(call, kFloatRoles, choice / 3).dtype = other;
}

// MSDA-RANK-01: an input with one more (unit) dim. Just-valid: the call as it is.
void break_rank(Call& call, uint64_t choice, bool just_valid) {
  if (just_valid) return;
  static constexpr std::array<const char*, 6> kInputs = {
      "value", "spatialShape", "levelStartIndex", "location", "attnWeight", "gradOutput"};
  add_unit_dim(pick_tensor(call, kInputs, choice));
}

// MSDA-SHAPE-01: heads changed in one tensor. Just-valid: changed everywhere.
void break_shape(Call& call, uint64_t choice, bool just_valid) {
  const int64_t heads = call.tensor("value").dims[2] + 1;
  if (just_valid) {
    resize_heads(call, heads);
    return;
  }
  static constexpr std::array<const char*, 7> kHeaded = {
      "location",  "attnWeight",   "gradOutput",    "output",
      "gradValue", "gradLocation", "gradAttnWeight"};
  TensorSpec& t = pick_tensor(call, kHeaded, choice);
  t.dims[2] = heads;
  reset_after_reshape(t);
}

// MSDA-LIMIT-01: C one past a multiple of 8, or 264. Just-valid: C + 8 (or 256). Extended (any
// C up to 256): 257 or 264 vs C + 1 or 256.
void break_channels(Call& call, uint64_t choice, bool just_valid) {
  const int64_t c = call.tensor("value").dims[3];
  if (call.profile == SpecProfile::kExtended) {
    if (just_valid) {
      resize_channels(call, choice % 2 ? 256 : c + 1);
    } else {
      resize_channels(call, choice % 2 ? 264 : 257);
    }
    return;
  }
  if (just_valid) {
    resize_channels(call, choice % 2 ? 256 : c + 8);
  } else {
    resize_channels(call, choice % 2 ? 264 : c + 1);
  }
}

// MSDA-LIMIT-03 (seed 000): 17 heads. Just-valid: 16.
void break_limits_000(Call& call, uint64_t, bool just_valid) {
  resize_heads(call, just_valid ? 16 : 17);
}

// MSDA-LIMIT-04 (seed 001): batch 33. Just-valid: 32.
void break_limits_001(Call& call, uint64_t, bool just_valid) {
  resize_batch(call, just_valid ? 32 : 33);
}

// MSDA-DATA-01: a level that starts below 0, ends past num_keys, or has a side 0. Just-valid:
// the last level moved to end exactly at num_keys.
void break_data(Call& call, uint64_t choice, bool just_valid) {
  auto& shape = call.tensor("spatialShape").values;
  auto& start = call.tensor("levelStartIndex").values;
  const int64_t keys = call.tensor("value").dims[1];
  const size_t levels = start.size();
  const size_t l = just_valid ? levels - 1 : choice % levels;
  const double area = shape[2 * l] * shape[2 * l + 1];
  if (just_valid) {
    start[l] = static_cast<double>(keys) - area;
    return;
  }
  switch (choice / levels % 3) {
    case 0:
      start[l] = -1;
      break;
    case 1:
      start[l] = static_cast<double>(keys) - area + 1;
      break;
    default:
      shape[2 * l + (choice & 1)] = 0;
      break;
  }
}

// MSDA-OUT-01: the shared overlap breaker. Extended's C = 1 can leave the forward's output a
// single element, which no stride can make overlap: C becomes 2 first.
void break_overlap(Call& call, uint64_t choice, bool just_valid) {
  if (!just_valid && call.index_of("output") >= 0) {
    const auto& dims = call.tensor("output").dims;
    if (std::all_of(dims.begin(), dims.end(), [](int64_t d) { return d == 1; }))
      resize_channels(call, 2);
  }
  break_outputs_overlap(call, choice, just_valid);
}

const std::array<ClauseBreaker, 11> kBreakers = {{
    {"MSDA-NULL-01", Directions::kBoth, break_null},
    {"MSDA-DTYPE-01", Directions::kBoth, break_dtype},
    {"MSDA-DTYPE-02", Directions::kBoth, break_dtype_same},
    {"MSDA-FORMAT-01", Directions::kBoth, break_format_nd},
    {"MSDA-RANK-01", Directions::kBoth, break_rank},
    {"MSDA-SHAPE-01", Directions::kBoth, break_shape},
    {"MSDA-LIMIT-01", Directions::kBoth, break_channels},
    {"MSDA-LIMIT-03", Directions::kBoth, break_limits_000},
    {"MSDA-LIMIT-04", Directions::kBoth, break_limits_001},
    {"MSDA-DATA-01", Directions::kBoth, break_data},
    {"MSDA-OUT-01", Directions::kBoth, break_overlap},
}};

}  // namespace

std::span<const ClauseBreaker> clause_breakers() { return kBreakers; }

}  // namespace gradconf::props::msda
