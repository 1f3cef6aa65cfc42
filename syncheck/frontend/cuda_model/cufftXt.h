/* syncheck CUDA model header: the cuFFT extensions (multi-GPU descriptors, copies and the
   load/store callback types) on top of cufft.h. Host declarations only. */
#ifndef SYNCHECK_CUFFTXT_H
#define SYNCHECK_CUFFTXT_H
#include "cufft.h"
#define MAX_CUDA_DESCRIPTOR_GPUS 64
typedef enum cufftXtSubFormat_t {
  CUFFT_XT_FORMAT_INPUT = 0x00, CUFFT_XT_FORMAT_OUTPUT = 0x01, CUFFT_XT_FORMAT_INPLACE = 0x02,
  CUFFT_XT_FORMAT_INPLACE_SHUFFLED = 0x03, CUFFT_XT_FORMAT_1D_INPUT_SHUFFLED = 0x04,
  CUFFT_XT_FORMAT_DISTRIBUTED_INPUT = 0x05, CUFFT_XT_FORMAT_DISTRIBUTED_OUTPUT = 0x06,
  CUFFT_FORMAT_UNDEFINED = 0x07
} cufftXtSubFormat;
typedef enum cufftXtCopyType_t {
  CUFFT_COPY_HOST_TO_DEVICE = 0x00, CUFFT_COPY_DEVICE_TO_HOST = 0x01,
  CUFFT_COPY_DEVICE_TO_DEVICE = 0x02, CUFFT_COPY_UNDEFINED = 0x03
} cufftXtCopyType;
typedef enum cufftXtCallbackType_t {
  CUFFT_CB_LD_COMPLEX = 0x0, CUFFT_CB_LD_COMPLEX_DOUBLE = 0x1, CUFFT_CB_LD_REAL = 0x2,
  CUFFT_CB_LD_REAL_DOUBLE = 0x3, CUFFT_CB_ST_COMPLEX = 0x4, CUFFT_CB_ST_COMPLEX_DOUBLE = 0x5,
  CUFFT_CB_ST_REAL = 0x6, CUFFT_CB_ST_REAL_DOUBLE = 0x7, CUFFT_CB_UNDEFINED = 0x8
} cufftXtCallbackType;
typedef struct cudaXtDesc_t {
  int version;
  int nGPUs;
  int GPUs[MAX_CUDA_DESCRIPTOR_GPUS];
  void *data[MAX_CUDA_DESCRIPTOR_GPUS];
  size_t size[MAX_CUDA_DESCRIPTOR_GPUS];
  void *cudaXtState;
} cudaXtDesc;
typedef struct cudaLibXtDesc_t {
  int version;
  cudaXtDesc *descriptor;
  int library;
  int subFormat;
  void *libDescriptor;
} cudaLibXtDesc;
typedef cufftComplex (*cufftCallbackLoadC)(void *dataIn, size_t offset, void *callerInfo, void *sharedPointer);
typedef cufftDoubleComplex (*cufftCallbackLoadZ)(void *dataIn, size_t offset, void *callerInfo, void *sharedPointer);
typedef cufftReal (*cufftCallbackLoadR)(void *dataIn, size_t offset, void *callerInfo, void *sharedPointer);
typedef cufftDoubleReal (*cufftCallbackLoadD)(void *dataIn, size_t offset, void *callerInfo, void *sharedPointer);
typedef void (*cufftCallbackStoreC)(void *dataOut, size_t offset, cufftComplex element, void *callerInfo, void *sharedPointer);
typedef void (*cufftCallbackStoreZ)(void *dataOut, size_t offset, cufftDoubleComplex element, void *callerInfo, void *sharedPointer);
typedef void (*cufftCallbackStoreR)(void *dataOut, size_t offset, cufftReal element, void *callerInfo, void *sharedPointer);
typedef void (*cufftCallbackStoreD)(void *dataOut, size_t offset, cufftDoubleReal element, void *callerInfo, void *sharedPointer);
cufftResult cufftXtSetGPUs(cufftHandle handle, ...);
cufftResult cufftXtMalloc(cufftHandle plan, ...);
cufftResult cufftXtMemcpy(cufftHandle plan, ...);
cufftResult cufftXtFree(cudaLibXtDesc *descriptor);
cufftResult cufftXtSetWorkArea(cufftHandle plan, ...);
cufftResult cufftXtExecDescriptorC2C(cufftHandle plan, ...);
cufftResult cufftXtExecDescriptorR2C(cufftHandle plan, ...);
cufftResult cufftXtExecDescriptorC2R(cufftHandle plan, ...);
cufftResult cufftXtExecDescriptorZ2Z(cufftHandle plan, ...);
cufftResult cufftXtExecDescriptor(cufftHandle plan, ...);
cufftResult cufftXtSetCallback(cufftHandle plan, ...);
cufftResult cufftXtClearCallback(cufftHandle plan, ...);
cufftResult cufftXtSetCallbackSharedSize(cufftHandle plan, ...);
cufftResult cufftXtMakePlanMany(cufftHandle plan, ...);
cufftResult cufftXtExec(cufftHandle plan, ...);
#endif
