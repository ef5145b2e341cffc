// Status codes and the per-thread "last error" message (spec README §2).
#ifndef GRADCONF_OPS_CORE_STATUS_H_
#define GRADCONF_OPS_CORE_STATUS_H_

#include <string>

#include "aclnn/acl_meta.h"

namespace gradconf {

/// A failed call: the aclnn status and the one-line message that aclGetRecentErrMsg returns.
struct Failure {
  aclnnStatus status = ACLNN_SUCCESS;
  std::string message;
};

/// Records `message` as this thread's most recent error and returns `status`.
aclnnStatus fail(aclnnStatus status, std::string message);
inline aclnnStatus fail(const Failure& failure) { return fail(failure.status, failure.message); }
/// Clears the message at the start of every API call, so a success leaves "".
void clear_last_error();
/// This thread's most recent message (what aclGetRecentErrMsg returns).
const char* last_error();

/// "[2, 3, 7, 3]": how messages print a shape.
std::string format_dims(const int64_t* dims, uint64_t rank);

}  // namespace gradconf

#endif  // GRADCONF_OPS_CORE_STATUS_H_
