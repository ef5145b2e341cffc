// Each check returns nullopt when its clause holds, else "expected ..., but got ...". Checks may
// assume that every earlier clause held.
#include "nsa_compress/clauses.h"

#include <array>
#include <string>

#include "core/checked_math.h"
#include "core/clause_checks.h"
#include "core/status.h"
#include "nsa_compress/params.h"
#include "nsa_compress/workspace.h"

namespace gradconf::nc {
namespace {
using Check = std::optional<std::string>;

bool backward(const CallArgs& a) { return a.direction == Direction::kBackward; }

std::vector<NamedTensor> tensors(const CallArgs& a) {
  return named_tensors(kForwardParams, kBackwardParams, a, TensorParams::kAll);
}
std::vector<NamedTensor> outputs(const CallArgs& a) {
  return named_tensors(kForwardParams, kBackwardParams, a, TensorParams::kOutputs);
}

// The (T_cmp, N, D) tensor of the entry: outputGrad or output.
NamedTensor compressed(const CallArgs& a) {
  return backward(a) ? NamedTensor{"outputGrad", a.output_grad} : NamedTensor{"output", a.output};
}

std::span<const int64_t> prefix_of(const CallArgs& a) {
  return a.act_seq_len ? std::span<const int64_t>(a.act_seq_len->values)
                       : std::span<const int64_t>();
}

Check null_tensors(const CallArgs& a) {
  return check_non_null(tensors(a), a.workspace_size, a.executor);
}

template <bool kExtended>
Check dtypes(const CallArgs& a) {
  const auto all = tensors(a);
  const Check supported = kExtended
                              ? check_dtype_in(all, {ACL_FLOAT16, ACL_BF16, ACL_FLOAT, ACL_DOUBLE})
                              : check_dtype_in(all, {ACL_FLOAT16, ACL_BF16});
  return supported ? supported : check_same_dtype(all);
}

Check formats(const CallArgs& a) { return check_format_nd(tensors(a)); }

Check ranks(const CallArgs& a) {
  std::vector<NamedTensor> three = {compressed(a), {"input", a.input}};
  std::vector<NamedTensor> two = {{"weight", a.weight}};
  if (backward(a)) {
    three.push_back({"inputGrad", a.input_grad});
    two.push_back({"weightGrad", a.weight_grad});
  }
  if (auto c = check_rank(three, 3)) return c;
  return check_rank(two, 2);
}

template <bool kSixteen>
Check block_and_stride(const CallArgs& a) {
  for (const auto& [name, v] :
       {std::pair{"compressBlockSize", a.block_size}, std::pair{"compressStride", a.stride}}) {
    if (v <= 0 || (kSixteen && v % 16 != 0)) {
      return std::string("expected ") + name +
             (kSixteen ? " a positive multiple of 16" : " positive") + ", but got " +
             std::to_string(v);
    }
  }
  return std::nullopt;
}

template <bool kStrict>
Check block_exceeds_stride(const CallArgs& a) {
  if (kStrict ? a.block_size > a.stride : a.block_size >= a.stride) return std::nullopt;
  return std::string("expected compressBlockSize ") + (kStrict ? ">" : ">=") +
         " compressStride, but got " + std::to_string(a.block_size) + " and " +
         std::to_string(a.stride);
}

Check seq_len_type(const CallArgs& a) {
  if (a.act_seq_len_type == 0) return std::nullopt;
  return "expected actSeqLenType 0 (prefix sums), but got " + std::to_string(a.act_seq_len_type);
}

Check layout(const CallArgs& a) { return check_string_attr("layout", a.layout, "TND", true); }

Check sequences(const CallArgs& a) {
  if (a.act_seq_len == nullptr) return std::nullopt;
  return check_prefix_sums(prefix_of(a), a.input->view_dims[0], "actSeqLen");
}

Check shapes(const CallArgs& a) {
  const Sizes s = sizes_of(a);
  const std::array<int64_t, 2> weight = {s.block, s.heads};
  if (auto c = check_dims({"weight", a.weight}, weight)) return c;
  const std::array<int64_t, 3> rows = {s.compressed, s.heads, s.dim};
  if (auto c = check_dims(compressed(a), rows)) return c;
  if (!backward(a)) return std::nullopt;
  if (auto c = check_dims({"inputGrad", a.input_grad}, a.input->view_dims)) return c;
  return check_dims({"weightGrad", a.weight_grad}, a.weight->view_dims);
}

Check not_empty(const CallArgs& a) {
  for (const NamedTensor& t :
       {NamedTensor{"input", a.input}, NamedTensor{"weight", a.weight}, compressed(a)}) {
    if (numel(*t.tensor) == 0) {
      return std::string("expected ") + t.name + " to be non-empty (" +
             (t.tensor == compressed(a).tensor ? "no sequence holds a whole window; " : "") +
             "不支持空Tensor), but got " + describe(*t.tensor);
    }
  }
  return std::nullopt;
}

Check forward_limits(const CallArgs& a) {
  if (backward(a)) return std::nullopt;
  const Sizes s = sizes_of(a);
  if (s.heads <= 128 && s.dim % 16 == 0 && s.dim <= 256 && s.block <= 128) return std::nullopt;
  return "expected N <= 128, D a multiple of 16 and <= 256, compressBlockSize <= 128, but got N " +
         std::to_string(s.heads) + ", D " + std::to_string(s.dim) + ", compressBlockSize " +
         std::to_string(s.block);
}

Check outputs_disjoint(const CallArgs& a) { return check_disjoint(outputs(a)); }

Check workspace_representable(const CallArgs& a) {
  if (!backward(a)) return std::nullopt;
  if (backward_workspace(sizes_of(a), sizeof(double))) return std::nullopt;
  const Sizes s = sizes_of(a);
  return "expected a workspace of at most 2^62 bytes, but got T_cmp " +
         std::to_string(s.compressed) + " x N " + std::to_string(s.heads) + " x D " +
         std::to_string(s.dim) + " plus " + std::to_string(kMaxChunks) + " partials of l " +
         std::to_string(s.block) + " x N";
}

constexpr const char* kGrad = "004 aclnnNsaCompressGradGetWorkspaceSize";
constexpr const char* kGradLimits = "004 约束说明";
constexpr ProfileSet kEvery = kAllProfiles;
constexpr ProfileSet kSeedProfiles =
    profiles(SpecProfile::kSeed) | profiles(SpecProfile::kCannLatest);
constexpr ProfileSet kSeedOnly = profiles(SpecProfile::kSeed);
constexpr ProfileSet kExtendedProfile = profiles(SpecProfile::kExtended);

const std::array<Clause<CallArgs>, 17> kClauses = {{
    {"NC-NULL-01", kEvery, ACLNN_ERR_PARAM_NULLPTR, kGrad,
     "a tensor, workspaceSize or executor is null", null_tensors},
    {"NC-DTYPE-01", kSeedProfiles, ACLNN_ERR_PARAM_INVALID, kGrad,
     "dtype not FLOAT16/BFLOAT16, or tensors' dtypes differ", dtypes<false>},
    {"NC-DTYPE-01", kExtendedProfile, ACLNN_ERR_PARAM_INVALID, "spec README §4 (extended)",
     "dtype not FLOAT16/BFLOAT16/FLOAT/DOUBLE, or tensors' dtypes differ", dtypes<true>},
    {"NC-FORMAT-01", kEvery, ACLNN_ERR_PARAM_INVALID, "spec README §3 (Decision)",
     "a tensor's format is not ND (NCHW/NHWC accepted as aliases on 4-D tensors)", formats},
    {"NC-RANK-01", kEvery, ACLNN_ERR_PARAM_INVALID, kGrad,
     "input, outputGrad (output), inputGrad not 3-D; weight, weightGrad not 2-D", ranks},
    {"NC-ATTR-01", kSeedProfiles, ACLNN_ERR_PARAM_INVALID, kGradLimits,
     "compressBlockSize or compressStride not a positive multiple of 16", block_and_stride<true>},
    {"NC-ATTR-01", kExtendedProfile, ACLNN_ERR_PARAM_INVALID, "spec nsa_compress.md (extended)",
     "compressBlockSize or compressStride not positive", block_and_stride<false>},
    {"NC-ATTR-02", kSeedOnly, ACLNN_ERR_PARAM_INVALID, kGradLimits,
     "compressBlockSize <= compressStride", block_exceeds_stride<true>},
    {"NC-ATTR-02", profiles(SpecProfile::kCannLatest), ACLNN_ERR_PARAM_INVALID,
     "errata E-NC-1 (forward doc, CANN kernel)", "compressBlockSize < compressStride",
     block_exceeds_stride<false>},
    {"NC-ATTR-03", kEvery, ACLNN_ERR_PARAM_INVALID, kGrad, "actSeqLenType != 0", seq_len_type},
    {"NC-ATTR-04", kEvery, ACLNN_ERR_PARAM_INVALID, kGrad, "layout not null and not \"TND\"",
     layout},
    {"NC-SEQ-01", kEvery, ACLNN_ERR_PARAM_INVALID, "004 and errata E-NC-2 (prefix sums)",
     "actSeqLen empty, negative, decreasing, or last value != T", sequences},
    {"NC-SHAPE-01", kEvery, ACLNN_ERR_PARAM_INVALID, kGrad,
     "weight != (l, N); outputGrad/output != (T_cmp, N, D); inputGrad != input shape; weightGrad "
     "!= weight shape",
     shapes},
    {"NC-EMPTY-01", kSeedProfiles, ACLNN_ERR_PARAM_INVALID, kGradLimits,
     "input, weight or outputGrad (output) has a zero dimension (不支持空Tensor)", not_empty},
    {"NC-LIMIT-01", kSeedProfiles, ACLNN_ERR_PARAM_INVALID, "CANN aclnnNsaCompress doc (forward)",
     "forward: N > 128, D % 16 != 0, D > 256 or compressBlockSize > 128", forward_limits},
    {"NC-OUT-01", kEvery, ACLNN_ERR_PARAM_INVALID, "spec README §3",
     "an output view has overlapping elements", outputs_disjoint},
    {"NC-LIMIT-02", kEvery, ACLNN_ERR_PARAM_INVALID, "spec README §3 (Decision, documented limit)",
     "the backward's workspace exceeds 2^62 bytes", workspace_representable},
}};
}  // namespace

int64_t windows_of(int64_t length, int64_t block, int64_t stride) {
  return length >= block ? (length - block) / stride + 1 : 0;
}

std::vector<Batch> batches_of(const CallArgs& a) {
  const int64_t tokens = a.input->view_dims[0];
  const std::vector<SequenceRange> ranges =
      a.act_seq_len ? sequence_ranges(prefix_of(a))
                    : std::vector<SequenceRange>{SequenceRange{0, tokens}};
  std::vector<Batch> batches;
  batches.reserve(ranges.size());
  int64_t first = 0;
  for (const SequenceRange& r : ranges) {
    const int64_t windows = windows_of(r.length(), a.block_size, a.stride);
    batches.push_back({r, windows, first});
    first += windows;  // <= the token count: cannot overflow
  }
  return batches;
}

Sizes sizes_of(const CallArgs& a) {
  Sizes s;
  s.tokens = a.input->view_dims[0];
  s.heads = a.input->view_dims[1];
  s.dim = a.input->view_dims[2];
  s.block = a.block_size;
  s.stride = a.stride;
  for (const Batch& b : batches_of(a)) s.compressed += b.windows;
  return s;
}

std::span<const Clause<CallArgs>> clause_table() { return kClauses; }

}  // namespace gradconf::nc
