// The host runtime shim (acl/acl.h, spec README §1).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "acl/acl.h"

namespace {

TEST(AclRuntime, init_device_and_finalize) {
  EXPECT_EQ(aclInit(nullptr), ACL_SUCCESS);
  EXPECT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  EXPECT_NE(aclrtSetDevice(1), ACL_SUCCESS);  // one host "device"
  EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

TEST(AclRuntime, malloc_is_cache_line_aligned) {
  std::vector<void*> blocks;
  for (size_t size : {1u, 3u, 31u, 32u, 33u, 100u, 4096u, 100000u, 3u << 20}) {
    for (int repeat = 0; repeat < 8; ++repeat) {
      void* p = nullptr;
      ASSERT_EQ(aclrtMalloc(&p, size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS) << size;
      ASSERT_NE(p, nullptr);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u) << size;
      if (size >= (2u << 20)) EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % (2u << 20), 0u) << size;
      std::memset(p, 0xAB, size);  // the whole requested size is usable (ASan checks)
      blocks.push_back(p);
    }
  }
  for (void* p : blocks) EXPECT_EQ(aclrtFree(p), ACL_SUCCESS);
  EXPECT_NE(aclrtMalloc(nullptr, 16, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
}

// acl.h: "size 0 is rejected as on the device runtime".
TEST(AclRuntime, malloc_of_size_zero_is_rejected_as_documented) {
  void* p = nullptr;
  const aclError error = aclrtMalloc(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST);
  EXPECT_NE(error, ACL_SUCCESS) << "acl.h documents aclrtMalloc(size 0) as rejected";
  if (error == ACL_SUCCESS) aclrtFree(p);
}

TEST(AclRuntime, malloc_of_an_impossible_size_fails) {
  void* p = reinterpret_cast<void*>(0x1);
  EXPECT_NE(aclrtMalloc(&p, SIZE_MAX - 3, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
}

TEST(AclRuntime, memcpy_copies_and_refuses_count_above_dest_max) {
  uint8_t src[16], dst[16];
  for (int i = 0; i < 16; ++i) src[i] = static_cast<uint8_t>(i + 1);
  std::memset(dst, 0xEE, sizeof dst);
  EXPECT_NE(aclrtMemcpy(dst, 8, src, 9, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  for (uint8_t b : dst) EXPECT_EQ(b, 0xEE) << "a refused copy wrote";
  EXPECT_EQ(aclrtMemcpy(dst, 8, src, 8, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(dst[i], i + 1);
  for (int i = 8; i < 16; ++i) EXPECT_EQ(dst[i], 0xEE);
  for (auto kind :
       {ACL_MEMCPY_HOST_TO_HOST, ACL_MEMCPY_DEVICE_TO_HOST, ACL_MEMCPY_DEVICE_TO_DEVICE}) {
    EXPECT_EQ(aclrtMemcpy(dst, 16, src, 16, kind), ACL_SUCCESS);
  }
  EXPECT_EQ(std::memcmp(dst, src, 16), 0);
  EXPECT_NE(aclrtMemcpy(dst, 16, src, 4, static_cast<aclrtMemcpyKind>(7)), ACL_SUCCESS);
  EXPECT_NE(aclrtMemcpy(nullptr, 16, src, 4, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  EXPECT_EQ(aclrtMemcpy(dst, 0, src, 0, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
}

TEST(AclRuntime, memset_fills_and_refuses_count_above_max) {
  uint8_t buffer[8];
  std::memset(buffer, 0, sizeof buffer);
  EXPECT_NE(aclrtMemset(buffer, 4, 0x5A, 5), ACL_SUCCESS);
  for (uint8_t b : buffer) EXPECT_EQ(b, 0);
  EXPECT_EQ(aclrtMemset(buffer, 8, 0x5A, 4), ACL_SUCCESS);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(buffer[i], i < 4 ? 0x5A : 0);
}

TEST(AclRuntime, streams_create_synchronize_destroy) {
  aclrtStream a = nullptr, b = nullptr;
  ASSERT_EQ(aclrtCreateStream(&a), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateStream(&b), ACL_SUCCESS);
  EXPECT_NE(a, nullptr);
  EXPECT_NE(a, b);
  EXPECT_EQ(aclrtSynchronizeStream(a), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(b), ACL_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);  // the default stream
  EXPECT_EQ(aclrtDestroyStream(a), ACL_SUCCESS);
  EXPECT_NE(aclrtDestroyStream(a), ACL_SUCCESS);      // already destroyed
  EXPECT_NE(aclrtSynchronizeStream(a), ACL_SUCCESS);  // stale handle
  EXPECT_EQ(aclrtSynchronizeStream(b), ACL_SUCCESS);
  EXPECT_EQ(aclrtDestroyStream(b), ACL_SUCCESS);
  EXPECT_NE(aclrtCreateStream(nullptr), ACL_SUCCESS);
}

}  // namespace
