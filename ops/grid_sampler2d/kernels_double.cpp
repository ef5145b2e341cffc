// Both kernels for double tensors (kernels.h says why each dtype has its own translation unit).
#include "grid_sampler2d/backward_kernel.h"
#include "grid_sampler2d/forward_kernel.h"

namespace gradconf::grid_sampler2d {

GRADCONF_GS_INSTANTIATE_KERNELS(double)
GRADCONF_GS_INSTANTIATE_FLOAT64_FAULTS

}  // namespace gradconf::grid_sampler2d
