// Raw test-side tensors for the suites that drive the C API by hand (executor rules, host-process
// robustness): "device" memory reached only through the public C API (aclrtMalloc, aclrtMemcpy,
// aclCreateTensor), exactly as a caller on an NPU would, with the harness's dtype codec. Every
// other suite runs calls through the registry's runner (props::run). Each storage is
// followed by a canary tail that the view never addresses, so a write past the storage, into a
// stride gap, or into an output the call must not write is detected bitwise.
#ifndef GRADCONF_TESTS_SUPPORT_DEVICE_TENSOR_H_
#define GRADCONF_TESTS_SUPPORT_DEVICE_TENSOR_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "core/layout.h"

namespace gradconf::testing {

/// Byte written over every output storage (view, gaps and tail) before a call. It is a huge
/// finite value in every dtype (float16 61280, bfloat16 and float32 1.3e36, double 2.3e287): never
/// a plausible result, and unlike a NaN it cannot match an expected NaN.
inline constexpr uint8_t kCanaryByte = 0x7B;
/// Bytes after the storage that no view addresses.
inline constexpr size_t kCanaryTailBytes = 64;

/// Storage element offsets of a view's elements, in row-major logical order.
std::vector<int64_t> view_offsets(std::span<const int64_t> dims, std::span<const int64_t> strides,
                                  int64_t offset);

int64_t numel(std::span<const int64_t> dims);

/// How a DeviceTensor's storage starts out.
enum class Fill {
  kInput,   ///< NaN everywhere (so a read of a gap poisons the result), then the values
  kCanary,  ///< kCanaryByte everywhere (outputs)
};

/// One aclTensor over its own aclrtMalloc storage. Move-only.
class DeviceTensor {
 public:
  DeviceTensor() = default;
  /// Storage and strides from `layout` (ops/core/layout.h). `values` (row-major, logical) are
  /// written for kInput; with broadcast dims the last write to a shared element wins.
  DeviceTensor(std::vector<int64_t> dims, aclDataType dtype, const gradconf::LayoutSpec& layout,
               Fill fill, std::span<const double> values = {}, aclFormat format = ACL_FORMAT_ND);
  /// Explicit strides and offset (e.g. overlapping views); storage sized to fit the view.
  DeviceTensor(std::vector<int64_t> dims, aclDataType dtype, std::vector<int64_t> strides,
               int64_t offset, Fill fill, std::span<const double> values = {},
               aclFormat format = ACL_FORMAT_ND);
  ~DeviceTensor();
  DeviceTensor(DeviceTensor&& other) noexcept;
  DeviceTensor& operator=(DeviceTensor&& other) noexcept;
  DeviceTensor(const DeviceTensor&) = delete;
  DeviceTensor& operator=(const DeviceTensor&) = delete;

  aclTensor* get() const { return tensor_; }
  /// The storage's device address (a caller may change the data between the phases).
  void* device() const { return device_; }
  /// Destroys the aclTensor handle but keeps the storage (the caller may do this between phases).
  void destroy_handle();
  const std::vector<int64_t>& dims() const { return dims_; }
  const std::vector<int64_t>& strides() const { return strides_; }
  aclDataType dtype() const { return dtype_; }

  /// The whole storage plus the canary tail, copied to the host.
  std::vector<uint8_t> storage_bytes() const;
  /// The storage image as it was uploaded.
  const std::vector<uint8_t>& initial_bytes() const { return initial_; }
  /// Logical values (row-major), read through the view from the device.
  std::vector<double> values() const;
  /// True when every byte equals its uploaded value.
  bool untouched() const { return storage_bytes() == initial_; }
  /// True when every byte the view does not address (gaps, tail) equals its uploaded value.
  bool outside_view_untouched() const;

 private:
  void init(Fill fill, std::span<const double> values, aclFormat format, int64_t storage_numel);
  void release();

  std::vector<int64_t> dims_;
  std::vector<int64_t> strides_;
  int64_t offset_ = 0;
  aclDataType dtype_ = ACL_FLOAT;
  size_t bytes_ = 0;  ///< storage + tail
  void* device_ = nullptr;
  aclTensor* tensor_ = nullptr;
  std::vector<uint8_t> initial_;
};

/// A device buffer (workspace) with a canary tail.
class DeviceBuffer {
 public:
  DeviceBuffer(size_t bytes, uint8_t fill_byte);
  /// Fills the first `bytes` bytes with a repeated 8-byte pattern instead.
  DeviceBuffer(size_t bytes, uint64_t pattern);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* data() const { return device_; }
  /// True when the tail after the first `used` bytes is unchanged.
  bool tail_untouched(size_t used) const;

 private:
  size_t bytes_ = 0;
  void* device_ = nullptr;
  std::vector<uint8_t> initial_;
};

/// Owns an aclBoolArray.
class BoolArray {
 public:
  explicit BoolArray(std::vector<bool> values);
  ~BoolArray();
  BoolArray(const BoolArray&) = delete;
  BoolArray& operator=(const BoolArray&) = delete;
  aclBoolArray* get() const { return array_; }

 private:
  aclBoolArray* array_ = nullptr;
};

}  // namespace gradconf::testing

#endif  // GRADCONF_TESTS_SUPPORT_DEVICE_TENSOR_H_
