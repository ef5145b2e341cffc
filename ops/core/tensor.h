// The host definitions of the opaque aclnn handle types, and the view helpers the validation
// tables and kernels use. A view is (dims, strides, offset) over caller-owned storage, all in
// elements (spec README §3); kernels never assume contiguity.
#ifndef GRADCONF_OPS_CORE_TENSOR_H_
#define GRADCONF_OPS_CORE_TENSOR_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "aclnn/acl_meta.h"

/// Invariants established by aclCreateTensor: dims, strides >= 0; the element count does not
/// overflow; every element of the view lies inside the storage; data != nullptr when the view
/// has elements.
struct aclTensor {
  std::vector<int64_t> view_dims;
  std::vector<int64_t> strides;
  std::vector<int64_t> storage_dims;
  int64_t offset = 0;
  aclDataType dtype = ACL_FLOAT;
  aclFormat format = ACL_FORMAT_ND;
  void* data = nullptr;
};

struct aclIntArray {
  std::vector<int64_t> values;
};

struct aclBoolArray {
  std::vector<bool> values;
};

namespace gradconf {

/// Largest rank aclCreateTensor accepts (CANN's limit).
inline constexpr uint64_t kMaxRank = 8;

inline int64_t rank(const aclTensor& t) { return static_cast<int64_t>(t.view_dims.size()); }
/// Element count of the view (cannot overflow: checked at creation).
int64_t numel(const aclTensor& t);
/// True when two distinct view indices address the same storage element.
bool has_overlap(const aclTensor& t);
/// "tensor with sizes [2, 3, 7, 3]".
std::string describe(const aclTensor& t);

}  // namespace gradconf

#endif  // GRADCONF_OPS_CORE_TENSOR_H_
