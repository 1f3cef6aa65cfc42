/* syncheck CUDA model header: half precision types and the intrinsics real kernels call
   (conversions, half2 packing, arithmetic, comparisons, shuffles). Declarations only. */
#ifndef SYNCHECK_CUDA_FP16_H
#define SYNCHECK_CUDA_FP16_H
#define __CUDA_FP16_H__
#define __CUDA_FP16_HPP__
#include "cuda_runtime.h"
struct __half_raw { unsigned short x; };
struct __half2_raw { unsigned short x, y; };
struct __half {
  unsigned short __x;
  __host__ __device__ __half() = default;
  __host__ __device__ __half(float);
  __host__ __device__ __half(double);
  __host__ __device__ __half(int);
  __host__ __device__ __half(unsigned int);
  __host__ __device__ __half(__half_raw);
  __host__ __device__ operator float() const;
  __host__ __device__ operator __half_raw() const;
};
struct __half2 {
  __half x, y;
  __host__ __device__ __half2() = default;
  __host__ __device__ __half2(__half a, __half b) : x(a), y(b) {}
  __host__ __device__ __half2(__half2_raw);
  __host__ __device__ operator __half2_raw() const;
};
typedef __half half;
typedef __half2 half2;
#define SYNCHECK_H2(T, T2, P)                                                          \
  __host__ __device__ T2 make_##P##2(T a, T b);                                       \
  __device__ T2 __halves2##P##2(T, T);                                                 \
  __device__ T __low2##P(T2);  __device__ T __high2##P(T2);                            \
  __device__ T2 __low2##P##2(T2);  __device__ T2 __high2##P##2(T2);                    \
  __device__ T2 __lows2##P##2(T2, T2);  __device__ T2 __highs2##P##2(T2, T2);          \
  __device__ T2 __lowhigh2highlow(T2);                                                 \
  __device__ float __low2float(T2);  __device__ float __high2float(T2);                \
  __device__ T __hadd(T, T); __device__ T __hsub(T, T); __device__ T __hmul(T, T);     \
  __device__ T __hdiv(T, T); __device__ T __hneg(T); __device__ T __habs(T);           \
  __device__ T __hfma(T, T, T); __device__ T __hmax(T, T); __device__ T __hmin(T, T);  \
  __device__ T __hadd_sat(T, T); __device__ T __hmul_sat(T, T); __device__ T __hfma_sat(T, T, T); \
  __device__ T2 __hadd2(T2, T2); __device__ T2 __hsub2(T2, T2); __device__ T2 __hmul2(T2, T2); \
  __device__ T2 __h2div(T2, T2); __device__ T2 __hneg2(T2); __device__ T2 __habs2(T2); \
  __device__ T2 __hfma2(T2, T2, T2); __device__ T2 __hmax2(T2, T2); __device__ T2 __hmin2(T2, T2); \
  __device__ T2 __hadd2_sat(T2, T2); __device__ T2 __hmul2_sat(T2, T2);                \
  __device__ bool __heq(T, T); __device__ bool __hne(T, T); __device__ bool __hlt(T, T); \
  __device__ bool __hle(T, T); __device__ bool __hgt(T, T); __device__ bool __hge(T, T); \
  __device__ bool __hisnan(T); __device__ int __hisinf(T);                             \
  __device__ T2 __heq2(T2, T2); __device__ T2 __hne2(T2, T2); __device__ T2 __hlt2(T2, T2); \
  __device__ T2 __hgt2(T2, T2); __device__ T2 __hle2(T2, T2); __device__ T2 __hge2(T2, T2); \
  __device__ bool __hbeq2(T2, T2); __device__ bool __hbne2(T2, T2);                    \
  __device__ T2 __hisnan2(T2);                                                         \
  __device__ T hexp(T); __device__ T hexp2(T); __device__ T hlog(T); __device__ T hlog2(T); \
  __device__ T hsqrt(T); __device__ T hrsqrt(T); __device__ T hrcp(T); __device__ T hsin(T); \
  __device__ T hcos(T); __device__ T hfloor(T); __device__ T hceil(T); __device__ T htrunc(T); \
  __device__ T hrint(T); __device__ T __habs(T);                                       \
  __device__ T2 h2exp(T2); __device__ T2 h2log(T2); __device__ T2 h2sqrt(T2);          \
  __device__ T2 h2rsqrt(T2); __device__ T2 h2rcp(T2); __device__ T2 h2sin(T2); __device__ T2 h2cos(T2); \
  __device__ T2 h2floor(T2); __device__ T2 h2ceil(T2); __device__ T2 h2trunc(T2);      \
  __device__ T __shfl_sync(unsigned mask, T v, int src, int width = 32);               \
  __device__ T __shfl_down_sync(unsigned mask, T v, unsigned d, int width = 32);       \
  __device__ T __shfl_up_sync(unsigned mask, T v, unsigned d, int width = 32);         \
  __device__ T __shfl_xor_sync(unsigned mask, T v, int m, int width = 32);             \
  __device__ T2 __shfl_sync(unsigned mask, T2 v, int src, int width = 32);             \
  __device__ T2 __shfl_down_sync(unsigned mask, T2 v, unsigned d, int width = 32);     \
  __device__ T2 __shfl_up_sync(unsigned mask, T2 v, unsigned d, int width = 32);       \
  __device__ T2 __shfl_xor_sync(unsigned mask, T2 v, int m, int width = 32);           \
  __device__ T __ldg(const T *); __device__ T2 __ldg(const T2 *);                      \
  __device__ T atomicAdd(T *address, T val); __device__ T2 atomicAdd(T2 *address, T2 val); \
  __device__ T2 operator+(const T2 &, const T2 &); __device__ T2 operator-(const T2 &, const T2 &); \
  __device__ T2 operator*(const T2 &, const T2 &); __device__ T2 operator/(const T2 &, const T2 &); \
  __device__ T2 &operator+=(T2 &, const T2 &); __device__ T2 &operator-=(T2 &, const T2 &); \
  __device__ T2 &operator*=(T2 &, const T2 &); __device__ T2 &operator/=(T2 &, const T2 &); \
  __device__ T2 operator-(const T2 &); __device__ bool operator==(const T2 &, const T2 &); \
  __device__ bool operator!=(const T2 &, const T2 &);
SYNCHECK_H2(__half, __half2, half)
__host__ __device__ __half __float2half(float);
__host__ __device__ __half __float2half_rn(float);
__host__ __device__ __half __float2half_rz(float);
__host__ __device__ __half __double2half(double);
__host__ __device__ float __half2float(__half);
__host__ __device__ __half2 __float2half2_rn(float);
__host__ __device__ __half2 __floats2half2_rn(float, float);
__host__ __device__ float2 __half22float2(__half2);
__host__ __device__ __half2 __float22half2_rn(float2);
__device__ __half2 __half2half2(__half);
__device__ int __half2int_rn(__half); __device__ int __half2int_rz(__half);
__device__ unsigned int __half2uint_rn(__half); __device__ unsigned int __half2uint_rz(__half);
__device__ short __half2short_rn(__half); __device__ long long __half2ll_rn(__half);
__device__ __half __int2half_rn(int); __device__ __half __uint2half_rn(unsigned int);
__device__ __half __short2half_rn(short); __device__ __half __ll2half_rn(long long);
__host__ __device__ unsigned short __half_as_ushort(__half); __host__ __device__ short __half_as_short(__half);
__host__ __device__ __half __ushort_as_half(unsigned short); __host__ __device__ __half __short_as_half(short);
#endif
