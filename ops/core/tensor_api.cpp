// The extern "C" tensor and array API over core/tensor.h (backend side).
#include <utility>

#include "core/tensor.h"

extern "C" {

aclTensor* aclCreateTensor(const int64_t* viewDims, uint64_t viewDimsNum, aclDataType dataType,
                           const int64_t* stride, int64_t offset, aclFormat format,
                           const int64_t* storageDims, uint64_t storageDimsNum, void* tensorData) {
  auto tensor = gradconf::make_tensor(viewDims, viewDimsNum, dataType, stride, offset, format,
                                      storageDims, storageDimsNum, tensorData);
  return tensor ? new aclTensor(std::move(*tensor)) : nullptr;
}

aclIntArray* aclCreateIntArray(const int64_t* value, uint64_t size) {
  if (size > 0 && value == nullptr) return nullptr;
  return new aclIntArray{std::vector<int64_t>(value, value + size)};
}

aclBoolArray* aclCreateBoolArray(const bool* value, uint64_t size) {
  if (size > 0 && value == nullptr) return nullptr;
  return new aclBoolArray{std::vector<bool>(value, value + size)};
}

aclnnStatus aclDestroyTensor(const aclTensor* tensor) {
  delete tensor;
  return ACLNN_SUCCESS;
}

aclnnStatus aclDestroyIntArray(const aclIntArray* array) {
  delete array;
  return ACLNN_SUCCESS;
}

aclnnStatus aclDestroyBoolArray(const aclBoolArray* array) {
  delete array;
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetViewShape(const aclTensor* tensor, int64_t** viewDims, uint64_t* viewDimsNum) {
  if (!tensor || !viewDims || !viewDimsNum) return ACLNN_ERR_PARAM_NULLPTR;
  *viewDims = const_cast<int64_t*>(tensor->view_dims.data());
  *viewDimsNum = tensor->view_dims.size();
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetStorageShape(const aclTensor* tensor, int64_t** storageDims,
                               uint64_t* storageDimsNum) {
  if (!tensor || !storageDims || !storageDimsNum) return ACLNN_ERR_PARAM_NULLPTR;
  *storageDims = const_cast<int64_t*>(tensor->storage_dims.data());
  *storageDimsNum = tensor->storage_dims.size();
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetViewStrides(const aclTensor* tensor, int64_t** stridesValue,
                              uint64_t* stridesNum) {
  if (!tensor || !stridesValue || !stridesNum) return ACLNN_ERR_PARAM_NULLPTR;
  *stridesValue = const_cast<int64_t*>(tensor->strides.data());
  *stridesNum = tensor->strides.size();
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetViewOffset(const aclTensor* tensor, int64_t* offset) {
  if (!tensor || !offset) return ACLNN_ERR_PARAM_NULLPTR;
  *offset = tensor->offset;
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetFormat(const aclTensor* tensor, aclFormat* format) {
  if (!tensor || !format) return ACLNN_ERR_PARAM_NULLPTR;
  *format = tensor->format;
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetDataType(const aclTensor* tensor, aclDataType* dataType) {
  if (!tensor || !dataType) return ACLNN_ERR_PARAM_NULLPTR;
  *dataType = tensor->dtype;
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetIntArraySize(const aclIntArray* array, uint64_t* size) {
  if (!array || !size) return ACLNN_ERR_PARAM_NULLPTR;
  *size = array->values.size();
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetBoolArraySize(const aclBoolArray* array, uint64_t* size) {
  if (!array || !size) return ACLNN_ERR_PARAM_NULLPTR;
  *size = array->values.size();
  return ACLNN_SUCCESS;
}

}  // extern "C"
