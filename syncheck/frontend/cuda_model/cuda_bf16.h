/* syncheck CUDA model header: bfloat16 types and the intrinsics real kernels call.
   Declarations only. */
#ifndef SYNCHECK_CUDA_BF16_H
#define SYNCHECK_CUDA_BF16_H
#define __CUDA_BF16_H__
#define __CUDA_BF16_HPP__
#include "cuda_fp16.h"
struct __nv_bfloat16_raw { unsigned short x; };
struct __nv_bfloat162_raw { unsigned short x, y; };
struct __nv_bfloat16 {
  unsigned short __x;
  __host__ __device__ __nv_bfloat16() = default;
  __host__ __device__ __nv_bfloat16(float);
  __host__ __device__ __nv_bfloat16(double);
  __host__ __device__ __nv_bfloat16(int);
  __host__ __device__ __nv_bfloat16(__nv_bfloat16_raw);
  __host__ __device__ operator float() const;
  __host__ __device__ operator __nv_bfloat16_raw() const;
};
struct __nv_bfloat162 {
  __nv_bfloat16 x, y;
  __host__ __device__ __nv_bfloat162() = default;
  __host__ __device__ __nv_bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) : x(a), y(b) {}
  __host__ __device__ __nv_bfloat162(__nv_bfloat162_raw);
  __host__ __device__ operator __nv_bfloat162_raw() const;
};
typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;
SYNCHECK_H2(__nv_bfloat16, __nv_bfloat162, bfloat16)
__host__ __device__ __nv_bfloat162 make_bfloat162(__nv_bfloat16, __nv_bfloat16);
__host__ __device__ __nv_bfloat16 __float2bfloat16(float);
__host__ __device__ __nv_bfloat16 __float2bfloat16_rn(float);
__host__ __device__ __nv_bfloat16 __float2bfloat16_rz(float);
__host__ __device__ __nv_bfloat16 __double2bfloat16(double);
__host__ __device__ float __bfloat162float(__nv_bfloat16);
__host__ __device__ __nv_bfloat162 __float2bfloat162_rn(float);
__host__ __device__ __nv_bfloat162 __floats2bfloat162_rn(float, float);
__host__ __device__ float2 __bfloat1622float2(__nv_bfloat162);
__host__ __device__ __nv_bfloat162 __float22bfloat162_rn(float2);
__device__ __nv_bfloat162 __bfloat162bfloat162(__nv_bfloat16);
__device__ int __bfloat162int_rn(__nv_bfloat16); __device__ __nv_bfloat16 __int2bfloat16_rn(int);
__host__ __device__ unsigned short __bfloat16_as_ushort(__nv_bfloat16);
__host__ __device__ __nv_bfloat16 __ushort_as_bfloat16(unsigned short);
__host__ __device__ short __bfloat16_as_short(__nv_bfloat16);
__host__ __device__ __nv_bfloat16 __short_as_bfloat16(short);
#endif
