// aclCreateTensor / arrays / accessors (spec README §3, acl_meta.h).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "aclnn/acl_meta.h"
#include "core/tensor.h"

namespace {

// Storage big enough for every view below; aclCreateTensor never dereferences it.
alignas(64) float g_storage[1024];

struct Args {
  std::vector<int64_t> dims;
  std::vector<int64_t> strides;
  int64_t offset = 0;
  std::vector<int64_t> storage;
  void* data = g_storage;
  aclDataType dtype = ACL_FLOAT;
};

aclTensor* create(const Args& a) {
  return aclCreateTensor(a.dims.data(), a.dims.size(), a.dtype, a.strides.data(), a.offset,
                         ACL_FORMAT_ND, a.storage.data(), a.storage.size(), a.data);
}

// Creates, expects success, destroys.
void expect_accepted(const Args& a) {
  aclTensor* t = create(a);
  EXPECT_NE(t, nullptr);
  if (t) {
    EXPECT_EQ(aclDestroyTensor(t), ACLNN_SUCCESS);
  }
}

void expect_rejected(const Args& a) {
  aclTensor* t = create(a);
  EXPECT_EQ(t, nullptr);
  if (t) aclDestroyTensor(t);
}

const Args kValid = {{2, 3}, {3, 1}, 0, {6}};

TEST(AclCreateTensor, valid_contiguous_view_is_accepted) { expect_accepted(kValid); }

TEST(AclCreateTensor, rejects_negative_dim) {
  Args a = kValid;
  a.dims = {2, -1};
  expect_rejected(a);
  a.dims = {-2, 3};
  expect_rejected(a);
}

TEST(AclCreateTensor, rejects_negative_stride) {
  Args a = kValid;
  a.strides = {3, -1};
  a.offset = 2;  // the view would still stay inside the storage
  expect_rejected(a);
  a.strides = {-3, 1};
  a.offset = 3;
  expect_rejected(a);
}

TEST(AclCreateTensor, rejects_negative_offset) {
  Args a = kValid;
  a.storage = {12};
  a.offset = -1;
  expect_rejected(a);
  a.offset = 0;
  expect_accepted(a);
}

TEST(AclCreateTensor, rejects_view_one_element_past_storage) {
  Args a = kValid;  // last element at offset 5
  a.storage = {5};
  expect_rejected(a);
  a.storage = {6};
  expect_accepted(a);
  a.offset = 1;  // last element at offset 6
  expect_rejected(a);
  a.storage = {7};
  expect_accepted(a);
  // Padded strides: last element at 1*4 + 2*1 = 6.
  Args padded = {{2, 3}, {4, 1}, 0, {6}};
  expect_rejected(padded);
  padded.storage = {7};
  expect_accepted(padded);
  // Multi-dimensional storage counts its product.
  Args nd = {{2, 3}, {3, 1}, 0, {2, 2}};
  expect_rejected(nd);
  nd.storage = {2, 3};
  expect_accepted(nd);
}

TEST(AclCreateTensor, rejects_element_count_overflowing_int64) {
  const int64_t big = int64_t{1} << 32;
  Args a = {{big, big}, {0, 0}, 0, {1}};  // 2^64 elements, all zero strides
  expect_rejected(a);
  Args b = {{int64_t{1} << 62, 2}, {0, 0}, 0, {1}};  // 2^63 elements
  expect_rejected(b);
  Args c = {{int64_t{1} << 62, 1}, {0, 0}, 0, {1}};  // 2^62 elements fit
  expect_accepted(c);
  Args storage = {{1}, {1}, 0, {big, big}};  // storage count overflows
  expect_rejected(storage);
}

TEST(AclCreateTensor, rejects_rank_above_eight) {
  Args a;
  a.dims.assign(9, 1);
  a.strides.assign(9, 1);
  a.storage = {1};
  expect_rejected(a);
  a.dims.assign(8, 1);
  a.strides.assign(8, 1);
  expect_accepted(a);
  Args storage_rank = {{1}, {1}, 0, std::vector<int64_t>(9, 1)};
  expect_rejected(storage_rank);
}

TEST(AclCreateTensor, rejects_null_dims_with_positive_count) {
  const int64_t strides[2] = {3, 1};
  const int64_t storage[1] = {6};
  EXPECT_EQ(
      aclCreateTensor(nullptr, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, storage, 1, g_storage),
      nullptr);
  const int64_t dims[2] = {2, 3};
  EXPECT_EQ(aclCreateTensor(dims, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, nullptr, 1, g_storage),
            nullptr);
}

TEST(AclCreateTensor, rejects_null_data_with_nonempty_view) {
  Args a = kValid;
  a.data = nullptr;
  expect_rejected(a);
}

TEST(AclCreateTensor, accepts_empty_view_with_null_data) {
  Args a = {{0, 3}, {3, 1}, 0, {0}, nullptr};
  expect_accepted(a);
  Args b = {{2, 0}, {1, 1}, 0, {0}, nullptr};
  expect_accepted(b);
}

TEST(AclCreateTensor, accepts_zero_strides) {
  Args a = {{2, 3}, {0, 0}, 0, {1}};
  expect_accepted(a);
  Args b = {{4, 3}, {0, 1}, 0, {3}};
  expect_accepted(b);
}

TEST(AclCreateTensor, accepts_storage_larger_than_view) {
  Args a = kValid;
  a.storage = {100};
  a.offset = 17;
  expect_accepted(a);
}

TEST(AclCreateTensor, accessors_round_trip) {
  const int64_t dims[4] = {2, 3, 4, 5};
  const int64_t strides[4] = {1, 2, 6, 24};
  const int64_t storage[2] = {7, 30};
  aclTensor* t =
      aclCreateTensor(dims, 4, ACL_BF16, strides, 9, ACL_FORMAT_NHWC, storage, 2, g_storage);
  ASSERT_NE(t, nullptr);
  int64_t* got = nullptr;
  uint64_t n = 0;
  ASSERT_EQ(aclGetViewShape(t, &got, &n), ACLNN_SUCCESS);
  EXPECT_EQ(std::vector<int64_t>(got, got + n), std::vector<int64_t>(dims, dims + 4));
  ASSERT_EQ(aclGetViewStrides(t, &got, &n), ACLNN_SUCCESS);
  EXPECT_EQ(std::vector<int64_t>(got, got + n), std::vector<int64_t>(strides, strides + 4));
  ASSERT_EQ(aclGetStorageShape(t, &got, &n), ACLNN_SUCCESS);
  EXPECT_EQ(std::vector<int64_t>(got, got + n), std::vector<int64_t>(storage, storage + 2));
  int64_t offset = -1;
  ASSERT_EQ(aclGetViewOffset(t, &offset), ACLNN_SUCCESS);
  EXPECT_EQ(offset, 9);
  aclFormat format = ACL_FORMAT_UNDEFINED;
  ASSERT_EQ(aclGetFormat(t, &format), ACLNN_SUCCESS);
  EXPECT_EQ(format, ACL_FORMAT_NHWC);
  aclDataType dtype = ACL_DT_UNDEFINED;
  ASSERT_EQ(aclGetDataType(t, &dtype), ACLNN_SUCCESS);
  EXPECT_EQ(dtype, ACL_BF16);
  // Null arguments are reported, not dereferenced.
  EXPECT_EQ(aclGetViewShape(nullptr, &got, &n), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetViewShape(t, nullptr, &n), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetViewOffset(t, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclGetDataType(nullptr, &dtype), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclDestroyTensor(t), ACLNN_SUCCESS);
}

TEST(AclCreateTensor, copies_its_shape_arrays) {
  int64_t dims[2] = {2, 3};
  int64_t strides[2] = {3, 1};
  int64_t storage[1] = {6};
  aclTensor* t =
      aclCreateTensor(dims, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, storage, 1, g_storage);
  ASSERT_NE(t, nullptr);
  dims[0] = 99;
  strides[0] = 99;
  storage[0] = 99;
  int64_t* got = nullptr;
  uint64_t n = 0;
  ASSERT_EQ(aclGetViewShape(t, &got, &n), ACLNN_SUCCESS);
  EXPECT_EQ(std::vector<int64_t>(got, got + n), (std::vector<int64_t>{2, 3}));
  ASSERT_EQ(aclGetViewStrides(t, &got, &n), ACLNN_SUCCESS);
  EXPECT_EQ(std::vector<int64_t>(got, got + n), (std::vector<int64_t>{3, 1}));
  ASSERT_EQ(aclGetStorageShape(t, &got, &n), ACLNN_SUCCESS);
  EXPECT_EQ(std::vector<int64_t>(got, got + n), (std::vector<int64_t>{6}));
  aclDestroyTensor(t);
}

TEST(AclCreateBoolArray, copies_its_values) {
  bool values[3] = {true, false, true};
  aclBoolArray* a = aclCreateBoolArray(values, 3);
  ASSERT_NE(a, nullptr);
  values[0] = false;
  values[1] = true;
  uint64_t size = 0;
  ASSERT_EQ(aclGetBoolArraySize(a, &size), ACLNN_SUCCESS);
  EXPECT_EQ(size, 3u);
  EXPECT_EQ(a->values, (std::vector<bool>{true, false, true}));
  EXPECT_EQ(aclDestroyBoolArray(a), ACLNN_SUCCESS);
  EXPECT_EQ(aclCreateBoolArray(nullptr, 2), nullptr);
  aclBoolArray* empty = aclCreateBoolArray(nullptr, 0);
  ASSERT_NE(empty, nullptr);
  ASSERT_EQ(aclGetBoolArraySize(empty, &size), ACLNN_SUCCESS);
  EXPECT_EQ(size, 0u);
  aclDestroyBoolArray(empty);
}

TEST(AclCreateIntArray, copies_its_values) {
  int64_t values[4] = {-5, 0, 7, std::numeric_limits<int64_t>::max()};
  aclIntArray* a = aclCreateIntArray(values, 4);
  ASSERT_NE(a, nullptr);
  values[2] = 123;
  uint64_t size = 0;
  ASSERT_EQ(aclGetIntArraySize(a, &size), ACLNN_SUCCESS);
  EXPECT_EQ(size, 4u);
  EXPECT_EQ(a->values, (std::vector<int64_t>{-5, 0, 7, std::numeric_limits<int64_t>::max()}));
  EXPECT_EQ(aclDestroyIntArray(a), ACLNN_SUCCESS);
  EXPECT_EQ(aclCreateIntArray(nullptr, 1), nullptr);
  EXPECT_EQ(aclGetIntArraySize(nullptr, &size), ACLNN_ERR_PARAM_NULLPTR);
}

// has_overlap decides GS-OUT-01; its exact (bitmap) path must agree with a brute force check.
TEST(HasOverlap, agrees_with_brute_force_on_small_views) {
  float storage[64];
  for (int64_t d0 = 1; d0 <= 3; ++d0) {
    for (int64_t d1 = 1; d1 <= 3; ++d1) {
      for (int64_t s0 = 0; s0 <= 4; ++s0) {
        for (int64_t s1 = 0; s1 <= 4; ++s1) {
          const int64_t dims[2] = {d0, d1}, strides[2] = {s0, s1}, st[1] = {64};
          aclTensor* t =
              aclCreateTensor(dims, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, st, 1, storage);
          ASSERT_NE(t, nullptr);
          std::vector<int> hits(64, 0);
          bool overlap = false;
          for (int64_t i = 0; i < d0; ++i) {
            for (int64_t j = 0; j < d1; ++j) overlap |= ++hits[i * s0 + j * s1] > 1;
          }
          EXPECT_EQ(gradconf::has_overlap(*t), overlap)
              << "dims [" << d0 << ", " << d1 << "] strides [" << s0 << ", " << s1 << "]";
          aclDestroyTensor(t);
        }
      }
    }
  }
}

// Three axes reach every path of overlap_of: nested axes merged, the closed-form pair test, and
// the enumeration left for three interleaved axes.
TEST(HasOverlap, agrees_with_brute_force_on_small_three_axis_views) {
  float storage[64];
  const int64_t st[1] = {64};
  int decided_by_enumeration = 0;
  for (int64_t shape = 0; shape < 4 * 4 * 4; ++shape) {
    const int64_t dims[3] = {1 + shape % 4, 1 + shape / 4 % 4, 1 + shape / 16};
    for (int64_t code = 0; code < 8 * 8 * 8; ++code) {
      const int64_t strides[3] = {code % 8, code / 8 % 8, code / 64};
      aclTensor* t = aclCreateTensor(dims, 3, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, st, 1, storage);
      ASSERT_NE(t, nullptr);
      std::vector<int> hits(64, 0);
      bool overlap = false;
      for (int64_t i = 0; i < dims[0]; ++i) {
        for (int64_t j = 0; j < dims[1]; ++j) {
          for (int64_t k = 0; k < dims[2]; ++k) {
            overlap |= ++hits[i * strides[0] + j * strides[1] + k * strides[2]] > 1;
          }
        }
      }
      ASSERT_EQ(gradconf::has_overlap(*t), overlap)
          << "dims [" << dims[0] << ", " << dims[1] << ", " << dims[2] << "] strides ["
          << strides[0] << ", " << strides[1] << ", " << strides[2] << "]";
      decided_by_enumeration += !overlap && dims[0] > 1 && dims[1] > 1 && dims[2] > 1;
      aclDestroyTensor(t);
    }
  }
  EXPECT_GT(decided_by_enumeration, 0);
}

// Found by fuzz_grid_sampler2d_backward_args: an empty view's offset and strides are not bounded
// by its storage (it addresses nothing), so neither the overlap check nor a kernel may do
// arithmetic with them.
TEST(AclCreateTensor, empty_view_with_wild_offset_and_strides_is_disjoint) {
  const int64_t dims[4] = {0, 5, 5, 2};
  const int64_t strides[4] = {1, int64_t{1} << 62, int64_t{1} << 62, 1};
  const int64_t storage[1] = {1};
  float data[1] = {};
  aclTensor* t = aclCreateTensor(dims, 4, ACL_FLOAT, strides, int64_t{1} << 61, ACL_FORMAT_ND,
                                 storage, 1, data);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(gradconf::overlap_of(*t), gradconf::Overlap::kDisjoint);
  aclDestroyTensor(t);
}

}  // namespace
