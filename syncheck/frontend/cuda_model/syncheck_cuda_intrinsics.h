/* syncheck CUDA model: more device intrinsics real kernels call (SIMD video instructions,
   byte permutes, dot products, bit casts, rounding modes, mixed-type min/max) and a few
   runtime names. Declarations only; none of them synchronizes. */
#ifndef SYNCHECK_CUDA_INTRINSICS_H
#define SYNCHECK_CUDA_INTRINSICS_H
#if __has_include(<stdint.h>)
#include <stdint.h>
#endif

/* ---- bit manipulation and byte permutes ---- */
__device__ unsigned int __funnelshift_r(unsigned int, unsigned int, unsigned int);
__device__ unsigned int __funnelshift_lc(unsigned int, unsigned int, unsigned int);
__device__ unsigned int __funnelshift_rc(unsigned int, unsigned int, unsigned int);
__device__ unsigned long long __brevll(unsigned long long);
__device__ unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s);
__device__ int __fns(unsigned int mask, unsigned int base, int offset);
__device__ int __dp4a(int, int, int);
__device__ unsigned int __dp4a(unsigned int, unsigned int, unsigned int);
__device__ int __dp4a(char4, char4, int);
__device__ unsigned int __dp4a(uchar4, uchar4, unsigned int);
__device__ int __dp2a_lo(int, int, int);
__device__ int __dp2a_hi(int, int, int);
__device__ unsigned int __dp2a_lo(unsigned int, unsigned int, unsigned int);
__device__ unsigned int __dp2a_hi(unsigned int, unsigned int, unsigned int);
__device__ unsigned int __sad(int, int, unsigned int);
__device__ unsigned int __usad(unsigned int, unsigned int, unsigned int);
__device__ int __hadd(int, int);
__device__ int __rhadd(int, int);
__device__ unsigned int __uhadd(unsigned int, unsigned int);
__device__ unsigned int __urhadd(unsigned int, unsigned int);
__device__ unsigned int __umulhi(unsigned int, unsigned int);
__device__ long long __mul64hi(long long, long long);
__device__ unsigned long long __umul64hi(unsigned long long, unsigned long long);

/* ---- SIMD video instructions: two 16-bit or four 8-bit lanes in an unsigned int ---- */
#define SYNCHECK_SIMD(op) __device__ unsigned int op##2(unsigned int, unsigned int); \
  __device__ unsigned int op##4(unsigned int, unsigned int);
SYNCHECK_SIMD(__vadd) SYNCHECK_SIMD(__vaddss) SYNCHECK_SIMD(__vaddus) SYNCHECK_SIMD(__vavgs)
SYNCHECK_SIMD(__vavgu) SYNCHECK_SIMD(__vhaddu) SYNCHECK_SIMD(__vcmpeq) SYNCHECK_SIMD(__vcmpges)
SYNCHECK_SIMD(__vcmpgeu) SYNCHECK_SIMD(__vcmpgts) SYNCHECK_SIMD(__vcmpgtu) SYNCHECK_SIMD(__vcmples)
SYNCHECK_SIMD(__vcmpleu) SYNCHECK_SIMD(__vcmplts) SYNCHECK_SIMD(__vcmpltu) SYNCHECK_SIMD(__vcmpne)
SYNCHECK_SIMD(__vmaxs) SYNCHECK_SIMD(__vmaxu) SYNCHECK_SIMD(__vmins) SYNCHECK_SIMD(__vminu)
SYNCHECK_SIMD(__vseteq) SYNCHECK_SIMD(__vsetges) SYNCHECK_SIMD(__vsetgeu) SYNCHECK_SIMD(__vsetgts)
SYNCHECK_SIMD(__vsetgtu) SYNCHECK_SIMD(__vsetles) SYNCHECK_SIMD(__vsetleu) SYNCHECK_SIMD(__vsetlts)
SYNCHECK_SIMD(__vsetltu) SYNCHECK_SIMD(__vsetne) SYNCHECK_SIMD(__vsads) SYNCHECK_SIMD(__vsadu)
SYNCHECK_SIMD(__vsub) SYNCHECK_SIMD(__vsubss) SYNCHECK_SIMD(__vsubus) SYNCHECK_SIMD(__vabsdiffs)
SYNCHECK_SIMD(__vabsdiffu)
#undef SYNCHECK_SIMD
__device__ unsigned int __vabs2(unsigned int); __device__ unsigned int __vabs4(unsigned int);
__device__ unsigned int __vabsss2(unsigned int); __device__ unsigned int __vabsss4(unsigned int);
__device__ unsigned int __vneg2(unsigned int); __device__ unsigned int __vneg4(unsigned int);
__device__ unsigned int __vnegss2(unsigned int); __device__ unsigned int __vnegss4(unsigned int);

/* ---- bit casts ---- */
__device__ int __float_as_int(float);
__device__ float __int_as_float(int);
__device__ unsigned int __float_as_uint(float);
__device__ float __uint_as_float(unsigned int);
__device__ long long __double_as_longlong(double);
__device__ double __longlong_as_double(long long);
__device__ double __hiloint2double(int hi, int lo);
__device__ int __double2hiint(double);
__device__ int __double2loint(double);

/* ---- conversions and arithmetic with a rounding mode ---- */
#define SYNCHECK_ROUNDED(ret, name, ...) __device__ ret name##_rn(__VA_ARGS__); \
  __device__ ret name##_rz(__VA_ARGS__); __device__ ret name##_ru(__VA_ARGS__); \
  __device__ ret name##_rd(__VA_ARGS__);
SYNCHECK_ROUNDED(float, __fadd, float, float) SYNCHECK_ROUNDED(float, __fsub, float, float)
SYNCHECK_ROUNDED(float, __fmul, float, float) SYNCHECK_ROUNDED(float, __fdiv, float, float)
SYNCHECK_ROUNDED(float, __fmaf, float, float, float) SYNCHECK_ROUNDED(float, __frcp, float)
SYNCHECK_ROUNDED(float, __fsqrt, float)
SYNCHECK_ROUNDED(double, __dadd, double, double) SYNCHECK_ROUNDED(double, __dsub, double, double)
SYNCHECK_ROUNDED(double, __dmul, double, double) SYNCHECK_ROUNDED(double, __ddiv, double, double)
SYNCHECK_ROUNDED(double, __fma, double, double, double) SYNCHECK_ROUNDED(double, __drcp, double)
SYNCHECK_ROUNDED(double, __dsqrt, double)
SYNCHECK_ROUNDED(int, __float2int, float) SYNCHECK_ROUNDED(unsigned int, __float2uint, float)
SYNCHECK_ROUNDED(long long, __float2ll, float) SYNCHECK_ROUNDED(unsigned long long, __float2ull, float)
SYNCHECK_ROUNDED(int, __double2int, double) SYNCHECK_ROUNDED(unsigned int, __double2uint, double)
SYNCHECK_ROUNDED(long long, __double2ll, double)
SYNCHECK_ROUNDED(float, __double2float, double) SYNCHECK_ROUNDED(float, __uint2float, unsigned int)
SYNCHECK_ROUNDED(float, __ll2float, long long) SYNCHECK_ROUNDED(float, __ull2float, unsigned long long)
SYNCHECK_ROUNDED(double, __ll2double, long long)
#undef SYNCHECK_ROUNDED
__device__ float __fsqrt_rn(float);
__device__ float __frsqrt_rn(float);
__device__ double __uint2double_rn(unsigned int);
__device__ double __int2double_rn(int);

/* ---- min/max for mixed operand types, as CUDA's math headers overload them ---- */
__host__ __device__ unsigned int min(int, unsigned int);
__host__ __device__ unsigned int min(unsigned int, int);
__host__ __device__ long min(long, long);
__host__ __device__ unsigned long min(unsigned long, unsigned long);
__host__ __device__ unsigned long min(long, unsigned long);
__host__ __device__ unsigned long min(unsigned long, long);
__host__ __device__ unsigned long long min(unsigned long long, unsigned long long);
__host__ __device__ unsigned long long min(long long, unsigned long long);
__host__ __device__ unsigned long long min(unsigned long long, long long);
__host__ __device__ double min(float, double);
__host__ __device__ double min(double, float);
__host__ __device__ unsigned int max(int, unsigned int);
__host__ __device__ unsigned int max(unsigned int, int);
__host__ __device__ long max(long, long);
__host__ __device__ unsigned long max(unsigned long, unsigned long);
__host__ __device__ unsigned long max(long, unsigned long);
__host__ __device__ unsigned long max(unsigned long, long);
__host__ __device__ unsigned long long max(unsigned long long, unsigned long long);
__host__ __device__ unsigned long long max(long long, unsigned long long);
__host__ __device__ unsigned long long max(unsigned long long, long long);
__host__ __device__ double max(float, double);
__host__ __device__ double max(double, float);

/* ---- runtime names ---- */
#define cudaStreamLegacy ((cudaStream_t)0x1)
#define cudaStreamPerThread ((cudaStream_t)0x2)
#endif
