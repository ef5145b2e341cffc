// The backend side of gradconf/aclnn_ext.h and aclGetRecentErrMsg.
#include "core/parallel.h"
#include "core/planted_fault.h"
#include "core/profile.h"
#include "core/status.h"
#include "gradconf/aclnn_ext.h"

extern "C" {

const char* aclGetRecentErrMsg(void) { return gradconf::last_error(); }

int gradconfSetNumThreads(int threads) {
  const int previous = gradconf::num_threads();
  gradconf::set_num_threads(threads);
  return previous;
}

int gradconfGetNumThreads(void) { return gradconf::num_threads(); }

int gradconfSetFineSplit(int fine) { return gradconf::set_fine_split(fine != 0) ? 1 : 0; }

aclnnStatus gradconfSetSpecProfile(const char* profile) {
  const auto parsed = profile ? gradconf::parse_profile(profile) : std::nullopt;
  if (!parsed) return ACLNN_ERR_PARAM_INVALID;
  gradconf::set_spec_profile(*parsed);
  return ACLNN_SUCCESS;
}

const char* gradconfGetSpecProfile(void) {
  return gradconf::profile_name(gradconf::spec_profile()).data();
}

#if GRADCONF_PLANTED_FAULTS
aclnnStatus gradconfSelectPlantedFault(const char* fault) {
  if (fault == nullptr) return ACLNN_ERR_PARAM_NULLPTR;
  gradconf::select_planted_fault(fault);
  return ACLNN_SUCCESS;
}
#endif

}  // extern "C"

// Weak: a backend built on this runtime (backends/torch) names itself instead.
__attribute__((weak)) const char* gradconfBackendVersion(void) {
  return "gradconf CPU kernels (ops/)";
}

// Weak, like the version: our kernels are bitwise invariant under layouts and batch splits; a
// backend on this runtime that is not (backends/torch) says so.
__attribute__((weak)) int gradconfBitwiseInvariant(void) { return 1; }
