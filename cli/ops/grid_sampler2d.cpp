// GridSampler2D and GridSampler2DBackward (shared/spec/grid_sampler2d.md) as the CLI sees them.
#include "aclnnop/aclnn_grid_sampler2d.h"
#include "aclnnop/aclnn_grid_sampler2d_backward.h"
#include "cli/acl_driver.h"
#include "cli/ops/op_families.h"

namespace gradconf::cli {
namespace {

const std::vector<aclDataType> kFloatDtypes = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE};

// Defaults are PyTorch's grid_sample defaults: bilinear, zeros, align_corners=False.
std::vector<AttrDef> sampling_attrs() {
  return {{"interpolationMode", AttrKind::kInt, AttrValue(int64_t{0})},
          {"paddingMode", AttrKind::kInt, AttrValue(int64_t{0})},
          {"alignCorners", AttrKind::kBool, AttrValue(false)}};
}

// Every output has the dtype of `input` (GS-DTYPE-02 makes all five tensors agree).
aclDataType input_dtype(const CallArgs& args) { return args.dtype_or("input"); }

std::vector<int64_t> shape_of(const CallArgs& args, std::string_view name) {
  const HostTensor* tensor = args.input(name);
  return tensor ? tensor->shape : std::vector<int64_t>{};
}

// outputMask[index]; a null mask computes nothing (GS-MASK-01), a mask of the wrong size makes
// phase 1 fail, so the answer for it does not matter.
bool mask_bit(const CallArgs& args, size_t index) {
  const std::vector<bool>* mask = args.bool_list_attr("outputMask");
  return mask != nullptr && index < mask->size() && (*mask)[index];
}

OpDef forward_op() {
  OpDef op;
  op.name = "GridSampler2D";
  op.api = "aclnnGridSampler2D";
  op.inputs = {{"input", true, kFloatDtypes}, {"grid", true, kFloatDtypes}};
  op.attrs = sampling_attrs();
  op.outputs = {{.name = "out",
                 .shape_rule = "(input.N, input.C, grid.Hout, grid.Wout)",
                 .dtype_rule = "dtype(input)",
                 .shape =
                     [](const CallArgs& args) {
                       return std::vector<int64_t>{args.dim_or("input", 0), args.dim_or("input", 1),
                                                   args.dim_or("grid", 1), args.dim_or("grid", 2)};
                     },
                 .dtype = input_dtype}};
  op.bind = [](const CallArgs& args, const CallTensors& tensors) {
    const int64_t interpolation = args.int_attr("interpolationMode");
    const int64_t padding = args.int_attr("paddingMode");
    const bool align_corners = args.bool_attr("alignCorners");
    aclTensor* input = tensors.input("input");
    aclTensor* grid = tensors.input("grid");
    aclTensor* out = tensors.output("out");
    return BoundCall{[=](uint64_t* workspace_size, aclOpExecutor** executor) {
                       return aclnnGridSampler2DGetWorkspaceSize(input, grid, interpolation,
                                                                 padding, align_corners, out,
                                                                 workspace_size, executor);
                     },
                     aclnnGridSampler2D};
  };
  return op;
}

OpDef backward_op() {
  OpDef op;
  op.name = "GridSampler2DBackward";
  op.api = "aclnnGridSampler2DBackward";
  op.inputs = {{"gradOutput", true, kFloatDtypes},
               {"input", true, kFloatDtypes},
               {"grid", true, kFloatDtypes}};
  op.attrs = sampling_attrs();
  op.attrs.push_back({"outputMask", AttrKind::kBoolList, AttrValue(std::monostate{})});
  op.outputs = {{.name = "inputGrad",
                 .shape_rule = "shape(input)",
                 .dtype_rule = "dtype(input)",
                 .shape = [](const CallArgs& args) { return shape_of(args, "input"); },
                 .dtype = input_dtype,
                 .written = [](const CallArgs& args) { return mask_bit(args, 0); },
                 .written_rule = "outputMask[0]"},
                {.name = "gridGrad",
                 .shape_rule = "shape(grid)",
                 .dtype_rule = "dtype(input)",
                 .shape = [](const CallArgs& args) { return shape_of(args, "grid"); },
                 .dtype = input_dtype,
                 .written = [](const CallArgs& args) { return mask_bit(args, 1); },
                 .written_rule = "outputMask[1]"}};
  op.bind = [](const CallArgs& args, const CallTensors& tensors) {
    const int64_t interpolation = args.int_attr("interpolationMode");
    const int64_t padding = args.int_attr("paddingMode");
    const bool align_corners = args.bool_attr("alignCorners");
    const std::shared_ptr<aclBoolArray> output_mask =
        make_bool_array(args.bool_list_attr("outputMask"));
    aclTensor* grad_output = tensors.input("gradOutput");
    aclTensor* input = tensors.input("input");
    aclTensor* grid = tensors.input("grid");
    aclTensor* input_grad = tensors.output("inputGrad");
    aclTensor* grid_grad = tensors.output("gridGrad");
    return BoundCall{[=](uint64_t* workspace_size, aclOpExecutor** executor) {
                       return aclnnGridSampler2DBackwardGetWorkspaceSize(
                           grad_output, input, grid, interpolation, padding, align_corners,
                           output_mask.get(), input_grad, grid_grad, workspace_size, executor);
                     },
                     aclnnGridSampler2DBackward};
  };
  return op;
}

}  // namespace

std::vector<OpDef> grid_sampler2d_ops() { return {forward_op(), backward_op()}; }

}  // namespace gradconf::cli
