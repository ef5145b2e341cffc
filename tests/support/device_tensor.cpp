#include "support/device_tensor.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <utility>

#include "core/dtype.h"
#include "harness/harness.h"

namespace gradconf::testing {

namespace {
// Bytes per element for storage; dtypes the project does not know (e.g. ACL_DT_UNDEFINED, used
// by validation tests) get 8 so that their storage still exists.
int64_t storage_element_size(aclDataType dtype) {
  const int64_t size = gradconf::element_size(dtype);
  return size > 0 ? size : 8;
}

void check_acl(aclError error, const char* what) {
  if (error != ACL_SUCCESS) {
    throw std::runtime_error(std::string(what) + " failed with " + std::to_string(error));
  }
}
}  // namespace

int64_t numel(std::span<const int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

std::vector<int64_t> view_offsets(std::span<const int64_t> dims, std::span<const int64_t> strides,
                                  int64_t offset) {
  const int64_t count = numel(dims);
  std::vector<int64_t> offsets;
  if (count <= 0) return offsets;
  offsets.reserve(static_cast<size_t>(count));
  std::vector<int64_t> index(dims.size(), 0);
  for (int64_t n = 0; n < count; ++n) {
    int64_t o = offset;
    for (size_t d = 0; d < dims.size(); ++d) o += index[d] * strides[d];
    offsets.push_back(o);
    for (size_t d = dims.size(); d-- > 0;) {
      if (++index[d] < dims[d]) break;
      index[d] = 0;
    }
  }
  return offsets;
}

DeviceTensor::DeviceTensor(std::vector<int64_t> dims, aclDataType dtype,
                           const gradconf::LayoutSpec& layout, Fill fill,
                           std::span<const double> values, aclFormat format)
    : dims_(std::move(dims)), dtype_(dtype) {
  const auto geometry = gradconf::make_geometry(dims_, layout);
  if (!geometry) throw std::runtime_error("make_geometry rejected the layout");
  strides_ = geometry->strides;
  offset_ = geometry->offset;
  init(fill, values, format, geometry->storage_numel);
}

DeviceTensor::DeviceTensor(std::vector<int64_t> dims, aclDataType dtype,
                           std::vector<int64_t> strides, int64_t offset, Fill fill,
                           std::span<const double> values, aclFormat format)
    : dims_(std::move(dims)), strides_(std::move(strides)), offset_(offset), dtype_(dtype) {
  if (strides_.size() != dims_.size()) throw std::runtime_error("strides do not match the rank");
  int64_t last = offset_;
  bool empty = false;
  for (size_t d = 0; d < dims_.size(); ++d) {
    if (dims_[d] == 0) empty = true;
    if (dims_[d] > 0) last += (dims_[d] - 1) * strides_[d];
  }
  init(fill, values, format, empty ? std::max<int64_t>(offset_, 1) : last + 1);
}

void DeviceTensor::init(Fill fill, std::span<const double> values, aclFormat format,
                        int64_t storage_numel) {
  const int64_t esize = storage_element_size(dtype_);
  const size_t storage_bytes = static_cast<size_t>(storage_numel * esize);
  bytes_ = storage_bytes + kCanaryTailBytes;
  initial_.assign(bytes_, kCanaryByte);
  const bool floating = gradconf::is_floating(dtype_);
  if (fill == Fill::kInput && floating) {
    const std::vector<double> nans(static_cast<size_t>(storage_numel),
                                   std::numeric_limits<double>::quiet_NaN());
    const std::vector<uint8_t> bytes = props::encode(dtype_, nans);
    std::copy(bytes.begin(), bytes.end(), initial_.begin());
  }
  const auto offsets = view_offsets(dims_, strides_, offset_);
  if (fill == Fill::kInput && !values.empty()) {
    if (values.size() != offsets.size()) throw std::runtime_error("DeviceTensor: value count");
    if (!floating) throw std::runtime_error("DeviceTensor: values for a non-floating dtype");
    const std::vector<uint8_t> bytes = props::encode(dtype_, values);
    for (size_t i = 0; i < offsets.size(); ++i) {
      std::memcpy(initial_.data() + offsets[i] * esize, bytes.data() + i * esize,
                  static_cast<size_t>(esize));
    }
  }
  check_acl(aclrtMalloc(&device_, bytes_, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
  check_acl(aclrtMemcpy(device_, bytes_, initial_.data(), bytes_, ACL_MEMCPY_HOST_TO_DEVICE),
            "aclrtMemcpy");
  const std::vector<int64_t> storage_dims = {storage_numel};
  tensor_ = aclCreateTensor(dims_.data(), dims_.size(), dtype_, strides_.data(), offset_, format,
                            storage_dims.data(), storage_dims.size(), device_);
  if (tensor_ == nullptr) throw std::runtime_error("aclCreateTensor returned nullptr");
}

void DeviceTensor::release() {
  if (tensor_) aclDestroyTensor(tensor_);
  if (device_) aclrtFree(device_);
  tensor_ = nullptr;
  device_ = nullptr;
}

DeviceTensor::~DeviceTensor() { release(); }

void DeviceTensor::destroy_handle() {
  if (tensor_) aclDestroyTensor(tensor_);
  tensor_ = nullptr;
}

DeviceTensor::DeviceTensor(DeviceTensor&& other) noexcept { *this = std::move(other); }

DeviceTensor& DeviceTensor::operator=(DeviceTensor&& other) noexcept {
  if (this != &other) {
    release();
    dims_ = std::move(other.dims_);
    strides_ = std::move(other.strides_);
    offset_ = other.offset_;
    dtype_ = other.dtype_;
    bytes_ = other.bytes_;
    device_ = std::exchange(other.device_, nullptr);
    tensor_ = std::exchange(other.tensor_, nullptr);
    initial_ = std::move(other.initial_);
  }
  return *this;
}

std::vector<uint8_t> DeviceTensor::storage_bytes() const {
  std::vector<uint8_t> host(bytes_);
  check_acl(aclrtMemcpy(host.data(), host.size(), device_, bytes_, ACL_MEMCPY_DEVICE_TO_HOST),
            "aclrtMemcpy");
  return host;
}

std::vector<double> DeviceTensor::values() const {
  const auto host = storage_bytes();
  const int64_t esize = storage_element_size(dtype_);
  std::vector<uint8_t> gathered;
  for (int64_t o : view_offsets(dims_, strides_, offset_)) {
    gathered.insert(gathered.end(), host.begin() + o * esize, host.begin() + (o + 1) * esize);
  }
  return props::decode(dtype_, gathered);
}

bool DeviceTensor::outside_view_untouched() const {
  auto host = storage_bytes();
  const int64_t esize = storage_element_size(dtype_);
  // Neutralize the viewed elements, then the rest must be byte-identical.
  auto expected = initial_;
  for (int64_t o : view_offsets(dims_, strides_, offset_)) {
    std::memset(host.data() + o * esize, 0, static_cast<size_t>(esize));
    std::memset(expected.data() + o * esize, 0, static_cast<size_t>(esize));
  }
  return host == expected;
}

DeviceBuffer::DeviceBuffer(size_t bytes, uint8_t fill_byte) : bytes_(bytes + kCanaryTailBytes) {
  initial_.assign(bytes_, fill_byte);
  std::memset(initial_.data() + bytes, kCanaryByte, kCanaryTailBytes);
  check_acl(aclrtMalloc(&device_, bytes_, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
  check_acl(aclrtMemcpy(device_, bytes_, initial_.data(), bytes_, ACL_MEMCPY_HOST_TO_DEVICE),
            "aclrtMemcpy");
}

DeviceBuffer::DeviceBuffer(size_t bytes, uint64_t pattern) : bytes_(bytes + kCanaryTailBytes) {
  initial_.assign(bytes_, kCanaryByte);
  for (size_t i = 0; i < bytes; ++i) initial_[i] = static_cast<uint8_t>(pattern >> (8 * (i % 8)));
  check_acl(aclrtMalloc(&device_, bytes_, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
  check_acl(aclrtMemcpy(device_, bytes_, initial_.data(), bytes_, ACL_MEMCPY_HOST_TO_DEVICE),
            "aclrtMemcpy");
}

DeviceBuffer::~DeviceBuffer() { aclrtFree(device_); }

bool DeviceBuffer::tail_untouched(size_t used) const {
  std::vector<uint8_t> host(bytes_);
  check_acl(aclrtMemcpy(host.data(), host.size(), device_, bytes_, ACL_MEMCPY_DEVICE_TO_HOST),
            "aclrtMemcpy");
  return std::equal(host.begin() + static_cast<std::ptrdiff_t>(used), host.end(),
                    initial_.begin() + static_cast<std::ptrdiff_t>(used));
}

BoolArray::BoolArray(std::vector<bool> values) {
  bool raw[16] = {};
  if (values.size() > 16) throw std::runtime_error("BoolArray: too many values");
  for (size_t i = 0; i < values.size(); ++i) raw[i] = values[i];
  array_ = aclCreateBoolArray(raw, values.size());
  if (array_ == nullptr) throw std::runtime_error("aclCreateBoolArray returned nullptr");
}

BoolArray::~BoolArray() { aclDestroyBoolArray(array_); }

}  // namespace gradconf::testing
