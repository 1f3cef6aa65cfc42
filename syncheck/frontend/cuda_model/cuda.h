/* syncheck CUDA model header: driver API subset used to launch kernels. */
#ifndef SYNCHECK_CUDA_H
#define SYNCHECK_CUDA_H
#define __cuda_cuda_h__
#include "cuda_runtime.h"
typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr;
#define CUDA_SUCCESS 0
typedef enum CUdevice_attribute_enum {
  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1, CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH = 95
} CUdevice_attribute;
CUresult cuDeviceGet(CUdevice *dev, int ordinal);
CUresult cuDeviceGetAttribute(int *value, CUdevice_attribute attr, CUdevice dev);
CUresult cuCtxCreate(CUcontext *ctx, unsigned int flags, CUdevice dev);
CUresult cuModuleLoad(CUmodule *m, const char *path);
CUresult cuModuleLoadData(CUmodule *m, const void *image);
CUresult cuCtxSynchronize(void);
CUresult cuInit(unsigned int flags);
CUresult cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
                        unsigned int bx, unsigned int by, unsigned int bz, unsigned int shmem,
                        CUstream stream, void **params, void **extra);
CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
                                   unsigned int bx, unsigned int by, unsigned int bz,
                                   unsigned int shmem, CUstream stream, void **params);
CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name);
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, CUfunction f, int block, size_t shmem);
#endif
