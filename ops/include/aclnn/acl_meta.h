// Public aclnn types and tensor API, with CANN's names and numeric values (spec README §1-§3).
#ifndef GRADCONF_ACLNN_ACL_META_H_
#define GRADCONF_ACLNN_ACL_META_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int32_t aclnnStatus;

#define ACLNN_SUCCESS 0
#define ACLNN_ERR_PARAM_NULLPTR 161001
#define ACLNN_ERR_PARAM_INVALID 161002
#define ACLNN_ERR_RUNTIME_ERROR 361001
#define ACLNN_ERR_INNER 561000

#ifndef ACL_ENUM_BASE
/* C callers can pass any int32 where an enum is expected; in C++ an int32 underlying type makes
   every such value a valid enum value, so validation can reject it without undefined behaviour. */
#ifdef __cplusplus
#define ACL_ENUM_BASE : int32_t
#else
#define ACL_ENUM_BASE
#endif
#endif

typedef enum ACL_ENUM_BASE {
  ACL_DT_UNDEFINED = -1,
  ACL_FLOAT = 0,
  ACL_FLOAT16 = 1,
  ACL_INT8 = 2,
  ACL_INT32 = 3,
  ACL_UINT8 = 4,
  ACL_INT16 = 6,
  ACL_UINT16 = 7,
  ACL_UINT32 = 8,
  ACL_INT64 = 9,
  ACL_UINT64 = 10,
  ACL_DOUBLE = 11,
  ACL_BOOL = 12,
  ACL_STRING = 13,
  ACL_COMPLEX64 = 16,
  ACL_COMPLEX128 = 17,
  ACL_BF16 = 27
} aclDataType;

typedef enum ACL_ENUM_BASE {
  ACL_FORMAT_UNDEFINED = -1,
  ACL_FORMAT_NCHW = 0,
  ACL_FORMAT_NHWC = 1,
  ACL_FORMAT_ND = 2,
  ACL_FORMAT_NC1HWC0 = 3,
  ACL_FORMAT_FRACTAL_Z = 4
} aclFormat;

typedef struct aclTensor aclTensor;
typedef struct aclIntArray aclIntArray;
typedef struct aclBoolArray aclBoolArray;
typedef struct aclOpExecutor aclOpExecutor;
typedef void* aclrtStream;

/// Creates a view over caller-owned storage. Strides and offset are in elements. Returns nullptr
/// when a dim/stride/offset is negative, a rank exceeds 8 or is inconsistent, the element count
/// overflows int64, or the view does not fit inside the storage.
aclTensor* aclCreateTensor(const int64_t* viewDims, uint64_t viewDimsNum, aclDataType dataType,
                           const int64_t* stride, int64_t offset, aclFormat format,
                           const int64_t* storageDims, uint64_t storageDimsNum, void* tensorData);
/// Copies `size` values; returns nullptr when value is null with size > 0.
aclIntArray* aclCreateIntArray(const int64_t* value, uint64_t size);
/// Copies `size` values; returns nullptr when value is null with size > 0.
aclBoolArray* aclCreateBoolArray(const bool* value, uint64_t size);

aclnnStatus aclDestroyTensor(const aclTensor* tensor);
aclnnStatus aclDestroyIntArray(const aclIntArray* array);
aclnnStatus aclDestroyBoolArray(const aclBoolArray* array);

/// The returned arrays are owned by the tensor and valid until it is destroyed.
aclnnStatus aclGetViewShape(const aclTensor* tensor, int64_t** viewDims, uint64_t* viewDimsNum);
aclnnStatus aclGetStorageShape(const aclTensor* tensor, int64_t** storageDims,
                               uint64_t* storageDimsNum);
aclnnStatus aclGetViewStrides(const aclTensor* tensor, int64_t** stridesValue,
                              uint64_t* stridesNum);
aclnnStatus aclGetViewOffset(const aclTensor* tensor, int64_t* offset);
aclnnStatus aclGetFormat(const aclTensor* tensor, aclFormat* format);
aclnnStatus aclGetDataType(const aclTensor* tensor, aclDataType* dataType);
aclnnStatus aclGetIntArraySize(const aclIntArray* array, uint64_t* size);
aclnnStatus aclGetBoolArraySize(const aclBoolArray* array, uint64_t* size);

/// Releases an executor that phase 1 returned but that was never run.
aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor* executor);

/// The message of the most recent failing call on this thread ("" if none). Valid until the
/// next aclnn call on this thread.
const char* aclGetRecentErrMsg(void);

#ifdef __cplusplus
}
#endif

#endif  // GRADCONF_ACLNN_ACL_META_H_
