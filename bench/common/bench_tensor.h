// Contiguous device tensors for the per-op benchmarks, built once through the public C API
// (aclrtMalloc, aclrtMemcpy, aclCreateTensor) from double values converted to the dtype, and
// random values of a fixed seed.
#ifndef GRADCONF_BENCH_COMMON_BENCH_TENSOR_H_
#define GRADCONF_BENCH_COMMON_BENCH_TENSOR_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "acl/acl.h"
#include "core/dtype.h"

namespace gradconf::bench {

class BenchTensor {
 public:
  /// Values beyond `values.size()` are 0.
  BenchTensor(std::vector<int64_t> dims, aclDataType dtype, const std::vector<double>& values) {
    int64_t count = 1;
    for (int64_t d : dims) count *= d;
    const int64_t esize = element_size(dtype);
    bytes_ = static_cast<size_t>(count * esize);
    aclrtMalloc(&data_, std::max<size_t>(bytes_, 1), ACL_MEM_MALLOC_HUGE_FIRST);
    std::vector<uint8_t> host(bytes_);
    for (int64_t i = 0; i < count; ++i) {
      const double v = i < static_cast<int64_t>(values.size()) ? values[static_cast<size_t>(i)] : 0;
      store(dtype, v, host.data() + i * esize);
    }
    aclrtMemcpy(data_, bytes_, host.data(), bytes_, ACL_MEMCPY_HOST_TO_DEVICE);
    std::vector<int64_t> strides(dims.size(), 1);
    for (size_t d = dims.size(); d-- > 1;) strides[d - 1] = strides[d] * dims[d];
    tensor_ = aclCreateTensor(dims.data(), dims.size(), dtype, strides.data(), 0, ACL_FORMAT_ND,
                              &count, 1, data_);
  }
  ~BenchTensor() {
    aclDestroyTensor(tensor_);
    aclrtFree(data_);
  }
  BenchTensor(const BenchTensor&) = delete;
  BenchTensor& operator=(const BenchTensor&) = delete;

  aclTensor* get() const { return tensor_; }
  size_t bytes() const { return bytes_; }

 private:
  static void store(aclDataType dtype, double v, uint8_t* out) {
    switch (dtype) {
      case ACL_FLOAT: {
        const float f = static_cast<float>(v);
        std::memcpy(out, &f, 4);
        break;
      }
      case ACL_DOUBLE:
        std::memcpy(out, &v, 8);
        break;
      case ACL_FLOAT16: {
        const half h(static_cast<float>(v));
        std::memcpy(out, &h, 2);
        break;
      }
      case ACL_BF16: {
        const bfloat16 b(static_cast<float>(v));
        std::memcpy(out, &b, 2);
        break;
      }
      case ACL_INT32: {
        const auto x = static_cast<int32_t>(v);
        std::memcpy(out, &x, 4);
        break;
      }
      case ACL_INT64: {
        const auto x = static_cast<int64_t>(v);
        std::memcpy(out, &x, 8);
        break;
      }
      default:
        break;
    }
  }

  void* data_ = nullptr;
  aclTensor* tensor_ = nullptr;
  size_t bytes_ = 0;
};

inline std::vector<double> uniform(int64_t n, double lo, double hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> v(static_cast<size_t>(n));
  for (double& x : v) x = dist(rng);
  return v;
}

}  // namespace gradconf::bench

#endif  // GRADCONF_BENCH_COMMON_BENCH_TENSOR_H_
