// A tensor view declared over storage that is never read: validation tests of size limits make
// views of huge logical sizes over a few bytes (zero strides, or storage sizes that only exist on
// paper), since phase 1 never touches float data.
#ifndef GRADCONF_TESTS_SUPPORT_DECLARED_TENSOR_H_
#define GRADCONF_TESTS_SUPPORT_DECLARED_TENSOR_H_

#include <cstdint>
#include <vector>

#include "aclnn/acl_meta.h"

namespace gradconf::testing {

struct DeclaredTensor {
  aclTensor* tensor = nullptr;
  /// A view over `storage` elements at `data`; zero strides unless `strides` are given.
  DeclaredTensor(std::vector<int64_t> dims, aclDataType dtype, void* data,
                 std::vector<int64_t> strides = {}, int64_t storage = 1) {
    if (strides.empty()) strides.assign(dims.size(), 0);
    tensor = aclCreateTensor(dims.data(), dims.size(), dtype, strides.data(), 0, ACL_FORMAT_ND,
                             &storage, 1, data);
  }
  ~DeclaredTensor() { aclDestroyTensor(tensor); }
  DeclaredTensor(const DeclaredTensor&) = delete;
  DeclaredTensor& operator=(const DeclaredTensor&) = delete;
};

}  // namespace gradconf::testing

#endif  // GRADCONF_TESTS_SUPPORT_DECLARED_TENSOR_H_
