/* syncheck CUDA model: the shared core of the model headers.
   Written for static analysis with libclang (-nocudainc): qualifiers, built-in
   index variables, vector types, the device intrinsics syncheck reasons about,
   and the host runtime calls used to launch kernels. Declarations only. */
#ifndef SYNCHECK_CUDA_CORE_H
#define SYNCHECK_CUDA_CORE_H

#include <stddef.h>

#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __grid_constant__
#define __forceinline__ inline __attribute__((always_inline))
/* __noinline__ is a keyword of clang in CUDA mode (libstdc++ spells __attribute__((__noinline__))). */
#define __inline__ inline
#define __align__(n) __attribute__((aligned(n)))
#define __restrict__ __restrict
#define __cluster_dims__(...)
#define CUDART_CB

/* ---- vector types and dim3 ---- */
#define SYNCHECK_VEC(T, N)                                                              \
  struct N##1 { T x; };                                                                 \
  struct N##2 { T x, y; };                                                              \
  struct N##3 { T x, y, z; };                                                           \
  struct N##4 { T x, y, z, w; };                                                        \
  __host__ __device__ N##1 make_##N##1(T x);                                            \
  __host__ __device__ N##2 make_##N##2(T x, T y);                                       \
  __host__ __device__ N##3 make_##N##3(T x, T y, T z);                                  \
  __host__ __device__ N##4 make_##N##4(T x, T y, T z, T w);
SYNCHECK_VEC(signed char, char) SYNCHECK_VEC(unsigned char, uchar)
SYNCHECK_VEC(short, short) SYNCHECK_VEC(unsigned short, ushort)
SYNCHECK_VEC(int, int) SYNCHECK_VEC(unsigned int, uint)
SYNCHECK_VEC(long, long) SYNCHECK_VEC(unsigned long, ulong)
SYNCHECK_VEC(long long, longlong) SYNCHECK_VEC(unsigned long long, ulonglong)
SYNCHECK_VEC(float, float) SYNCHECK_VEC(double, double)
#undef SYNCHECK_VEC

struct dim3 {
  unsigned int x, y, z;
  __host__ __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  __host__ __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  __host__ __device__ constexpr operator uint3() const { return uint3{x, y, z}; }
};
/* dim3 under a one-character name: a launch's braced grid or block list `<<<{g, 2}, {64, 16}>>>`
   (accepted by nvcc, rejected by clang) is read as `${g, 2}` (syncheck/frontend/launch_braces.py) */
typedef dim3 $;

/* ---- built-in index variables (plain variables so member reads resolve); they convert as
   the real uint3 threadIdx and dim3 blockDim do (`offset(const dim3& idx)` called with threadIdx) */
struct __syncheck_index3 {
  unsigned int x, y, z;
  __device__ operator uint3() const;
  __device__ operator dim3() const;
};
struct __syncheck_dim3 {
  unsigned int x, y, z;
  __device__ operator dim3() const;
  __device__ operator uint3() const;
};
extern const __device__ __syncheck_index3 threadIdx;
extern const __device__ __syncheck_index3 blockIdx;
extern const __device__ __syncheck_dim3 blockDim;
extern const __device__ __syncheck_dim3 gridDim;
extern const __device__ int warpSize;

/* ---- block barriers (__syncthreads itself is a clang builtin) ---- */
__device__ int __syncthreads_count(int predicate);
__device__ int __syncthreads_and(int predicate);
__device__ int __syncthreads_or(int predicate);
__device__ void __threadfence(void);
__device__ void __threadfence_block(void);
__device__ void __threadfence_system(void);

/* ---- warp intrinsics ---- */
__device__ void __syncwarp(unsigned int mask = 0xffffffffu);
__device__ unsigned int __activemask(void);
__device__ unsigned int __ballot_sync(unsigned int mask, int predicate);
__device__ int __any_sync(unsigned int mask, int predicate);
__device__ int __all_sync(unsigned int mask, int predicate);
__device__ int __uni_sync(unsigned int mask, int predicate);
#define SYNCHECK_SHFL_FAMILY(T)                                                        \
  __device__ T __shfl_sync(unsigned int mask, T var, int srcLane, int width = 32);      \
  __device__ T __shfl_up_sync(unsigned int mask, T var, unsigned int delta, int width = 32); \
  __device__ T __shfl_down_sync(unsigned int mask, T var, unsigned int delta, int width = 32); \
  __device__ T __shfl_xor_sync(unsigned int mask, T var, int laneMask, int width = 32); \
  __device__ T __shfl(T var, int srcLane, int width = 32);                              \
  __device__ T __shfl_up(T var, unsigned int delta, int width = 32);                    \
  __device__ T __shfl_down(T var, unsigned int delta, int width = 32);                  \
  __device__ T __shfl_xor(T var, int laneMask, int width = 32);                         \
  __device__ unsigned int __match_any_sync(unsigned int mask, T value);                 \
  __device__ unsigned int __match_all_sync(unsigned int mask, T value, int *pred);
SYNCHECK_SHFL_FAMILY(int)
SYNCHECK_SHFL_FAMILY(unsigned int)
SYNCHECK_SHFL_FAMILY(long)
SYNCHECK_SHFL_FAMILY(unsigned long)
SYNCHECK_SHFL_FAMILY(long long)
SYNCHECK_SHFL_FAMILY(unsigned long long)
SYNCHECK_SHFL_FAMILY(float)
SYNCHECK_SHFL_FAMILY(double)
#undef SYNCHECK_SHFL_FAMILY
__device__ int __any(int predicate);
__device__ int __all(int predicate);
__device__ unsigned int __ballot(int predicate);
/* __reduce_*_sync: integer only (sm_80+). The unsigned overload is the real one;
   syncheck reports float operands (SYN205) from the argument's own type. */
__device__ unsigned int __reduce_add_sync(unsigned int mask, unsigned int value);
__device__ int __reduce_add_sync(unsigned int mask, int value);
__device__ unsigned int __reduce_min_sync(unsigned int mask, unsigned int value);
__device__ int __reduce_min_sync(unsigned int mask, int value);
__device__ unsigned int __reduce_max_sync(unsigned int mask, unsigned int value);
__device__ int __reduce_max_sync(unsigned int mask, int value);
__device__ unsigned int __reduce_and_sync(unsigned int mask, unsigned int value);
__device__ unsigned int __reduce_or_sync(unsigned int mask, unsigned int value);
__device__ unsigned int __reduce_xor_sync(unsigned int mask, unsigned int value);
/* Catch-alls, so a float operand parses and SYN205 can name it (the real API has none). */
template <class T> __device__ T __reduce_add_sync(unsigned int mask, T value);
template <class T> __device__ T __reduce_min_sync(unsigned int mask, T value);
template <class T> __device__ T __reduce_max_sync(unsigned int mask, T value);
__device__ unsigned int __lanemask_lt(void);
__device__ unsigned int __lanemask_le(void);
__device__ unsigned int __lanemask_eq(void);
__device__ unsigned int __lanemask_gt(void);
__device__ unsigned int __lanemask_ge(void);

/* ---- bit manipulation ---- */
__device__ int __popc(unsigned int);
__device__ int __popcll(unsigned long long);
__device__ int __ffs(int);
__device__ int __ffsll(long long);
__device__ int __clz(int);
__device__ int __clzll(long long);
__device__ unsigned int __brev(unsigned int);
__device__ unsigned int __funnelshift_l(unsigned int, unsigned int, unsigned int);

/* ---- atomics: their results differ per thread ---- */
#define SYNCHECK_ATOMICS(T)                                   \
  __device__ T atomicAdd(T *address, T val);                  \
  __device__ T atomicAdd_block(T *address, T val);            \
  __device__ T atomicSub(T *address, T val);                  \
  __device__ T atomicExch(T *address, T val);                 \
  __device__ T atomicMin(T *address, T val);                  \
  __device__ T atomicMax(T *address, T val);                  \
  __device__ T atomicCAS(T *address, T compare, T val);
SYNCHECK_ATOMICS(int)
SYNCHECK_ATOMICS(unsigned int)
SYNCHECK_ATOMICS(unsigned long long)
#undef SYNCHECK_ATOMICS
__device__ float atomicAdd(float *address, float val);
__device__ double atomicAdd(double *address, double val);
__device__ float atomicExch(float *address, float val);
__device__ unsigned int atomicInc(unsigned int *address, unsigned int val);
__device__ unsigned int atomicDec(unsigned int *address, unsigned int val);
__device__ int atomicAnd(int *address, int val);
__device__ unsigned int atomicAnd(unsigned int *address, unsigned int val);
__device__ int atomicOr(int *address, int val);
__device__ unsigned int atomicOr(unsigned int *address, unsigned int val);
__device__ int atomicXor(int *address, int val);
__device__ unsigned int atomicXor(unsigned int *address, unsigned int val);

/* ---- loads, clocks, misc device functions ---- */
template <class T> __device__ T __ldg(const T *ptr);
template <class T> __device__ T __ldcg(const T *ptr);
template <class T> __device__ T __ldca(const T *ptr);
template <class T> __device__ T __ldcs(const T *ptr);
template <class T> __device__ T __ldlu(const T *ptr);
template <class T> __device__ T __ldcv(const T *ptr);
template <class T> __device__ void __stcg(T *ptr, T v);
template <class T> __device__ void __stcs(T *ptr, T v);
template <class T> __device__ void __stwb(T *ptr, T v);
template <class T> __device__ void __stwt(T *ptr, T v);
__device__ long long clock64(void);
__device__ unsigned long long __globaltimer(void);
__device__ void __nanosleep(unsigned int ns);
__device__ void __trap(void);
__device__ void __brkpt(void);
__device__ unsigned int __cvta_generic_to_shared(const void *ptr);
// Programmatic dependent launch (sm_90)
__device__ void cudaGridDependencySynchronize(void);
__device__ void cudaTriggerProgrammaticLaunchCompletion(void);
/* ---- C library: nvcc's runtime header brings these in, so code relies on them ---- */
#if __has_include(<stdio.h>) && __has_include(<math.h>)
#include <string.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <assert.h>
#include <math.h>
#include <limits.h>
#if __has_include(<new>)
#include <new>
#endif
#else
/* No C library headers on this machine: declare what kernels commonly call. */
typedef long clock_t;
extern "C" int printf(const char *fmt, ...);
extern "C" void *memcpy(void *dst, const void *src, size_t n);
extern "C" void *memset(void *dst, int v, size_t n);
extern "C" void *malloc(size_t n);
extern "C" void free(void *p);
extern "C" int abs(int);
#define assert(e) ((void)0)
#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1
#define SYNCHECK_MATH1(name) extern "C" double name(double); extern "C" float name##f(float);
SYNCHECK_MATH1(sqrt) SYNCHECK_MATH1(exp) SYNCHECK_MATH1(exp2) SYNCHECK_MATH1(log)
SYNCHECK_MATH1(log2) SYNCHECK_MATH1(log10) SYNCHECK_MATH1(sin) SYNCHECK_MATH1(cos)
SYNCHECK_MATH1(tan) SYNCHECK_MATH1(tanh) SYNCHECK_MATH1(fabs) SYNCHECK_MATH1(floor)
SYNCHECK_MATH1(ceil) SYNCHECK_MATH1(round) SYNCHECK_MATH1(trunc) SYNCHECK_MATH1(erf)
#undef SYNCHECK_MATH1
extern "C" double pow(double, double);
extern "C" float powf(float, float);
extern "C" float fmaxf(float, float);
extern "C" float fminf(float, float);
extern "C" float fmaf(float, float, float);
#endif
/* Device-side versions of the C library calls kernels make. Overloading on __device__
   leaves the host declarations above untouched, as clang's own CUDA wrappers do. */
extern "C" __device__ int printf(const char *fmt, ...);
extern "C" __device__ void *memcpy(void *dst, const void *src, size_t n);
extern "C" __device__ void *memset(void *dst, int v, size_t n);
extern "C" __device__ void *malloc(size_t n);
extern "C" __device__ void free(void *p);
extern "C" __device__ void __assert_fail(const char *, const char *, unsigned int, const char *);
extern "C" __device__ clock_t clock(void);
#define SYNCHECK_DMATH1(name) static __device__ double name(double); \
  static __device__ float name##f(float); static __device__ float name(float);
SYNCHECK_DMATH1(sqrt) SYNCHECK_DMATH1(cbrt) SYNCHECK_DMATH1(exp) SYNCHECK_DMATH1(exp2)
SYNCHECK_DMATH1(expm1) SYNCHECK_DMATH1(log) SYNCHECK_DMATH1(log2) SYNCHECK_DMATH1(log10)
SYNCHECK_DMATH1(log1p) SYNCHECK_DMATH1(sin) SYNCHECK_DMATH1(cos) SYNCHECK_DMATH1(tan)
SYNCHECK_DMATH1(asin) SYNCHECK_DMATH1(acos) SYNCHECK_DMATH1(atan) SYNCHECK_DMATH1(sinh)
SYNCHECK_DMATH1(cosh) SYNCHECK_DMATH1(tanh) SYNCHECK_DMATH1(fabs) SYNCHECK_DMATH1(floor)
SYNCHECK_DMATH1(ceil) SYNCHECK_DMATH1(round) SYNCHECK_DMATH1(trunc) SYNCHECK_DMATH1(rint)
SYNCHECK_DMATH1(erf) SYNCHECK_DMATH1(erfc) SYNCHECK_DMATH1(lgamma) SYNCHECK_DMATH1(tgamma)
#undef SYNCHECK_DMATH1
#define SYNCHECK_DMATH2(name) static __device__ double name(double, double); \
  static __device__ float name##f(float, float); static __device__ float name(float, float);
SYNCHECK_DMATH2(pow) SYNCHECK_DMATH2(fmax) SYNCHECK_DMATH2(fmin) SYNCHECK_DMATH2(fmod)
SYNCHECK_DMATH2(atan2) SYNCHECK_DMATH2(hypot) SYNCHECK_DMATH2(copysign) SYNCHECK_DMATH2(fdim)
#undef SYNCHECK_DMATH2
static __device__ double fma(double, double, double);
static __device__ float fmaf(float, float, float);
static __device__ float fma(float, float, float);
static __device__ int abs(int);
static __device__ long long llabs(long long);
static __device__ void sincosf(float, float *, float *);
static __device__ void sincos(double, double *, double *);
static __device__ int isnan(float);
static __device__ int isinf(float);
static __device__ int isfinite(float);
// glibc's classifiers: CUDA's math headers declare them for the device too.
static __device__ int __isnanf(float);
static __device__ int __isinff(float);
static __device__ int __finitef(float);
static __device__ int __isnan(double);
static __device__ int __isinf(double);
static __device__ int __finite(double);
static __device__ double frexp(double, int *);
static __device__ float frexpf(float, int *);
static __device__ double ldexp(double, int);
static __device__ float ldexpf(float, int);
static __device__ double modf(double, double *);
static __device__ float modff(float, float *);
static __device__ void __sincosf(float, float *, float *);
static __device__ float __powf(float, float);
static __device__ float __exp10f(float);
static __device__ float __log2f(float);
static __device__ float __tanf(float);
static __device__ float exp10f(float);
static __device__ float normcdff(float);
static __device__ float erfinvf(float);
/* Device-only math without a C library name. */
__device__ float rsqrtf(float);
__device__ double rsqrt(double);
__device__ float __expf(float);
__device__ float __logf(float);
__device__ float __sinf(float);
__device__ float __cosf(float);
__device__ float __fdividef(float, float);
__device__ float __saturatef(float);
__device__ int __float2int_rn(float);
__device__ float __int2float_rn(int);
__host__ __device__ int min(int, int);
__host__ __device__ unsigned int min(unsigned int, unsigned int);
__host__ __device__ long long min(long long, long long);
__host__ __device__ float min(float, float);
__host__ __device__ double min(double, double);
__host__ __device__ int max(int, int);
__host__ __device__ unsigned int max(unsigned int, unsigned int);
__host__ __device__ long long max(long long, long long);
__host__ __device__ float max(float, float);
__host__ __device__ double max(double, double);
__host__ __device__ unsigned int umin(unsigned int, unsigned int);
__host__ __device__ unsigned int umax(unsigned int, unsigned int);
__host__ __device__ long long llmin(long long, long long);
__host__ __device__ long long llmax(long long, long long);
__host__ __device__ unsigned long long ullmin(unsigned long long, unsigned long long);
__host__ __device__ unsigned long long ullmax(unsigned long long, unsigned long long);
__device__ int __mul24(int, int);
__device__ int __umul24(unsigned int, unsigned int);
__device__ int __mulhi(int, int);

/* ---- host runtime API ---- */
enum cudaError {
  cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2,
  cudaErrorInitializationError = 3, cudaErrorCudartUnloading = 4, cudaErrorProfilerDisabled = 5,
  cudaErrorInvalidConfiguration = 9, cudaErrorInvalidPitchValue = 12, cudaErrorInvalidSymbol = 13,
  cudaErrorInvalidHostPointer = 16, cudaErrorInvalidDevicePointer = 17, cudaErrorInvalidTexture = 18,
  cudaErrorInvalidMemcpyDirection = 21, cudaErrorInvalidFilterSetting = 26,
  cudaErrorInsufficientDriver = 35, cudaErrorCallRequiresNewerDriver = 36,
  cudaErrorInvalidSurface = 37, cudaErrorDuplicateVariableName = 43,
  cudaErrorMissingConfiguration = 52, cudaErrorPriorLaunchFailure = 53,
  cudaErrorLaunchMaxDepthExceeded = 65, cudaErrorSyncDepthExceeded = 68,
  cudaErrorLaunchPendingCountExceeded = 69, cudaErrorInvalidDeviceFunction = 98,
  cudaErrorNoDevice = 100, cudaErrorInvalidDevice = 101, cudaErrorDeviceNotLicensed = 102,
  cudaErrorStartupFailure = 127, cudaErrorInvalidKernelImage = 200,
  cudaErrorDeviceUninitialized = 201, cudaErrorMapBufferObjectFailed = 205,
  cudaErrorArrayIsMapped = 207, cudaErrorAlreadyMapped = 208,
  cudaErrorNoKernelImageForDevice = 209, cudaErrorAlreadyAcquired = 210, cudaErrorNotMapped = 211,
  cudaErrorECCUncorrectable = 214, cudaErrorUnsupportedLimit = 215,
  cudaErrorDeviceAlreadyInUse = 216, cudaErrorPeerAccessUnsupported = 217,
  cudaErrorInvalidPtx = 218, cudaErrorInvalidGraphicsContext = 219, cudaErrorNvlinkUncorrectable = 220,
  cudaErrorJitCompilerNotFound = 221, cudaErrorUnsupportedPtxVersion = 222,
  cudaErrorInvalidSource = 300, cudaErrorFileNotFound = 301,
  cudaErrorSharedObjectSymbolNotFound = 302, cudaErrorSharedObjectInitFailed = 303,
  cudaErrorOperatingSystem = 304, cudaErrorInvalidResourceHandle = 400,
  cudaErrorIllegalState = 401, cudaErrorSymbolNotFound = 500, cudaErrorNotReady = 600,
  cudaErrorIllegalAddress = 700, cudaErrorLaunchOutOfResources = 701, cudaErrorLaunchTimeout = 702,
  cudaErrorLaunchIncompatibleTexturing = 703, cudaErrorPeerAccessAlreadyEnabled = 704,
  cudaErrorPeerAccessNotEnabled = 705, cudaErrorSetOnActiveProcess = 708,
  cudaErrorContextIsDestroyed = 709, cudaErrorAssert = 710, cudaErrorTooManyPeers = 711,
  cudaErrorHostMemoryAlreadyRegistered = 712, cudaErrorHostMemoryNotRegistered = 713,
  cudaErrorHardwareStackError = 714, cudaErrorIllegalInstruction = 715,
  cudaErrorMisalignedAddress = 716, cudaErrorInvalidAddressSpace = 717, cudaErrorInvalidPc = 718,
  cudaErrorLaunchFailure = 719, cudaErrorCooperativeLaunchTooLarge = 720,
  cudaErrorNotPermitted = 800, cudaErrorNotSupported = 801, cudaErrorSystemNotReady = 802,
  cudaErrorSystemDriverMismatch = 803, cudaErrorCompatNotSupportedOnDevice = 804,
  cudaErrorStreamCaptureUnsupported = 900, cudaErrorStreamCaptureInvalidated = 901,
  cudaErrorTimeout = 909, cudaErrorGraphExecUpdateFailure = 910, cudaErrorUnknown = 999,
  cudaErrorApiFailureBase = 10000
};
typedef enum cudaError cudaError_t;

enum cudaDeviceAttr {
  cudaDevAttrMaxThreadsPerBlock = 1, cudaDevAttrMaxBlockDimX = 2, cudaDevAttrMaxBlockDimY = 3,
  cudaDevAttrMaxBlockDimZ = 4, cudaDevAttrMaxGridDimX = 5, cudaDevAttrMaxGridDimY = 6,
  cudaDevAttrMaxGridDimZ = 7, cudaDevAttrMaxSharedMemoryPerBlock = 8,
  cudaDevAttrTotalConstantMemory = 9, cudaDevAttrWarpSize = 10, cudaDevAttrMaxPitch = 11,
  cudaDevAttrMaxRegistersPerBlock = 12, cudaDevAttrClockRate = 13, cudaDevAttrTextureAlignment = 14,
  cudaDevAttrGpuOverlap = 15, cudaDevAttrMultiProcessorCount = 16, cudaDevAttrKernelExecTimeout = 17,
  cudaDevAttrIntegrated = 18, cudaDevAttrCanMapHostMemory = 19, cudaDevAttrComputeMode = 20,
  cudaDevAttrConcurrentKernels = 31, cudaDevAttrEccEnabled = 32, cudaDevAttrPciBusId = 33,
  cudaDevAttrPciDeviceId = 34, cudaDevAttrTccDriver = 35, cudaDevAttrMemoryClockRate = 36,
  cudaDevAttrGlobalMemoryBusWidth = 37, cudaDevAttrL2CacheSize = 38,
  cudaDevAttrMaxThreadsPerMultiProcessor = 39, cudaDevAttrAsyncEngineCount = 40,
  cudaDevAttrUnifiedAddressing = 41, cudaDevAttrComputeCapabilityMajor = 75,
  cudaDevAttrComputeCapabilityMinor = 76, cudaDevAttrStreamPrioritiesSupported = 78,
  cudaDevAttrGlobalL1CacheSupported = 79, cudaDevAttrLocalL1CacheSupported = 80,
  cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81, cudaDevAttrMaxRegistersPerMultiprocessor = 82,
  cudaDevAttrManagedMemory = 83, cudaDevAttrIsMultiGpuBoard = 84, cudaDevAttrMultiGpuBoardGroupID = 85,
  cudaDevAttrConcurrentManagedAccess = 89, cudaDevAttrComputePreemptionSupported = 90,
  cudaDevAttrCooperativeLaunch = 95, cudaDevAttrCooperativeMultiDeviceLaunch = 96,
  cudaDevAttrMaxSharedMemoryPerBlockOptin = 97, cudaDevAttrMaxBlocksPerMultiprocessor = 106,
  cudaDevAttrMaxPersistingL2CacheSize = 108, cudaDevAttrClusterLaunch = 120
};

struct cudaDeviceProp {
  char name[256];
  size_t totalGlobalMem, sharedMemPerBlock;
  int regsPerBlock, warpSize;
  size_t memPitch;
  int maxThreadsPerBlock, maxThreadsDim[3], maxGridSize[3], clockRate;
  size_t totalConstMem;
  int major, minor;
  size_t textureAlignment;
  int deviceOverlap, multiProcessorCount, kernelExecTimeoutEnabled, integrated, canMapHostMemory;
  int computeMode, concurrentKernels, ECCEnabled, pciBusID, pciDeviceID, tccDriver;
  int asyncEngineCount, unifiedAddressing, memoryClockRate, memoryBusWidth, l2CacheSize;
  int maxThreadsPerMultiProcessor, streamPrioritiesSupported;
  size_t sharedMemPerMultiprocessor;
  int regsPerMultiprocessor, managedMemory, isMultiGpuBoard, multiGpuBoardGroupID;
  int concurrentManagedAccess, cooperativeLaunch, cooperativeMultiDeviceLaunch;
  size_t sharedMemPerBlockOptin;
  int maxBlocksPerMultiProcessor;
};

typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
enum cudaMemcpyKind { cudaMemcpyHostToHost = 0, cudaMemcpyHostToDevice = 1,
                      cudaMemcpyDeviceToHost = 2, cudaMemcpyDeviceToDevice = 3, cudaMemcpyDefault = 4 };
#define cudaStreamNonBlocking 0x01
#define cudaStreamDefault 0x00
#define cudaMemAttachGlobal 0x01
#define cudaHostAllocDefault 0x00

enum cudaLaunchAttributeID {
  cudaLaunchAttributeIgnore = 0, cudaLaunchAttributeAccessPolicyWindow = 1,
  cudaLaunchAttributeCooperative = 2, cudaLaunchAttributeSynchronizationPolicy = 3,
  cudaLaunchAttributeClusterDimension = 4, cudaLaunchAttributeClusterSchedulingPolicyPreference = 5,
  cudaLaunchAttributeProgrammaticStreamSerialization = 6, cudaLaunchAttributeProgrammaticEvent = 7,
  cudaLaunchAttributePriority = 8
};
union cudaLaunchAttributeValue {
  char pad[64];
  int cooperative;
  int priority;
  int programmaticStreamSerializationAllowed;
  struct { unsigned int x, y, z; } clusterDim;
  struct { cudaEvent_t event; int flags; int triggerAtBlockStart; } programmaticEvent;
};
struct cudaLaunchAttribute { enum cudaLaunchAttributeID id; char pad[4]; union cudaLaunchAttributeValue val; };
struct cudaLaunchConfig_t {
  dim3 gridDim, blockDim;
  size_t dynamicSmemBytes;
  cudaStream_t stream;
  cudaLaunchAttribute *attrs;
  unsigned int numAttrs;
};
typedef struct cudaLaunchConfig_t cudaLaunchConfig_t;

/* <<<>>> lowers to these; both spellings exist across CUDA versions. */
extern "C" cudaError_t cudaConfigureCall(dim3 grid, dim3 block, size_t shmem = 0, cudaStream_t stream = 0);
extern "C" unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shmem = 0, void *stream = 0);

#include "syncheck_cuda_runtime_extra.h"

extern "C" {
#pragma clang attribute push (__attribute__((host, device)), apply_to = function)
cudaError_t cudaMalloc(void **ptr, size_t size);
cudaError_t cudaMallocManaged(void **ptr, size_t size, unsigned int flags = cudaMemAttachGlobal);
cudaError_t cudaMallocHost(void **ptr, size_t size);
cudaError_t cudaHostAlloc(void **ptr, size_t size, unsigned int flags);
cudaError_t cudaFree(void *ptr);
cudaError_t cudaFreeHost(void *ptr);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind, cudaStream_t s = 0);
cudaError_t cudaMemset(void *ptr, int v, size_t n);
cudaError_t cudaMemsetAsync(void *ptr, int v, size_t n, cudaStream_t s = 0);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaDeviceReset(void);
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
const char *cudaGetErrorString(cudaError_t e);
const char *cudaGetErrorName(cudaError_t e);
cudaError_t cudaGetDevice(int *dev);
cudaError_t cudaSetDevice(int dev);
cudaError_t cudaGetDeviceCount(int *n);
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int dev);
cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int dev);
cudaError_t cudaStreamCreate(cudaStream_t *s);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned int flags);
cudaError_t cudaStreamDestroy(cudaStream_t s);
cudaError_t cudaStreamSynchronize(cudaStream_t s);
cudaError_t cudaEventCreate(cudaEvent_t *e);
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s = 0);
cudaError_t cudaEventSynchronize(cudaEvent_t e);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b);
cudaError_t cudaEventDestroy(cudaEvent_t e);
cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t n, size_t off = 0,
                               enum cudaMemcpyKind kind = cudaMemcpyHostToDevice);
cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value);
cudaError_t cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args,
                             size_t shmem, cudaStream_t stream);
cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 grid, dim3 block, void **args,
                                        size_t shmem, cudaStream_t stream);
cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func, void **args);
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func,
                                                          int blockSize, size_t dynamicSMemSize);
cudaError_t cudaOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize, const void *func,
                                               size_t dynamicSMemSize, int blockSizeLimit);
#pragma clang attribute pop
}
template <class T> cudaError_t cudaMalloc(T **ptr, size_t size);
template <class T> cudaError_t cudaMallocHost(T **ptr, size_t size, unsigned int flags = 0);
template <class T> cudaError_t cudaMallocManaged(T **ptr, size_t size, unsigned int flags = cudaMemAttachGlobal);
template <class T> cudaError_t cudaHostAlloc(T **ptr, size_t size, unsigned int flags);
template <class T> cudaError_t cudaMemcpyToSymbol(const T &symbol, const void *src, size_t n,
                                                  size_t off = 0, enum cudaMemcpyKind kind = cudaMemcpyHostToDevice);
template <class T> cudaError_t cudaMemcpyFromSymbol(void *dst, const T &symbol, size_t n,
                                                    size_t off = 0, enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost);
template <class T> cudaError_t cudaGetSymbolAddress(void **ptr, const T &symbol);
template <class T> cudaError_t cudaFuncSetAttribute(T *func, enum cudaFuncAttribute attr, int value);
template <class T> cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, T *func);
template <class T> cudaError_t cudaFuncSetCacheConfig(T *func, enum cudaFuncCache config);

/* C++ conveniences of the runtime: typed kernel pointers. */
template <class T>
cudaError_t cudaLaunchKernel(T *func, dim3 grid, dim3 block, void **args, size_t shmem = 0,
                             cudaStream_t stream = 0);
template <class T>
cudaError_t cudaLaunchCooperativeKernel(T *func, dim3 grid, dim3 block, void **args,
                                        size_t shmem = 0, cudaStream_t stream = 0);
template <typename... ExpTypes, typename... ActTypes>
cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t *config, void (*kernel)(ExpTypes...),
                               ActTypes &&...args);
template <class T>
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, T func, int blockSize,
                                                          size_t dynamicSMemSize);
template <class T>
cudaError_t cudaOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize, T func,
                                               size_t dynamicSMemSize = 0, int blockSizeLimit = 0);
template <class T>
cudaError_t cudaOccupancyMaxPotentialBlockSizeWithFlags(int *minGridSize, int *blockSize, T func,
                                                        size_t dynamicSMemSize = 0, int blockSizeLimit = 0,
                                                        unsigned int flags = 0);
/* Block size from a functor giving the dynamic shared memory a block size needs. */
template <typename UnaryFunction, class T>
cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMem(int *minGridSize, int *blockSize, T func,
                                                           UnaryFunction blockSizeToDynamicSMemSize,
                                                           int blockSizeLimit = 0);
template <typename UnaryFunction, class T>
cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(int *minGridSize, int *blockSize, T func,
                                                                    UnaryFunction blockSizeToDynamicSMemSize,
                                                                    int blockSizeLimit = 0, unsigned int flags = 0);
template <class T>
cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize, T func, int numBlocks,
                                                      int blockSize);
#include "syncheck_cuda_intrinsics.h"
#endif
