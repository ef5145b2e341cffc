// Host "device runtime": see acl/acl.h. Device memory is aligned host memory; streams are tokens
// because phase 2 completes before it returns.
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_set>

#include <sys/mman.h>

#include "acl/acl.h"
#include "core/fork_safe.h"

namespace {
// A cache line: rows of tensors then start on a line, as PyTorch's CPU allocator places them
// (64 bytes); the device runtime's own 32-byte rule is the lesser guarantee.
constexpr size_t kDeviceAlignment = 64;
// Huge-page blocks: from this size on, a HUGE policy gets 2 MiB alignment and the advice.
constexpr size_t kHugePage = size_t{2} << 20;

struct Streams {
  gradconf::ForkSafeMutex mutex;
  std::unordered_set<aclrtStream> live;
  uintptr_t next = 0x5000;
};

Streams& streams() {
  static Streams* instance = new Streams;
  return *instance;
}
[[maybe_unused]] const Streams& streams_at_load = streams();  // fork_safe.h: created at load
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

aclError aclrtMalloc(void** devPtr, size_t size, aclrtMemMallocPolicy policy) {
  // The device runtime refuses zero-byte blocks; code that runs here must run there too.
  if (devPtr == nullptr || size == 0) return ACL_ERROR_INVALID_PARAM;
  // The kernels read value rows at random: with 4 KiB pages a (batch, head) slice of a large
  // tensor spans more pages than the TLB holds. Huge pages are advice (transparent huge pages
  // may be off), so HUGE_ONLY is served like HUGE_FIRST.
  const bool huge = policy != ACL_MEM_MALLOC_NORMAL_ONLY && size >= kHugePage;
  const size_t alignment = huge ? kHugePage : kDeviceAlignment;
  const size_t rounded = (size + alignment - 1) / alignment * alignment;
  if (rounded < size) return ACL_ERROR_BAD_ALLOC;
  void* p = std::aligned_alloc(alignment, rounded);
  if (p == nullptr) return ACL_ERROR_BAD_ALLOC;
  if (huge) madvise(p, rounded, MADV_HUGEPAGE);
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
