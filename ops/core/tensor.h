// The host definitions of the opaque aclnn handle types, and the view helpers the validation
// tables and kernels use. A view is (dims, strides, offset) over caller-owned storage, all in
// elements (spec README §3); kernels never assume contiguity.
#ifndef GRADCONF_OPS_CORE_TENSOR_H_
#define GRADCONF_OPS_CORE_TENSOR_H_

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "aclnn/acl_meta.h"

namespace gradconf {

/// Dims or strides of one tensor: at most kMaxRank (8, CANN's limit) values held inline, so a
/// tensor handle costs one allocation, not four (callers create a dozen per aclnn call, and the
/// raw-arguments fuzzers create one per tensor per input).
class DimVector {
 public:
  static constexpr size_t kCapacity = 8;
  DimVector() = default;
  DimVector(std::initializer_list<int64_t> values) { assign(values.begin(), values.end()); }
  explicit DimVector(std::span<const int64_t> values) { assign(values.begin(), values.end()); }
  template <typename It>
  void assign(It first, It last) {
    size_ = static_cast<size_t>(std::distance(first, last));
    if (size_ > kCapacity) throw std::length_error("DimVector: rank above 8");
    std::copy(first, last, values_);
  }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  int64_t* data() { return values_; }
  const int64_t* data() const { return values_; }
  int64_t* begin() { return values_; }
  int64_t* end() { return values_ + size_; }
  const int64_t* begin() const { return values_; }
  const int64_t* end() const { return values_ + size_; }
  int64_t& operator[](size_t i) { return values_[i]; }
  int64_t operator[](size_t i) const { return values_[i]; }
  int64_t back() const { return values_[size_ - 1]; }
  operator std::span<const int64_t>() const { return {values_, size_}; }
  std::vector<int64_t> to_vector() const { return {begin(), end()}; }
  friend bool operator==(const DimVector& a, const DimVector& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }
  friend bool operator==(const DimVector& a, const std::vector<int64_t>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  int64_t values_[kCapacity] = {};
  size_t size_ = 0;
};

}  // namespace gradconf

/// Invariants established by aclCreateTensor: dims, strides >= 0; the element count does not
/// overflow; every element of the view lies inside the storage; data != nullptr when the view
/// has elements.
struct aclTensor {
  gradconf::DimVector view_dims;
  gradconf::DimVector strides;
  gradconf::DimVector storage_dims;
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
static_assert(DimVector::kCapacity == kMaxRank);

inline int64_t rank(const aclTensor& t) { return static_cast<int64_t>(t.view_dims.size()); }
/// Element count of the view (cannot overflow: checked at creation).
int64_t numel(const aclTensor& t);
enum class Overlap {
  kDisjoint,     ///< every view index addresses its own storage element
  kOverlapping,  ///< two distinct view indices address the same element
  kUndecided,    ///< three or more interleaved axes, too large to decide within kOverlapBudget
};
/// Views of two interleaved axes are decided in closed form; three or more interleaved axes
/// (not provably disjoint by nesting or a colliding pair) are decided exactly by enumerating their
/// offsets into a bitmap or a sorted list; beyond this many bits/offsets phase 1 would spend
/// absurd memory on a view it cannot yet trust, so the answer is kUndecided.
inline constexpr int64_t kOverlapBudget = int64_t{1} << 28;
Overlap overlap_of(const aclTensor& t);
inline bool has_overlap(const aclTensor& t) { return overlap_of(t) != Overlap::kDisjoint; }
/// What aclCreateTensor accepts, as a value: nullopt where it returns nullptr. The test side's
/// clause-table oracle builds views with this, independent of the backend under test.
std::optional<aclTensor> make_tensor(const int64_t* viewDims, uint64_t viewDimsNum,
                                     aclDataType dataType, const int64_t* stride, int64_t offset,
                                     aclFormat format, const int64_t* storageDims,
                                     uint64_t storageDimsNum, void* tensorData);
/// "tensor with sizes [2, 3, 7, 3]".
std::string describe(const aclTensor& t);

}  // namespace gradconf

#endif  // GRADCONF_OPS_CORE_TENSOR_H_
