#include "core/tensor.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <span>
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

// Adjacent axes where the outer one steps exactly over the inner one's span address what one
// axis of their combined size addresses: merging them leaves fewer axes to reason about.
std::vector<Axis> merge_nested_axes(const std::vector<Axis>& axes) {
  std::vector<Axis> merged;
  for (const Axis& axis : axes) {
    if (!merged.empty()) {
      const auto span = checked_mul(merged.back().stride, merged.back().size);
      if (span && *span == axis.stride) {
        merged.back().size *= axis.size;  // a factor of numel, which fits
        continue;
      }
    }
    merged.push_back(axis);
  }
  return merged;
}

// Two axes collide iff d1*s1 + d2*s2 = 0 has a solution with 0 < |d1| < n1 or 0 < |d2| < n2.
// The solutions are the multiples of (s2/g, -s1/g), g = gcd(s1, s2), so the smallest one decides.
bool axis_pair_collides(Axis a, Axis b) {
  const int64_t g = std::gcd(a.stride, b.stride);
  return b.stride / g < a.size && a.stride / g < b.size;
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
  const std::vector<Axis> axes = merge_nested_axes(stepping_axes(t));
  if (axes.empty() || nested_strides_prove_disjoint(axes)) return Overlap::kDisjoint;
  if (axes.front().stride == 0) return Overlap::kOverlapping;
  // Any colliding pair (the other indices held) is an overlap; with two axes it is the whole
  // answer. Only views of three or more interleaved axes are left to enumerate.
  for (size_t i = 0; i < axes.size(); ++i) {
    for (size_t j = i + 1; j < axes.size(); ++j) {
      if (axis_pair_collides(axes[i], axes[j])) return Overlap::kOverlapping;
    }
  }
  if (axes.size() == 2) return Overlap::kDisjoint;
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

std::optional<aclTensor> make_tensor(const int64_t* viewDims, uint64_t viewDimsNum,
                                     aclDataType dataType, const int64_t* stride, int64_t offset,
                                     aclFormat format, const int64_t* storageDims,
                                     uint64_t storageDimsNum, void* tensorData) {
  if (viewDimsNum > kMaxRank || storageDimsNum > kMaxRank) return std::nullopt;
  if (viewDimsNum > 0 && (viewDims == nullptr || stride == nullptr)) return std::nullopt;
  if (storageDimsNum > 0 && storageDims == nullptr) return std::nullopt;
  if (offset < 0) return std::nullopt;
  std::span<const int64_t> view(viewDims, viewDimsNum);
  std::span<const int64_t> strides(stride, viewDimsNum);
  std::span<const int64_t> storage(storageDims, storageDimsNum);
  auto view_count = checked_numel(view);
  auto storage_count = checked_numel(storage);
  if (!view_count || !storage_count) return std::nullopt;
  if (std::any_of(strides.begin(), strides.end(), [](int64_t s) { return s < 0; })) {
    return std::nullopt;
  }
  const int64_t esize = element_size(dataType);
  if (esize > 0 && !checked_mul(*storage_count, esize)) return std::nullopt;
  if (*view_count > 0) {
    // The last element the view addresses must lie inside the storage.
    const auto last = checked_last_offset(view, strides, offset);
    if (!last || *last >= *storage_count) return std::nullopt;
    if (tensorData == nullptr) return std::nullopt;
  }
  aclTensor t;
  t.view_dims.assign(view.begin(), view.end());
  t.strides.assign(strides.begin(), strides.end());
  t.storage_dims.assign(storage.begin(), storage.end());
  t.offset = offset;
  t.dtype = dataType;
  t.format = format;
  t.data = tensorData;
  return t;
}

}  // namespace gradconf
