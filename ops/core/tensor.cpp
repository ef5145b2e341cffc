#include "core/tensor.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "core/checked_math.h"
#include "core/dtype.h"
#include "core/status.h"

namespace gradconf {

int64_t numel(const aclTensor& t) { return checked_numel(t.view_dims).value_or(0); }

namespace {
struct Axis {
  int64_t stride, size;
};

/// The axes that step (size > 1), sorted by stride.
std::vector<Axis> stepping_axes(const aclTensor& t) {
  std::vector<Axis> axes;
  for (size_t i = 0; i < t.view_dims.size(); ++i) {
    if (t.view_dims[i] > 1) axes.push_back({t.strides[i], t.view_dims[i]});
  }
  std::sort(axes.begin(), axes.end(), [](Axis a, Axis b) { return a.stride < b.stride; });
  return axes;
}

// Sorted by stride, each axis must step over everything the smaller axes span: this proves that
// no two indices meet. It is sufficient, not necessary (interleaved views fail it).
bool nested_strides_prove_disjoint(const std::vector<Axis>& axes) {
  int64_t span = 0;  // largest offset reachable with the smaller axes
  for (auto [stride, size] : axes) {
    if (stride <= span) return false;
    auto reach = checked_mul(stride, size - 1);
    auto next = reach ? checked_add(span, *reach) : std::nullopt;
    if (!next) return false;
    span = *next;
  }
  return true;
}

/// Calls visit(offset) for every view index, innermost axis fastest; stops when visit is true.
template <typename Visit>
bool any_offset(const std::vector<Axis>& axes, Visit visit) {
  std::vector<int64_t> index(axes.size(), 0);
  int64_t offset = 0;
  while (true) {
    if (visit(offset)) return true;
    size_t i = 0;
    for (; i < axes.size(); ++i) {
      offset += axes[i].stride;
      if (++index[i] < axes[i].size) break;
      offset -= axes[i].stride * axes[i].size;
      index[i] = 0;
    }
    if (i == axes.size()) return false;
  }
}
}  // namespace

Overlap overlap_of(const aclTensor& t) {
  // An empty view addresses nothing (and its strides were never bounded by its storage).
  if (numel(t) == 0) return Overlap::kDisjoint;
  const std::vector<Axis> axes = stepping_axes(t);
  if (axes.empty() || nested_strides_prove_disjoint(axes)) return Overlap::kDisjoint;
  if (axes.front().stride == 0) return Overlap::kOverlapping;
  // aclCreateTensor checked that the last offset fits in the storage, so these cannot overflow.
  int64_t count = 1, max_offset = 0;
  for (auto [stride, size] : axes) {
    count *= size;
    max_offset += stride * (size - 1);
  }
  if (count > max_offset + 1) return Overlap::kOverlapping;  // pigeonhole
  if (max_offset < kOverlapBudget) {
    std::vector<bool> seen(static_cast<size_t>(max_offset) + 1, false);
    const bool repeated = any_offset(axes, [&](int64_t offset) {
      if (seen[offset]) return true;
      seen[offset] = true;
      return false;
    });
    return repeated ? Overlap::kOverlapping : Overlap::kDisjoint;
  }
  if (count <= kOverlapBudget / 64) {  // sparse: a sorted list costs 64 bits per offset
    std::vector<int64_t> offsets;
    offsets.reserve(static_cast<size_t>(count));
    any_offset(axes, [&](int64_t offset) {
      offsets.push_back(offset);
      return false;
    });
    std::sort(offsets.begin(), offsets.end());
    const bool repeated = std::adjacent_find(offsets.begin(), offsets.end()) != offsets.end();
    return repeated ? Overlap::kOverlapping : Overlap::kDisjoint;
  }
  return Overlap::kUndecided;
}

std::string describe(const aclTensor& t) {
  return std::string(dtype_name(t.dtype)) + " tensor with sizes " +
         format_dims(t.view_dims.data(), t.view_dims.size());
}

}  // namespace gradconf

using gradconf::checked_add;
using gradconf::checked_mul;
using gradconf::checked_numel;

extern "C" {

aclTensor* aclCreateTensor(const int64_t* viewDims, uint64_t viewDimsNum, aclDataType dataType,
                           const int64_t* stride, int64_t offset, aclFormat format,
                           const int64_t* storageDims, uint64_t storageDimsNum, void* tensorData) {
  if (viewDimsNum > gradconf::kMaxRank || storageDimsNum > gradconf::kMaxRank) return nullptr;
  if (viewDimsNum > 0 && (viewDims == nullptr || stride == nullptr)) return nullptr;
  if (storageDimsNum > 0 && storageDims == nullptr) return nullptr;
  if (offset < 0) return nullptr;
  std::span<const int64_t> view(viewDims, viewDimsNum);
  std::span<const int64_t> strides(stride, viewDimsNum);
  std::span<const int64_t> storage(storageDims, storageDimsNum);
  auto view_count = checked_numel(view);
  auto storage_count = checked_numel(storage);
  if (!view_count || !storage_count) return nullptr;
  if (std::any_of(strides.begin(), strides.end(), [](int64_t s) { return s < 0; })) return nullptr;
  const int64_t esize = gradconf::element_size(dataType);
  if (esize > 0 && !checked_mul(*storage_count, esize)) return nullptr;
  if (*view_count > 0) {
    // The last element the view addresses must lie inside the storage.
    const auto last = gradconf::checked_last_offset(view, strides, offset);
    if (!last || *last >= *storage_count) return nullptr;
    if (tensorData == nullptr) return nullptr;
  }
  auto* t = new aclTensor;
  t->view_dims.assign(view.begin(), view.end());
  t->strides.assign(strides.begin(), strides.end());
  t->storage_dims.assign(storage.begin(), storage.end());
  t->offset = offset;
  t->dtype = dataType;
  t->format = format;
  t->data = tensorData;
  return t;
}

aclIntArray* aclCreateIntArray(const int64_t* value, uint64_t size) {
  if (size > 0 && value == nullptr) return nullptr;
  return new aclIntArray{std::vector<int64_t>(value, value + size)};
}

aclBoolArray* aclCreateBoolArray(const bool* value, uint64_t size) {
  if (size > 0 && value == nullptr) return nullptr;
  return new aclBoolArray{std::vector<bool>(value, value + size)};
}

aclnnStatus aclDestroyTensor(const aclTensor* tensor) {
  delete tensor;
  return ACLNN_SUCCESS;
}

aclnnStatus aclDestroyIntArray(const aclIntArray* array) {
  delete array;
  return ACLNN_SUCCESS;
}

aclnnStatus aclDestroyBoolArray(const aclBoolArray* array) {
  delete array;
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetViewShape(const aclTensor* tensor, int64_t** viewDims, uint64_t* viewDimsNum) {
  if (!tensor || !viewDims || !viewDimsNum) return ACLNN_ERR_PARAM_NULLPTR;
  *viewDims = const_cast<int64_t*>(tensor->view_dims.data());
  *viewDimsNum = tensor->view_dims.size();
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetStorageShape(const aclTensor* tensor, int64_t** storageDims,
                               uint64_t* storageDimsNum) {
  if (!tensor || !storageDims || !storageDimsNum) return ACLNN_ERR_PARAM_NULLPTR;
  *storageDims = const_cast<int64_t*>(tensor->storage_dims.data());
  *storageDimsNum = tensor->storage_dims.size();
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetViewStrides(const aclTensor* tensor, int64_t** stridesValue,
                              uint64_t* stridesNum) {
  if (!tensor || !stridesValue || !stridesNum) return ACLNN_ERR_PARAM_NULLPTR;
  *stridesValue = const_cast<int64_t*>(tensor->strides.data());
  *stridesNum = tensor->strides.size();
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetViewOffset(const aclTensor* tensor, int64_t* offset) {
  if (!tensor || !offset) return ACLNN_ERR_PARAM_NULLPTR;
  *offset = tensor->offset;
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetFormat(const aclTensor* tensor, aclFormat* format) {
  if (!tensor || !format) return ACLNN_ERR_PARAM_NULLPTR;
  *format = tensor->format;
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetDataType(const aclTensor* tensor, aclDataType* dataType) {
  if (!tensor || !dataType) return ACLNN_ERR_PARAM_NULLPTR;
  *dataType = tensor->dtype;
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetIntArraySize(const aclIntArray* array, uint64_t* size) {
  if (!array || !size) return ACLNN_ERR_PARAM_NULLPTR;
  *size = array->values.size();
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetBoolArraySize(const aclBoolArray* array, uint64_t* size) {
  if (!array || !size) return ACLNN_ERR_PARAM_NULLPTR;
  *size = array->values.size();
  return ACLNN_SUCCESS;
}

}  // extern "C"
