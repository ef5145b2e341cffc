#include "families/nsa_compress/entries.h"

#include <cmath>

#include "aclnnop/aclnn_nsa_compress.h"
#include "aclnnop/aclnn_nsa_compress_grad.h"
#include "harness/backend.h"
#include "nsa_compress/clauses.h"
#include "nsa_compress/params.h"
#include "op/entry_params.h"
#include "op/problem_call.h"
#include "ops/nsa_compress/reference/reference.h"

namespace gradconf::props::nc {
namespace {
namespace op = gradconf::nc;

constexpr std::string_view kSeqAttr = "actSeqLenOptional";
const std::vector<aclDataType> kFloatDtypes = {ACL_FLOAT16, ACL_BF16, ACL_FLOAT, ACL_DOUBLE};

// Ranks, batching and dtypes of NsaCompress's tensors; outputs with their shape rules.
RoleSpec role(std::string_view name) {
  RoleSpec r;
  r.rank = name.starts_with("weight") ? 2 : 3;
  r.batching = name.starts_with("weight") ? Batching::kNone : Batching::kSequence;
  r.sequence_attr = r.batching == Batching::kSequence ? kSeqAttr : std::string_view{};
  r.dtypes = kFloatDtypes;
  const std::string_view shape_rule = name == "output"       ? "(T_cmp, input.N, input.D)"
                                      : name == "inputGrad"  ? "shape(input)"
                                      : name == "weightGrad" ? "shape(weight)"
                                                             : "";
  if (!shape_rule.empty()) {
    r.dtypes.clear();
    r.shape_rule = shape_rule;
    r.dtype_rule = "dtype(input)";
  }
  return r;
}

AttrSpec attr(std::string_view name) {
  if (name == kSeqAttr) return {.default_value = std::monostate{}, .nullable = true};
  if (name == "layoutOptional") return {.default_value = std::string("TND"), .nullable = true};
  if (name == "compressBlockSize") return {.default_value = int64_t{32}};
  if (name == "compressStride") return {.default_value = int64_t{16}};
  return {.default_value = int64_t{0}};  // actSeqLenType
}

OutputShape output_shape(const Call& call, std::string_view role) {
  const int i = call.index_of("input");
  const aclDataType dtype = i < 0 ? ACL_FLOAT16 : call.tensors[static_cast<size_t>(i)].dtype;
  if (role == "output") {
    const int64_t rows =
        compressed_rows(call, call.attr_int("compressBlockSize"), call.attr_int("compressStride"));
    return {{rows, call.dim_or("input", 1), call.dim_or("input", 2)}, dtype};
  }
  if (role == "inputGrad") return {call.dims_of("input"), dtype};
  return {call.dims_of("weight"), dtype};
}

}  // namespace

std::vector<int64_t> window_prefix(const std::vector<int64_t>& token_prefix, int64_t block,
                                   int64_t stride) {
  std::vector<int64_t> rows;
  int64_t sum = 0, previous = 0;
  for (int64_t end : token_prefix) {
    if (block > 0 && stride > 0) sum += gradconf::nc::windows_of(end - previous, block, stride);
    rows.push_back(sum);
    previous = end;
  }
  return rows;
}

int64_t compressed_rows(const Call& call, int64_t block, int64_t stride) {
  const std::vector<int64_t> rows = window_prefix(prefix_sums_of(call), block, stride);
  return rows.empty() ? 0 : rows.back();
}

std::vector<int64_t> prefix_sums_of(const Call& call) {
  if (const auto* list = std::get_if<std::vector<int64_t>>(&call.attr(kSeqAttr))) return *list;
  const int i = call.index_of("input");
  const auto& dims = i < 0 ? std::vector<int64_t>{} : call.tensors[static_cast<size_t>(i)].dims;
  return {dims.empty() ? 0 : dims[0]};
}

// Spec nsa_compress.md NC-EMPTY-01: `seed` rejects every zero dimension; `extended` accepts
// them (T_cmp = 0 zero-fills inputGrad and weightGrad): T (one empty sequence), N or D.
std::vector<EmptySize> empty_sizes() {
  constexpr ProfileSet kExtended = profiles(SpecProfile::kExtended);
  return {{"T",
           {{"input", 0}, {"inputGrad", 0}, {"outputGrad", 0}, {"output", 0}},
           kExtended,
           {{kSeqAttr, std::vector<int64_t>{0}}}},
          {"N",
           {{"input", 1},
            {"inputGrad", 1},
            {"outputGrad", 1},
            {"output", 1},
            {"weight", 1},
            {"weightGrad", 1}},
           kExtended},
          {"D", {{"input", 2}, {"inputGrad", 2}, {"outputGrad", 2}, {"output", 2}}, kExtended}};
}

const EntrySpec& forward_entry() {
  static const EntrySpec spec =
      entry_from_params<op::kForwardParams, &aclnnNsaCompressGetWorkspaceSize, &aclnnNsaCompress,
                        &op::clause_table>(
          "NsaCompress", "nsa_compress", role, attr,
          {.output_shape = output_shape, .empty_sizes = empty_sizes()});
  return spec;
}

const EntrySpec& backward_entry() {
  static const EntrySpec spec =
      entry_from_params<op::kBackwardParams, &aclnnNsaCompressGradGetWorkspaceSize,
                        &aclnnNsaCompressGrad, &op::clause_table>(
          "NsaCompressGrad", "nsa_compress", role, attr,
          {.output_shape = output_shape, .empty_sizes = empty_sizes()});
  return spec;
}

const EntrySpec& entry_spec(Direction direction) {
  return direction == Direction::kForward ? forward_entry() : backward_entry();
}

Call make_validation_call(const Problem& p) {
  Call call = shaped_call(entry_spec(p.entry), p);
  call.attr(kSeqAttr) = p.null_seq_len ? AttrValue{} : AttrValue{p.prefix_sums()};
  call.attr("layoutOptional") = p.null_layout ? AttrValue{} : AttrValue{std::string("TND")};
  call.attr("compressBlockSize") = p.block;
  call.attr("compressStride") = p.stride;
  return call;
}

Call make_call(const Problem& p) {
  Call call = make_validation_call(p);
  fill_inputs(call, p, gradconf::nc::make_values);
  return call;
}

std::vector<std::pair<Role, std::vector<double>>> reference_outputs(const Problem& p,
                                                                    const Call& call) {
  namespace ref = gradconf::nc::reference;
  ref::Dims d;
  d.tokens = call.dim_or("input", 0);
  d.heads = call.dim_or("input", 1);
  d.dim = call.dim_or("input", 2);
  d.block = call.attr_int("compressBlockSize");
  d.stride = call.attr_int("compressStride");
  d.act_seq_len = prefix_sums_of(call);
  const auto& input = call.tensor("input").values;
  const auto& weight = call.tensor("weight").values;
  if (p.entry == Direction::kForward) return {{Role::kOutput, ref::forward(d, input, weight)}};
  auto g = ref::backward(d, input, weight, call.tensor("outputGrad").values);
  return {{Role::kInputGrad, std::move(g.input)}, {Role::kWeightGrad, std::move(g.weight)}};
}

std::vector<TermMagnitudes<Role>> reference_term_magnitudes(const Problem& p, const Call& call) {
  // The op is bilinear in (input, weight) and linear in outputGrad with no sign of its own, so
  // the reference on the magnitudes of the inputs sums the magnitudes of its terms.
  Call magnitudes = call;
  for (TensorSpec& tensor : magnitudes.tensors) {
    if (tensor.output) continue;
    for (double& v : tensor.values) v = std::fabs(v);
  }
  // Products per element: a window's tokens (output); at most every window, so at most `block`,
  // covers a token (inputGrad); every compressed row's dims (weightGrad).
  std::vector<TermMagnitudes<Role>> all;
  for (auto& [role, sums] : reference_outputs(p, magnitudes)) {
    const int64_t terms = role == Role::kWeightGrad ? p.compressed_rows() * p.dim : p.block;
    all.push_back({role, std::move(sums), terms});
  }
  return all;
}

}  // namespace gradconf::props::nc
