// The operator families the CLI knows; op_registry.cpp lists each in kOpFamilies. Adding a family
// (MultiScaleDeformableAttention, NsaCompress, NsaSelectedAttention) means one declaration here,
// one file cli/ops/<family>.cpp and one line in kOpFamilies.
#ifndef GRADCONF_CLI_OPS_OP_FAMILIES_H_
#define GRADCONF_CLI_OPS_OP_FAMILIES_H_

#include <vector>

#include "cli/op_registry.h"

namespace gradconf::cli {

std::vector<OpDef> grid_sampler2d_ops();  // GridSampler2D, GridSampler2DBackward

}  // namespace gradconf::cli

#endif  // GRADCONF_CLI_OPS_OP_FAMILIES_H_
