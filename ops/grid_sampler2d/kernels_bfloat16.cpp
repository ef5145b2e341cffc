// Both kernels for bfloat16 tensors (kernels.h says why each dtype has its own translation unit).
#include "grid_sampler2d/backward_kernel.h"
#include "grid_sampler2d/forward_kernel.h"

namespace gradconf::grid_sampler2d {

GRADCONF_GS_INSTANTIATE_KERNELS(bfloat16)

}  // namespace gradconf::grid_sampler2d
