// The CLI's session with the ACL runtime: aclInit and the device around the calls that the one
// two-phase runner (properties/harness) makes. Nothing here dereferences device memory, so the
// binary can be linked against another implementation of the aclnn API (CANN on an Ascend
// machine) through -DGRADCONF_BACKEND.
#ifndef GRADCONF_CLI_ACL_DRIVER_H_
#define GRADCONF_CLI_ACL_DRIVER_H_

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <vector>

#include "acl/acl.h"

namespace gradconf::cli {

/// The runtime failed (allocation, copy, stream): the case is fine but could not be run here.
class RuntimeFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// aclInit + aclrtSetDevice, released in reverse order. Create it before running a call.
class AclSession {
 public:
  explicit AclSession(int32_t device_id = 0);
  ~AclSession();
  AclSession(const AclSession&) = delete;
  AclSession& operator=(const AclSession&) = delete;

 private:
  int32_t device_id_;
};

/// Bytes of a contiguous tensor, or nullopt when the count overflows.
std::optional<uint64_t> tensor_bytes(aclDataType dtype, const std::vector<int64_t>& shape);

}  // namespace gradconf::cli

#endif  // GRADCONF_CLI_ACL_DRIVER_H_
