/* syncheck CUDA model header: 8-bit floating-point types (E4M3, E5M2) with their float
   conversions. Declarations only. */
#ifndef SYNCHECK_CUDA_FP8_H
#define SYNCHECK_CUDA_FP8_H
#include "cuda_fp16.h"
#include "cuda_bf16.h"
typedef unsigned char __nv_fp8_storage_t;
typedef unsigned short __nv_fp8x2_storage_t;
typedef unsigned int __nv_fp8x4_storage_t;
typedef enum __nv_fp8_interpretation_t { __NV_E4M3, __NV_E5M2 } __nv_fp8_interpretation_t;
typedef enum __nv_saturation_t { __NV_NOSAT, __NV_SATFINITE } __nv_saturation_t;
#define SYNCHECK_FP8(NAME)                                              \
  struct NAME {                                                          \
    __nv_fp8_storage_t __x;                                              \
    __host__ __device__ NAME() = default;                                \
    __host__ __device__ explicit NAME(float);                            \
    __host__ __device__ explicit NAME(double);                           \
    __host__ __device__ explicit NAME(__half);                           \
    __host__ __device__ explicit NAME(__nv_bfloat16);                    \
    __host__ __device__ explicit NAME(int);                              \
    __host__ __device__ explicit operator float() const;                 \
    __host__ __device__ explicit operator __half() const;                \
    __host__ __device__ explicit operator __nv_bfloat16() const;         \
  };
SYNCHECK_FP8(__nv_fp8_e4m3)
SYNCHECK_FP8(__nv_fp8_e5m2)
#undef SYNCHECK_FP8
__host__ __device__ __nv_fp8_storage_t __nv_cvt_float_to_fp8(float, __nv_saturation_t, __nv_fp8_interpretation_t);
__host__ __device__ __nv_fp8x2_storage_t __nv_cvt_float2_to_fp8x2(float2, __nv_saturation_t, __nv_fp8_interpretation_t);
__host__ __device__ __half_raw __nv_cvt_fp8_to_halfraw(__nv_fp8_storage_t, __nv_fp8_interpretation_t);
#endif
