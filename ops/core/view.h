// Typed strided access to an aclTensor's view: kernels read sizes and strides explicitly and
// never assume contiguity (any permutation, padding, offset or zero stride works).
#ifndef GRADCONF_OPS_CORE_VIEW_H_
#define GRADCONF_OPS_CORE_VIEW_H_

#include <array>
#include <cstdint>

#include "core/tensor.h"

namespace gradconf {

template <typename T, int Rank>
struct StridedView {
  T* origin = nullptr;  ///< element (0, ..., 0)
  std::array<int64_t, Rank> dims{};
  std::array<int64_t, Rank> strides{};

  template <typename... I>
  T& operator()(I... index) const {
    static_assert(sizeof...(I) == Rank);
    const std::array<int64_t, Rank> idx{static_cast<int64_t>(index)...};
    int64_t offset = 0;
    for (int d = 0; d < Rank; ++d) offset += idx[d] * strides[d];
    return origin[offset];
  }
};

/// Precondition: rank(t) == Rank and T matches t.dtype (checked by the op's clause table).
template <typename T, int Rank>
StridedView<T, Rank> view_of(const aclTensor& t) {
  StridedView<T, Rank> v;
  // An empty view addresses nothing, so aclCreateTensor does not bound its offset: never form
  // that pointer (it may lie far outside any object).
  v.origin = static_cast<T*>(t.data) + (t.data && numel(t) > 0 ? t.offset : 0);
  for (int d = 0; d < Rank; ++d) {
    v.dims[d] = t.view_dims[d];
    v.strides[d] = t.strides[d];
  }
  return v;
}

}  // namespace gradconf

#endif  // GRADCONF_OPS_CORE_VIEW_H_
