/* gradconf's extensions to the aclnn C API: the knobs the conformance suite turns on a backend
 * that offers them (thread count for the determinism law, spec profile, planted-fault selection).
 * Each is optional: a backend without the symbol (CANN, another port) runs every law that does
 * not need it, and the suite reports the others as SKIPPED. */
#ifndef GRADCONF_ACLNN_EXT_H_
#define GRADCONF_ACLNN_EXT_H_

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Kernel threads for later calls; threads <= 0 restores the default. Returns the previous count. */
int gradconfSetNumThreads(int threads);
int gradconfGetNumThreads(void);
/* Nonzero: split kernel work over the threads however small a call is (kernels otherwise keep a
 * small call on the calling thread), so a law comparing thread counts sees the workers used.
 * Returns the previous setting. */
int gradconfSetFineSplit(int fine);
/* "seed" or "extended": the validation profile of later phase-1 calls. 161002 for any other name.
 */
aclnnStatus gradconfSetSpecProfile(const char* profile);
const char* gradconfGetSpecProfile(void);
/* Planted-fault backend only: selects "<family>.<fault>" ("" for none) for later calls. */
aclnnStatus gradconfSelectPlantedFault(const char* fault);
/* Nonzero: the backend promises bitwise the same results for any layout of the same logical
 * tensors and for any split of a batch (our kernels do). The suite's stride_invariance and
 * batch_split laws then compare bits; for a backend without the promise (or the symbol), they
 * compare to the bound of two roundings of the same exact values. */
int gradconfBitwiseInvariant(void);
/* What the implementation is, for reports (e.g. "PyTorch 1.13.0 (ATen CPU, autograd)"). */
const char* gradconfBackendVersion(void);

#ifdef __cplusplus
}
#endif

#endif /* GRADCONF_ACLNN_EXT_H_ */
