/* syncheck CUDA model header: bfloat16 types. */
#ifndef SYNCHECK_CUDA_BF16_H
#define SYNCHECK_CUDA_BF16_H
#define __CUDA_BF16_H__
#include "cuda_runtime.h"
struct __nv_bfloat16 { unsigned short __x; __host__ __device__ __nv_bfloat16() {} __host__ __device__ __nv_bfloat16(float); __host__ __device__ operator float() const; };
__device__ __nv_bfloat16 __float2bfloat16(float);
__device__ float __bfloat162float(__nv_bfloat16);
#endif
