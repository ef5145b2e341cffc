// One breaker per NC-* clause a small problem can reach, in table order. Each edits a call made
// from a valid `seed` problem so that its clause is the first to fire (just-invalid), or makes the
// same kind of edit on the allowed side (just-valid). Edits keep every other relation: a size
// changed everywhere it appears, T_cmp recomputed when l, d or actSeqLen change. Values of resized
// tensors are dropped (the harness then fills zeros).
#include <array>
#include <string>
#include <vector>

#include "families/nsa_compress/entries.h"
#include "families/nsa_compress/gen.h"

namespace gradconf::props::nc {
namespace {

constexpr std::array<const char*, 6> kTensors = {"input",  "weight",    "outputGrad",
                                                 "output", "inputGrad", "weightGrad"};

// New l and d, with weight, weightGrad and the (T_cmp, N, D) tensors resized to match.
void rewindow(Call& call, int64_t block, int64_t stride) {
  call.attr("compressBlockSize") = block;
  call.attr("compressStride") = stride;
  for (TensorSpec* t : present_tensors(call, std::array{"weight", "weightGrad"}))
    resize_dim(*t, 0, block);
  const int64_t rows = compressed_rows(call, block, stride);
  for (TensorSpec* t : present_tensors(call, std::array{"output", "outputGrad"}))
    resize_dim(*t, 0, rows);
}

// New token count: one batch of `tokens`, actSeqLen = [tokens].
void one_batch(Call& call, int64_t tokens) {
  call.attr("actSeqLenOptional") = std::vector<int64_t>{tokens};
  for (TensorSpec* t : present_tensors(call, std::array{"input", "inputGrad"}))
    resize_dim(*t, 0, tokens);
  rewindow(call, call.attr_int("compressBlockSize"), call.attr_int("compressStride"));
}

// N or D (dim 1 or 2 of the TND tensors; N is also dim 1 of weight and weightGrad).
void resize_everywhere(Call& call, size_t dim, int64_t value) {
  for (TensorSpec* t : present_tensors(call, kTensors)) {
    const bool weight = t->dims.size() == 2;
    if (!weight) resize_dim(*t, dim, value);
    if (weight && dim == 1) resize_dim(*t, 1, value);
  }
}

// NC-NULL-01. Just-valid: actSeqLen or layout null where the call allows it.
void break_null(Call& call, uint64_t choice, bool just_valid) {
  if (just_valid) {
    if (choice % 2 == 0) {
      call.attr("layoutOptional") = std::monostate{};
    } else {
      one_batch(call, call.tensor("input").dims[0]);
      call.attr("actSeqLenOptional") = std::monostate{};
    }
    return;
  }
  null_required_argument(call, choice);
}

// NC-DTYPE-01: one tensor in FLOAT, INT32 or the other half type; all in FLOAT. Just-valid: all
// in the other half type.
void break_dtype(Call& call, uint64_t choice, bool just_valid) {
  const aclDataType other = call.tensor("input").dtype == ACL_FLOAT16 ? ACL_BF16 : ACL_FLOAT16;
  if (just_valid || choice % 4 == 3) {
    for (TensorSpec* t : present_tensors(call, kTensors)) t->dtype = just_valid ? other : ACL_FLOAT;
    return;
  }
  static constexpr std::array<aclDataType, 3> kWrong = {ACL_FLOAT, ACL_INT32, ACL_FLOAT16};
  const aclDataType wrong = choice % 4 == 2 ? other : kWrong[choice % 4];
  pick_tensor(call, kTensors, choice / 4).dtype = wrong;
}

// NC-RANK-01: a tensor with one more (unit) dim, or one fewer. Just-valid: the call as it is.
void break_rank(Call& call, uint64_t choice, bool just_valid) {
  if (just_valid) return;
  TensorSpec& t = pick_tensor(call, kTensors, choice / 2);
  if (choice % 2 == 0) {
    add_unit_dim(t);
    return;
  }
  t.dims.pop_back();
  reset_after_reshape(t);
}

// NC-ATTR-01: l or d off a multiple of 16, zero or negative. Just-valid: d = 16 (l > d holds).
void break_block_stride(Call& call, uint64_t choice, bool just_valid) {
  const int64_t l = call.attr_int("compressBlockSize"), d = call.attr_int("compressStride");
  if (just_valid) {
    rewindow(call, l, 16);
    return;
  }
  switch (choice % 5) {
    case 0:
      call.attr("compressBlockSize") = l + 1;
      break;
    case 1:
      call.attr("compressStride") = d - 1;
      break;
    case 2:
      call.attr("compressBlockSize") = int64_t{0};
      break;
    case 3:
      call.attr("compressStride") = int64_t{-16};
      break;
    default:
      call.attr("compressBlockSize") = l + 8;
      break;
  }
}

// NC-ATTR-02 (seed: l > d): l == d or l < d. Just-valid: l = d + 16. cann-latest (l >= d,
// errata E-NC-1): l = d - 16 (d raised by 16 first) vs l == d.
void break_block_above_stride(Call& call, uint64_t choice, bool just_valid) {
  const int64_t d = call.attr_int("compressStride");
  if (call.profile == SpecProfile::kCannLatest) {
    if (just_valid) {
      rewindow(call, d, d);
    } else {
      rewindow(call, d, d + 16);
    }
    return;
  }
  if (just_valid) {
    rewindow(call, d + 16, d);
  } else {
    call.attr("compressBlockSize") = choice % 2 ? d : d - 16 > 0 ? d - 16 : d;
  }
}

// NC-ATTR-03: actSeqLenType 1, -1 or huge. Just-valid: 0.
const AttrChoices kSeqLenTypes = {
    "actSeqLenType", {int64_t{1}, int64_t{-1}, int64_t{1} << 62}, {int64_t{0}}};

// NC-ATTR-04: layouts other than "TND". Just-valid: "TND" or null.
const AttrChoices kLayouts = {"layoutOptional",
                              {std::string("BSND"), std::string(""), std::string("tnd"),
                               std::string("TND "), std::string(300, 'T')},
                              {std::string("TND"), std::monostate{}}};

// NC-SEQ-01: actSeqLen empty, negative, decreasing, last != T. Just-valid: a leading 0 (an empty
// first batch).
void break_sequences(Call& call, uint64_t choice, bool just_valid) {
  std::vector<int64_t> prefix = prefix_sums_of(call);
  const int64_t tokens = call.tensor("input").dims[0];
  if (just_valid) {
    prefix.insert(prefix.begin(), 0);
  } else {
    switch (choice % 5) {
      case 0:
        prefix.clear();
        break;
      case 1:
        prefix.insert(prefix.begin(), -1);
        break;
      case 2:  // decreasing: a value below its predecessor, the last still T
        prefix.insert(prefix.end() - 1, tokens + 1);
        break;
      case 3:
        prefix.back() = tokens + 1;
        break;
      default:
        prefix.push_back(tokens - 1);
        break;
    }
  }
  call.attr("actSeqLenOptional") = prefix;
}

// NC-SHAPE-01: one tensor's dim off by one (not input's T: NC-SEQ-01 sees that first). Just-valid:
// N - 1 everywhere (N + 1 from 1: N stays within NC-LIMIT-01).
void break_shape(Call& call, uint64_t choice, bool just_valid) {
  if (just_valid) {
    const int64_t heads = call.tensor("input").dims[1];
    resize_everywhere(call, 1, heads > 1 ? heads - 1 : 2);
    return;
  }
  TensorSpec& t = pick_tensor(call, kTensors, choice / 3);
  size_t dim = (choice % 3) % t.dims.size();
  if (t.name == "input" && dim == 0) dim = 1;
  resize_dim(t, dim, t.dims[dim] + 1);
}

// NC-EMPTY-01: D = 0 or N = 0 everywhere, or one batch shorter than l (T_cmp = 0). Just-valid:
// one batch of exactly l tokens (T_cmp = 1).
void break_empty(Call& call, uint64_t choice, bool just_valid) {
  const int64_t l = call.attr_int("compressBlockSize");
  if (just_valid) {
    one_batch(call, l);
    return;
  }
  switch (choice % 3) {
    case 0:
      resize_everywhere(call, 2, 0);
      break;
    case 1:
      resize_everywhere(call, 1, 0);
      break;
    default:
      one_batch(call, l - 1);
      break;
  }
}

// NC-LIMIT-01 (forward doc): N 129, D 24 or 272, l 144. Just-valid: N 128, D 256 or l 128.
void break_forward_limits(Call& call, uint64_t choice, bool just_valid) {
  switch (choice % 3) {
    case 0:
      one_batch(call, call.attr_int("compressBlockSize"));
      resize_everywhere(call, 1, just_valid ? 128 : 129);
      break;
    case 1:
      resize_everywhere(call, 2, just_valid ? 256 : (choice % 2 ? 24 : 272));
      break;
    default:
      rewindow(call, just_valid ? 128 : 144, call.attr_int("compressStride"));
      one_batch(call, just_valid ? 128 : 144);
      break;
  }
}

const std::array<ClauseBreaker, 13> kBreakers = {{
    {"NC-NULL-01", Directions::kBoth, break_null},
    {"NC-DTYPE-01", Directions::kBoth, break_dtype},
    {"NC-FORMAT-01", Directions::kBoth, break_format_nd},
    {"NC-RANK-01", Directions::kBoth, break_rank},
    {"NC-ATTR-01", Directions::kBoth, break_block_stride},
    {"NC-ATTR-02", Directions::kBoth, break_block_above_stride},
    {"NC-ATTR-03", Directions::kBoth, break_attr_value<kSeqLenTypes>},
    {"NC-ATTR-04", Directions::kBoth, break_attr_value<kLayouts>},
    {"NC-SEQ-01", Directions::kBoth, break_sequences},
    {"NC-SHAPE-01", Directions::kBoth, break_shape},
    {"NC-EMPTY-01", Directions::kBoth, break_empty},
    {"NC-LIMIT-01", Directions::kForward, break_forward_limits},
    {"NC-OUT-01", Directions::kBoth, break_outputs_overlap},
}};

}  // namespace

std::span<const ClauseBreaker> clause_breakers() { return kBreakers; }

}  // namespace gradconf::props::nc
