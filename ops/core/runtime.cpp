// Host "device runtime": see acl/acl.h. Device memory is aligned host memory; streams are tokens
// because phase 2 completes before it returns.
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_set>

#include "acl/acl.h"

namespace {
constexpr size_t kDeviceAlignment = 32;

struct Streams {
  std::mutex mutex;
  std::unordered_set<aclrtStream> live;
  uintptr_t next = 0x5000;
};

Streams& streams() {
  static Streams* instance = new Streams;
  return *instance;
}
}  // namespace

extern "C" {

aclError aclInit(const char*) { return ACL_SUCCESS; }
aclError aclFinalize(void) { return ACL_SUCCESS; }

aclError aclrtSetDevice(int32_t deviceId) {
  return deviceId == 0 ? ACL_SUCCESS : ACL_ERROR_INVALID_PARAM;  // one host "device"
}
aclError aclrtResetDevice(int32_t deviceId) { return aclrtSetDevice(deviceId); }

aclError aclrtCreateStream(aclrtStream* stream) {
  if (stream == nullptr) return ACL_ERROR_INVALID_PARAM;
  auto& s = streams();
  std::lock_guard lock(s.mutex);
  s.next += 16;
  *stream = reinterpret_cast<aclrtStream>(s.next);
  s.live.insert(*stream);
  return ACL_SUCCESS;
}

aclError aclrtDestroyStream(aclrtStream stream) {
  auto& s = streams();
  std::lock_guard lock(s.mutex);
  return s.live.erase(stream) ? ACL_SUCCESS : ACL_ERROR_INVALID_PARAM;
}

aclError aclrtSynchronizeStream(aclrtStream stream) {
  if (stream == nullptr) return ACL_SUCCESS;  // the default stream
  auto& s = streams();
  std::lock_guard lock(s.mutex);
  return s.live.count(stream) ? ACL_SUCCESS : ACL_ERROR_INVALID_PARAM;
}

aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy) {
  // The device runtime refuses zero-byte blocks; code that runs here must run there too.
  if (devPtr == nullptr || size == 0) return ACL_ERROR_INVALID_PARAM;
  const size_t rounded = (size + kDeviceAlignment - 1) / kDeviceAlignment * kDeviceAlignment;
  if (rounded < size) return ACL_ERROR_BAD_ALLOC;
  void* p = std::aligned_alloc(kDeviceAlignment, rounded);
  if (p == nullptr) return ACL_ERROR_BAD_ALLOC;
  *devPtr = p;
  return ACL_SUCCESS;
}

aclError aclrtFree(void* devPtr) {
  std::free(devPtr);
  return ACL_SUCCESS;
}

aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count,
                     aclrtMemcpyKind kind) {
  if (kind < ACL_MEMCPY_HOST_TO_HOST || kind > ACL_MEMCPY_DEVICE_TO_DEVICE) {
    return ACL_ERROR_INVALID_PARAM;
  }
  if (count > destMax) return ACL_ERROR_INVALID_PARAM;
  if (count == 0) return ACL_SUCCESS;
  if (dst == nullptr || src == nullptr) return ACL_ERROR_INVALID_PARAM;
  std::memmove(dst, src, count);
  return ACL_SUCCESS;
}

aclError aclrtMemset(void* devPtr, size_t maxCount, int32_t value, size_t count) {
  if (count > maxCount) return ACL_ERROR_INVALID_PARAM;
  if (count == 0) return ACL_SUCCESS;
  if (devPtr == nullptr) return ACL_ERROR_INVALID_PARAM;
  std::memset(devPtr, value, count);
  return ACL_SUCCESS;
}

}  // extern "C"
