/* syncheck CUDA model header: half precision types. */
#ifndef SYNCHECK_CUDA_FP16_H
#define SYNCHECK_CUDA_FP16_H
#define __CUDA_FP16_H__
#include "cuda_runtime.h"
struct __half { unsigned short __x; __host__ __device__ __half() {} __host__ __device__ __half(float); __host__ __device__ operator float() const; };
struct __half2 { __half x, y; };
typedef __half half;
typedef __half2 half2;
__device__ __half __float2half(float);
__device__ float __half2float(__half);
__device__ __half __shfl_sync(unsigned mask, __half v, int src, int width = 32);
__device__ __half __shfl_down_sync(unsigned mask, __half v, unsigned d, int width = 32);
__device__ __half __shfl_up_sync(unsigned mask, __half v, unsigned d, int width = 32);
__device__ __half __shfl_xor_sync(unsigned mask, __half v, int m, int width = 32);
__device__ __half __hadd(__half, __half);
#endif
