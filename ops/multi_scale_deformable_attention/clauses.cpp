// Each check returns nullopt when its clause holds, else "expected ..., but got ...". Checks may
// assume that every earlier clause held (shape checks run on non-null tensors of the right rank).
#include "multi_scale_deformable_attention/clauses.h"

#include <array>
#include <string>

#include "core/checked_math.h"
#include "core/clause_checks.h"
#include "core/dtype.h"
#include "core/parallel.h"
#include "core/status.h"
#include "multi_scale_deformable_attention/params.h"
#include "multi_scale_deformable_attention/workspace.h"

namespace gradconf::msda {
namespace {
using Check = std::optional<std::string>;
constexpr ProfileSet kEvery = kAllProfiles;

bool backward(const CallArgs& a) { return a.direction == Direction::kBackward; }

std::vector<NamedTensor> inputs(const CallArgs& a) {
  return named_tensors(kForwardParams, kBackwardParams, a, TensorParams::kInputs);
}
std::vector<NamedTensor> outputs(const CallArgs& a) {
  return named_tensors(kForwardParams, kBackwardParams, a, TensorParams::kOutputs);
}

// The float tensors, in prototype order (every tensor but the two index tensors).
std::vector<NamedTensor> float_tensors(const CallArgs& a) {
  std::vector<NamedTensor> t;
  for (const auto& n : inputs(a)) {
    if (n.tensor != a.spatial_shape && n.tensor != a.level_start_index) t.push_back(n);
  }
  for (const auto& n : outputs(a)) t.push_back(n);
  return t;
}

std::string dims_of(const aclTensor& t) {
  return format_dims(t.view_dims.data(), t.view_dims.size());
}

Check null_tensors(const CallArgs& a) {
  for (const auto& [name, t] : inputs(a)) {
    if (t == nullptr) return std::string("expected ") + name + " to be non-null, but got nullptr";
  }
  for (const auto& [name, t] : outputs(a)) {
    if (t == nullptr) return std::string("expected ") + name + " to be non-null, but got nullptr";
  }
  if (a.workspace_size == nullptr) return "expected workspaceSize to be non-null, but got nullptr";
  if (a.executor == nullptr) return "expected executor to be non-null, but got nullptr";
  return std::nullopt;
}

// The clause's two profile rows differ only in whether DOUBLE is a float dtype.
template <bool kDouble>
Check dtype_supported(const CallArgs& a) {
  for (const auto& [name, t] : float_tensors(a)) {
    const bool allowed = t->dtype == ACL_FLOAT || t->dtype == ACL_FLOAT16 || t->dtype == ACL_BF16 ||
                         (kDouble && t->dtype == ACL_DOUBLE);
    if (!allowed) {
      return std::string("expected ") + name + " of dtype FLOAT, FLOAT16 or BFLOAT16" +
             (kDouble ? " or DOUBLE" : "") + ", but got " + std::string(dtype_name(t->dtype));
    }
  }
  for (const auto& [name, t] : {NamedTensor{"spatialShape", a.spatial_shape},
                                NamedTensor{"levelStartIndex", a.level_start_index}}) {
    if (t->dtype != ACL_INT32 && t->dtype != ACL_INT64) {
      return std::string("expected ") + name + " of dtype INT32 or INT64, but got " +
             std::string(dtype_name(t->dtype));
    }
  }
  return std::nullopt;
}

Check dtype_same(const CallArgs& a) {
  for (const auto& [name, t] : float_tensors(a)) {
    if (t->dtype != a.value->dtype) {
      return std::string("expected ") + name + " of value's dtype " +
             std::string(dtype_name(a.value->dtype)) + ", but got " +
             std::string(dtype_name(t->dtype));
    }
  }
  return std::nullopt;
}

Check formats(const CallArgs& a) {
  return check_format_nd(named_tensors(kForwardParams, kBackwardParams, a, TensorParams::kAll));
}

// The rank and shape clauses have two profile rows: gradOutput (and the forward's output) is
// (bs, Q, heads, C) in seed and extended, (bs, Q, heads * C) in cann-latest (errata E-MSDA-4).
template <bool kFlatOutput>
Check ranks(const CallArgs& a) {
  struct Expected {
    const char* name;
    const aclTensor* t;
    int64_t rank;
    int last;  // required size of the last dim, or -1
  };
  std::vector<Expected> expected = {{"value", a.value, 4, -1},
                                    {"spatialShape", a.spatial_shape, 2, 2},
                                    {"levelStartIndex", a.level_start_index, 1, -1},
                                    {"location", a.location, 6, 2},
                                    {"attnWeight", a.attn_weight, 5, -1}};
  if (backward(a)) expected.push_back({"gradOutput", a.grad_output, kFlatOutput ? 3 : 4, -1});
  for (const auto& [name, t, r, last] : expected) {
    if (rank(*t) != r) {
      return std::string("expected ") + name + " to be " + std::to_string(r) + "-D, but got " +
             describe(*t);
    }
    if (last >= 0 && t->view_dims.back() != last) {
      return std::string("expected ") + name + ".dim(" + std::to_string(r - 1) +
             ") == 2, but got " + describe(*t);
    }
  }
  return std::nullopt;
}

template <bool kFlatOutput>
Check shapes(const CallArgs& a) {
  const Sizes s = sizes_of(a);
  const DimVector loc = a.location->view_dims, attn = a.attn_weight->view_dims;
  auto differ = [](const std::string& what, const std::string& got) {
    return std::string("expected ") + what + ", but got " + got;
  };
  if (a.spatial_shape->view_dims[0] != s.levels) {
    return differ("spatialShape.dim(0) == levelStartIndex.dim(0)",
                  dims_of(*a.spatial_shape) + " and " + dims_of(*a.level_start_index));
  }
  const std::vector<int64_t> want_loc = {s.batch, s.queries, s.heads, s.levels, s.points, 2};
  if (loc[0] != s.batch || loc[2] != s.heads || loc[3] != s.levels) {
    return differ("location (bs, Q, heads, L, P, 2) to match value (bs, ., heads, .) and L",
                  "value " + dims_of(*a.value) + ", location " + dims_of(*a.location) + ", L " +
                      std::to_string(s.levels));
  }
  const std::vector<int64_t> want_attn(want_loc.begin(), want_loc.end() - 1);
  if (attn != want_attn) {
    return differ("attnWeight of sizes " + format_dims(want_attn.data(), want_attn.size()),
                  dims_of(*a.attn_weight));
  }
  // heads * C may overflow where bs is 0 (value holds no element): then nothing can match it.
  const std::optional<int64_t> flat = checked_mul(s.heads, s.channels);
  if (kFlatOutput && !flat) {
    return differ(
        "gradOutput/output of sizes (bs, Q, heads * C)",
        "heads " + std::to_string(s.heads) + " x C " + std::to_string(s.channels) + " past int64");
  }
  const std::vector<int64_t> want_out =
      kFlatOutput ? std::vector<int64_t>{s.batch, s.queries, flat.value_or(0)}
                  : std::vector<int64_t>{s.batch, s.queries, s.heads, s.channels};
  if (backward(a) && a.grad_output->view_dims != want_out) {
    return differ("gradOutput of sizes " + format_dims(want_out.data(), want_out.size()),
                  dims_of(*a.grad_output));
  }
  auto same = [&](const char* name, const aclTensor* t, std::span<const int64_t> want) -> Check {
    if (std::ranges::equal(t->view_dims, want)) return std::nullopt;
    return differ(
        (std::string(name) + " of sizes " + format_dims(want.data(), want.size())).c_str(),
        dims_of(*t));
  };
  if (!backward(a)) return same("output", a.output, want_out);
  if (auto c = same("gradValue", a.grad_value, a.value->view_dims)) return c;
  if (auto c = same("gradLocation", a.grad_location, loc)) return c;
  return same("gradAttnWeight", a.grad_attn_weight, attn);
}

// Two profile rows: seed and cann-latest keep CANN's tiling limit C % 8 == 0; extended accepts
// any C up to 256 (spec Changes 2026-11-26).
template <bool kAnyChannels>
Check channels(const CallArgs& a) {
  const int64_t c = a.value->view_dims[3];
  if ((kAnyChannels || c % 8 == 0) && c <= 256) return std::nullopt;
  if (kAnyChannels)
    return "expected channels (value.dim(3)) at most 256, but got " + std::to_string(c);
  return "expected channels (value.dim(3)) a multiple of 8 and at most 256, but got " +
         std::to_string(c);
}

Check queries(const CallArgs& a) {
  const int64_t q = a.location->view_dims[1];
  if (q < 500000) return std::nullopt;
  return "expected num_queries (location.dim(1)) < 500000, but got " + std::to_string(q);
}

Check limits_000(const CallArgs& a) {
  const Sizes s = sizes_of(a);
  if (s.levels <= 16 && s.heads <= 16 && s.points <= 16) return std::nullopt;
  return "expected num_levels, num_heads and num_points at most 16 (seed 000), but got L " +
         std::to_string(s.levels) + ", heads " + std::to_string(s.heads) + ", P " +
         std::to_string(s.points);
}

Check limits_001(const CallArgs& a) {
  const Sizes s = sizes_of(a);
  // C <= 256, P <= 16 and L < 10 hold by now, so the sum cannot overflow.
  if (s.levels < 10 && s.batch <= 32 && s.channels + s.points + s.levels <= 512)
    return std::nullopt;
  return "expected num_levels < 10, bs <= 32 and C + P + L <= 512 (seed 001), but got L " +
         std::to_string(s.levels) + ", bs " + std::to_string(s.batch) + ", C + P + L " +
         std::to_string(s.channels + s.points + s.levels);
}

Check level_geometry(const CallArgs& a) {
  const int64_t keys = a.value->view_dims[1];
  const std::vector<Level> levels = read_levels(a);
  for (size_t l = 0; l < levels.size(); ++l) {
    const auto [h, w, start] = levels[l];
    const std::string which = "level " + std::to_string(l);
    if (h < 1 || w < 1) {
      return "expected " + which + " of size at least 1 x 1, but got " + std::to_string(h) + " x " +
             std::to_string(w);
    }
    if (start < 0)
      return "expected " + which + " to start at a key >= 0, but got " + std::to_string(start);
    const auto area = checked_mul(h, w);
    const auto end = area ? checked_add(start, *area) : std::nullopt;
    if (!end || *end > keys) {
      return "expected " + which + " (start " + std::to_string(start) + ", " + std::to_string(h) +
             " x " + std::to_string(w) + ") inside num_keys " + std::to_string(keys) +
             ", but it ends past it";
    }
  }
  return std::nullopt;
}

Check outputs_disjoint(const CallArgs& a) {
  for (const auto& [name, t] : outputs(a)) {
    const Overlap o = overlap_of(*t);
    if (o == Overlap::kOverlapping) {
      return std::string("expected ") + name + " to address each element once, but got strides " +
             format_dims(t->strides.data(), t->strides.size()) + " for sizes " + dims_of(*t);
    }
    if (o == Overlap::kUndecided) {
      return std::string("expected ") + name +
             " to be nested, to interleave at most two axes, or to span fewer than 2^28 "
             "elements, but got strides " +
             format_dims(t->strides.data(), t->strides.size()) + " for sizes " + dims_of(*t);
    }
  }
  return std::nullopt;
}

Check workspace_representable(const CallArgs& a) {
  if (!backward(a)) return std::nullopt;
  const Sizes s = sizes_of(a);
  const int workers = scatter_workers(s, num_threads());
  // Sized for the widest compute type (double), so every dtype's plan fits what this accepts.
  if (backward_workspace(s, workers, sizeof(double))) return std::nullopt;
  return "expected a workspace of at most 2^62 bytes, but got " + std::to_string(workers) +
         " slice blocks of " + std::to_string(s.keys) + " keys x " + std::to_string(s.channels) +
         " channels (value and gradValue sums)";
}

constexpr const char* k000 = "000 aclnnMultiScaleDeformableAttentionGradGetWorkspaceSize";
constexpr const char* k001 = "001 aclnnMultiScaleDeformableAttentionGradGetWorkspaceSize";
constexpr const char* kBoth = "000 and 001 约束说明";

constexpr ProfileSet kSeedProfiles =
    profiles(SpecProfile::kSeed) | profiles(SpecProfile::kCannLatest);
constexpr ProfileSet kExtendedProfile = profiles(SpecProfile::kExtended);
constexpr ProfileSet kSeedAndExtended = profiles(SpecProfile::kSeed) | kExtendedProfile;
constexpr ProfileSet kCannLatest = profiles(SpecProfile::kCannLatest);
constexpr const char* kE_MSDA_4 = "errata E-MSDA-4 (CANN docs since 2026-01, API since 2026-08)";

const std::array<Clause<CallArgs>, 17> kClauses = {{
    {"MSDA-NULL-01", kEvery, ACLNN_ERR_PARAM_NULLPTR, kBoth,
     "an input, an output, workspaceSize or executor is null", null_tensors},
    {"MSDA-DTYPE-01", kSeedProfiles, ACLNN_ERR_PARAM_INVALID, kBoth,
     "a float tensor not FLOAT/FLOAT16/BFLOAT16; spatialShape or levelStartIndex not INT32/INT64",
     dtype_supported<false>},
    {"MSDA-DTYPE-01", kExtendedProfile, ACLNN_ERR_PARAM_INVALID, "spec README §4 (extended)",
     "a float tensor not FLOAT/FLOAT16/BFLOAT16/DOUBLE; spatialShape or levelStartIndex not "
     "INT32/INT64",
     dtype_supported<true>},
    {"MSDA-DTYPE-02", kEvery, ACLNN_ERR_PARAM_INVALID, kBoth,
     "float tensors do not all share one dtype", dtype_same},
    {"MSDA-FORMAT-01", kEvery, ACLNN_ERR_PARAM_INVALID, "spec README §3 (Decision)",
     "a tensor's format is not ND (NCHW/NHWC accepted as aliases on 4-D tensors)", formats},
    {"MSDA-RANK-01", kSeedAndExtended, ACLNN_ERR_PARAM_INVALID, kBoth,
     "ranks: value 4, spatialShape 2 (dim1 == 2), levelStartIndex 1, location 6 (dim5 == 2), "
     "attnWeight 5, gradOutput 4",
     ranks<false>},
    {"MSDA-RANK-01", kCannLatest, ACLNN_ERR_PARAM_INVALID, kE_MSDA_4,
     "ranks: value 4, spatialShape 2 (dim1 == 2), levelStartIndex 1, location 6 (dim5 == 2), "
     "attnWeight 5, gradOutput 3",
     ranks<true>},
    {"MSDA-SHAPE-01", kSeedAndExtended, ACLNN_ERR_PARAM_INVALID, kBoth,
     "bs, num_heads, L, Q, P, C disagree between tensors; an output's shape differs from its "
     "input's",
     shapes<false>},
    {"MSDA-SHAPE-01", kCannLatest, ACLNN_ERR_PARAM_INVALID, kE_MSDA_4,
     "bs, num_heads, L, Q, P, C disagree between tensors (gradOutput and output (bs, Q, heads * "
     "C)); an output's shape differs from its input's",
     shapes<true>},
    {"MSDA-LIMIT-01", kSeedProfiles, ACLNN_ERR_PARAM_INVALID, kBoth, "C % 8 != 0 or C > 256",
     channels<false>},
    {"MSDA-LIMIT-01", kExtendedProfile, ACLNN_ERR_PARAM_INVALID,
     "spec README Changes 2026-11-26 (extended: C % 8 is a device tiling limit)", "C > 256",
     channels<true>},
    {"MSDA-LIMIT-02", kEvery, ACLNN_ERR_PARAM_INVALID, kBoth, "Q >= 500000", queries},
    {"MSDA-LIMIT-03", kEvery, ACLNN_ERR_PARAM_INVALID, k000, "L > 16 or num_heads > 16 or P > 16",
     limits_000},
    // errata E-MSDA-3: current CANN code enforces 000's set only.
    {"MSDA-LIMIT-04", kSeedAndExtended, ACLNN_ERR_PARAM_INVALID, k001,
     "L >= 10, bs > 32, or C + P + L > 512", limits_001},
    {"MSDA-DATA-01", kEvery, ACLNN_ERR_PARAM_INVALID, "Decision E-MSDA-5 (memory safety)",
     "some H_l or W_l < 1, a levelStartIndex < 0, or start_l + H_l*W_l > num_keys", level_geometry},
    {"MSDA-OUT-01", kEvery, ACLNN_ERR_PARAM_INVALID, "spec README §3",
     "an output view has overlapping elements", outputs_disjoint},
    {"MSDA-LIMIT-05", kEvery, ACLNN_ERR_PARAM_INVALID,
     "spec README §3 (Decision, documented limit)", "the backward's workspace exceeds 2^62 bytes",
     workspace_representable},
}};
}  // namespace

Sizes sizes_of(const CallArgs& a) {
  Sizes s;
  s.batch = a.value->view_dims[0];
  s.keys = a.value->view_dims[1];
  s.heads = a.value->view_dims[2];
  s.channels = a.value->view_dims[3];
  s.levels = a.level_start_index->view_dims[0];
  s.queries = a.location->view_dims[1];
  s.points = a.location->view_dims[4];
  return s;
}

std::vector<Level> read_levels(const CallArgs& a) {
  auto element = [](const aclTensor& t, int64_t offset) -> int64_t {
    if (t.dtype == ACL_INT32) return static_cast<const int32_t*>(t.data)[t.offset + offset];
    return static_cast<const int64_t*>(t.data)[t.offset + offset];
  };
  const aclTensor& shape = *a.spatial_shape;
  const aclTensor& start = *a.level_start_index;
  std::vector<Level> levels(static_cast<size_t>(std::min(shape.view_dims[0], start.view_dims[0])));
  for (size_t l = 0; l < levels.size(); ++l) {
    const auto i = static_cast<int64_t>(l);
    levels[l].height = element(shape, i * shape.strides[0]);
    levels[l].width = element(shape, i * shape.strides[0] + shape.strides[1]);
    levels[l].start = element(start, i * start.strides[0]);
  }
  return levels;
}

std::span<const Clause<CallArgs>> clause_table() { return kClauses; }

}  // namespace gradconf::msda
