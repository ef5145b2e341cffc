// Typed strided access to an aclTensor's view: kernels read sizes and strides explicitly and
// never assume contiguity (any permutation, padding, offset or zero stride works).
#ifndef GRADCONF_OPS_CORE_VIEW_H_
#define GRADCONF_OPS_CORE_VIEW_H_

#include <array>
#include <cstdint>
#include <utility>

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
    return origin[offset_of(std::make_index_sequence<Rank>{}, static_cast<int64_t>(index)...)];
  }

 private:
  // A fold over the dims, so -O2 emits straight-line multiply-adds (a loop over a local index
  // array stayed a loop through memory and cost a quarter of the kernels' time).
  template <size_t... D, typename... I>
  int64_t offset_of(std::index_sequence<D...>, I... index) const {
    return ((index * strides[D]) + ...);
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

/// Sets every element of v to zero: the outputs an empty problem still has (no pointer into an
/// empty view is formed).
template <typename T, int Rank>
void zero_fill(const StridedView<T, Rank>& v) {
  for (int d = 0; d < Rank; ++d) {
    if (v.dims[d] == 0) return;
  }
  std::array<int64_t, Rank> index{};
  for (;;) {
    int64_t offset = 0;
    for (int d = 0; d < Rank; ++d) offset += index[d] * v.strides[d];
    v.origin[offset] = T(0);
    int d = Rank - 1;
    while (d >= 0 && ++index[d] == v.dims[d]) index[d--] = 0;
    if (d < 0) return;
  }
}

}  // namespace gradconf

#endif  // GRADCONF_OPS_CORE_VIEW_H_
