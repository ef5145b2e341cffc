#include "cli/acl_driver.h"

#include <algorithm>

#include "core/checked_math.h"
#include "core/dtype.h"

namespace gradconf::cli {
namespace {

void check(aclError error, const std::string& call) {
  if (error != ACL_SUCCESS) {
    throw RuntimeFailure(call + " failed with ACL error " + std::to_string(error));
  }
}

}  // namespace

AclSession::AclSession(int32_t device_id) : device_id_(device_id) {
  check(aclInit(nullptr), "aclInit");
  if (aclError error = aclrtSetDevice(device_id_); error != ACL_SUCCESS) {
    aclFinalize();
    check(error, "aclrtSetDevice(" + std::to_string(device_id_) + ")");
  }
}

AclSession::~AclSession() {
  aclrtResetDevice(device_id_);
  aclFinalize();
}

std::optional<uint64_t> tensor_bytes(aclDataType dtype, const std::vector<int64_t>& shape) {
  const auto count = checked_numel(shape);
  if (!count) return std::nullopt;
  const auto bytes = checked_mul(*count, element_size(dtype));
  if (!bytes) return std::nullopt;
  return static_cast<uint64_t>(*bytes);
}

}  // namespace gradconf::cli
