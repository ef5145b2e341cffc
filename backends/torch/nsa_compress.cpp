// NsaCompress(Grad) in PyTorch's own terms: per batch of actSeqLen (prefix sums; null: one batch
// of every token), the windows are `unfold(0, l, d)` of its tokens and the output their
// weighted sum `einsum("cndj,jn->cnd")`; the backward is autograd's.
#include <c10/core/GradMode.h>

#include <cstdlib>
#include <string_view>

#include "aclnnop/aclnn_nsa_compress.h"
#include "aclnnop/aclnn_nsa_compress_grad.h"
#include "nsa_compress/params.h"
#include "torch/bridge.h"

namespace nc = gradconf::nc;
namespace tb = gradconf::torch_backend;

namespace {

struct Windowing {
  std::vector<int64_t> prefix;  ///< token count of each batch's end
  int64_t block = 0, stride = 0;
};

Windowing windowing_of(const nc::CallArgs& a) {
  Windowing w{{}, a.block_size, a.stride};
  if (a.act_seq_len) {
    w.prefix = a.act_seq_len->values;
  } else {
    w.prefix = {a.input->view_dims[0]};
  }
  return w;
}

// A planted deviation for the suite's own test (tests/torch_backend): with
// GRADCONF_TORCH_PLANTED=nc.window_reversed each window's tokens meet the weights in reverse
// order, which NsaCompress.matches_reference must see.
bool window_reversed() {
  static const bool planted = [] {
    const char* name = std::getenv("GRADCONF_TORCH_PLANTED");
    return name && std::string_view(name) == "nc.window_reversed";
  }();
  return planted;
}

// (T_cmp, N, D): each batch's windows in order; batches shorter than l have none.
at::Tensor compress(const at::Tensor& input, const at::Tensor& weight, const Windowing& w) {
  std::vector<at::Tensor> rows;
  int64_t begin = 0;
  for (int64_t end : w.prefix) {
    if (end - begin >= w.block) {
      at::Tensor windows = input.slice(0, begin, end).unfold(0, w.block, w.stride);
      if (window_reversed()) windows = windows.flip(-1);
      rows.push_back(at::einsum("cndj,jn->cnd", {windows, weight}));
    }
    begin = end;
  }
  if (rows.empty()) return at::zeros({0, input.size(1), input.size(2)}, input.options());
  return at::cat(rows);
}

std::function<void()> forward_body(const nc::CallArgs& a) {
  return [w = windowing_of(a), input = *a.input, weight = *a.weight, output = *a.output] {
    tb::write_into(output, compress(tb::computed(input), tb::computed(weight), w));
  };
}

std::function<void()> backward_body(const nc::CallArgs& a) {
  return [w = windowing_of(a), input = *a.input, weight = *a.weight, output_grad = *a.output_grad,
          input_grad = *a.input_grad, weight_grad = *a.weight_grad] {
    c10::AutoGradMode grad_mode(true);
    const at::Tensor x = tb::computed(input).requires_grad_(true);
    const at::Tensor wt = tb::computed(weight).requires_grad_(true);
    const auto grads = tb::gradients(compress(x, wt, w), {x, wt}, tb::computed(output_grad));
    tb::write_into(input_grad, grads[0]);
    tb::write_into(weight_grad, grads[1]);
  };
}

}  // namespace

extern "C" {

aclnnStatus aclnnNsaCompressGetWorkspaceSize(const aclTensor* input, const aclTensor* weight,
                                             const aclIntArray* actSeqLenOptional,
                                             char* layoutOptional, int64_t compressBlockSize,
                                             int64_t compressStride, int64_t actSeqLenType,
                                             aclTensor* output, uint64_t* workspaceSize,
                                             aclOpExecutor** executor) {
  return tb::phase1(
      nc::clause_table(),
      nc::kForwardParams.pack(input, weight, actSeqLenOptional, layoutOptional, compressBlockSize,
                              compressStride, actSeqLenType, output, workspaceSize, executor),
      forward_body);
}

GRADCONF_DEFINE_PHASE2(aclnnNsaCompress, nc::kForwardParams)

aclnnStatus aclnnNsaCompressGradGetWorkspaceSize(
    const aclTensor* outputGrad, const aclTensor* input, const aclTensor* weight,
    const aclIntArray* actSeqLenOptionalOptional, int64_t compressBlockSize, int64_t compressStride,
    int64_t actSeqLenType, char* layoutOptionalOptional, const aclTensor* inputGrad,
    const aclTensor* weightGrad, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return tb::phase1(nc::clause_table(),
                    nc::kBackwardParams.pack(outputGrad, input, weight, actSeqLenOptionalOptional,
                                             compressBlockSize, compressStride, actSeqLenType,
                                             layoutOptionalOptional, inputGrad, weightGrad,
                                             workspaceSize, executor),
                    backward_body);
}

GRADCONF_DEFINE_PHASE2(aclnnNsaCompressGrad, nc::kBackwardParams)

}  // extern "C"
