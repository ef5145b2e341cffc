// The two kernels as phase 1 sees them: declared here, defined in forward_kernel.h and
// backward_kernel.h, and explicitly instantiated one dtype per translation unit
// (kernels_<dtype>.cpp). In one unit with the entry points they were the build's longest step
// (about 16 minutes under ASan+UBSan on two cores, the second core idle for most of it); split,
// a two-core build compiles them side by side.
#ifndef GRADCONF_OPS_GRID_SAMPLER2D_KERNELS_H_
#define GRADCONF_OPS_GRID_SAMPLER2D_KERNELS_H_

#include <cstddef>
#include <type_traits>

#include "core/planted_fault.h"
#include "grid_sampler2d/faults.h"
#include "grid_sampler2d/plan.h"

namespace gradconf::grid_sampler2d {

template <typename T, Fault kFault>
void forward_kernel(const ForwardPlan& plan, std::byte* workspace);

template <typename T, Fault kFault>
void backward_kernel(const BackwardPlan& plan, std::byte* workspace);

/// Whether a call may take a batch-major plan: not under the planted fault that scatters every
/// batch through the first batch's taps (a fault of the passes' batch indexing over all batches).
template <Fault kFault>
bool allows_batch_major() {
  return !planted<kFault>(Fault::kGridOfFirstBatchOnly);
}

// The faults with_planted_fault instantiates the kernels for: kNone in the shipped library, and
// in the planted-fault library kAnyFault and each of kCompiledFaults (a fault missing here fails
// the link). The one compiled fault changes float64's accumulators only (faults.h), so only the
// double kernels are instantiated for it: the other dtypes run kAnyFault's (kernel_fault), which
// behaves as unfaulted there. Instantiated for every dtype it was a third of the planted-fault
// library's compile time.
static_assert(kCompiledFaults.size() == 1 && kCompiledFaults[0] == Fault::kDoubleComputedInFloat,
              "GRADCONF_GS_INSTANTIATE_KERNELS names each of kCompiledFaults: add the new one");
template <typename T, Fault kFault>
inline constexpr Fault kernel_fault =
    kFault == Fault::kDoubleComputedInFloat && !std::is_same_v<T, double> ? kAnyFault<Fault>
                                                                          : kFault;
#define GRADCONF_GS_KERNELS_WITH_FAULT(T, kFault)                          \
  template void forward_kernel<T, kFault>(const ForwardPlan&, std::byte*); \
  template void backward_kernel<T, kFault>(const BackwardPlan&, std::byte*);
#if GRADCONF_PLANTED_FAULTS
#define GRADCONF_GS_INSTANTIATE_KERNELS(T) GRADCONF_GS_KERNELS_WITH_FAULT(T, kAnyFault<Fault>)
#define GRADCONF_GS_INSTANTIATE_FLOAT64_FAULTS \
  GRADCONF_GS_KERNELS_WITH_FAULT(double, Fault::kDoubleComputedInFloat)
#else
#define GRADCONF_GS_INSTANTIATE_KERNELS(T) GRADCONF_GS_KERNELS_WITH_FAULT(T, Fault::kNone)
#define GRADCONF_GS_INSTANTIATE_FLOAT64_FAULTS
#endif

}  // namespace gradconf::grid_sampler2d

#endif  // GRADCONF_OPS_GRID_SAMPLER2D_KERNELS_H_
