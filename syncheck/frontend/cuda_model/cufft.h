/* syncheck CUDA model header: the cuFFT host API and its data types (complex values are
   cuComplex), as host code and callbacks use them. Host declarations only: the calls take
   any arguments. */
#ifndef SYNCHECK_CUFFT_H
#define SYNCHECK_CUFFT_H
#include <cuda_runtime.h>
#include <cuComplex.h>
#include <library_types.h>
#define CUFFT_VER_MAJOR 11
#define CUFFT_VER_MINOR 0
#define CUFFT_VERSION (CUFFT_VER_MAJOR * 1000 + CUFFT_VER_MINOR * 100)
#define CUFFT_FORWARD -1
#define CUFFT_INVERSE 1
typedef enum cufftResult_t {
  CUFFT_SUCCESS = 0, CUFFT_INVALID_PLAN = 1, CUFFT_ALLOC_FAILED = 2, CUFFT_INVALID_TYPE = 3,
  CUFFT_INVALID_VALUE = 4, CUFFT_INTERNAL_ERROR = 5, CUFFT_EXEC_FAILED = 6, CUFFT_SETUP_FAILED = 7,
  CUFFT_INVALID_SIZE = 8, CUFFT_UNALIGNED_DATA = 9, CUFFT_INCOMPLETE_PARAMETER_LIST = 10,
  CUFFT_INVALID_DEVICE = 11, CUFFT_PARSE_ERROR = 12, CUFFT_NO_WORKSPACE = 13,
  CUFFT_NOT_IMPLEMENTED = 14, CUFFT_LICENSE_ERROR = 15, CUFFT_NOT_SUPPORTED = 16,
  CUFFT_MISSING_DEPENDENCY = 17, CUFFT_NVRTC_FAILURE = 18, CUFFT_NVJITLINK_FAILURE = 19,
  CUFFT_NVSHMEM_FAILURE = 20
} cufftResult;
typedef float cufftReal;
typedef double cufftDoubleReal;
typedef cuComplex cufftComplex;
typedef cuDoubleComplex cufftDoubleComplex;
typedef int cufftHandle;
typedef enum cufftType_t {
  CUFFT_R2C = 0x2a, CUFFT_C2R = 0x2c, CUFFT_C2C = 0x29,
  CUFFT_D2Z = 0x6a, CUFFT_Z2D = 0x6c, CUFFT_Z2Z = 0x69
} cufftType;
typedef enum cufftCompatibility_t { CUFFT_COMPATIBILITY_FFTW_PADDING = 0x01 } cufftCompatibility;
cufftResult cufftPlan1d(cufftHandle *plan, ...);
cufftResult cufftPlan2d(cufftHandle *plan, ...);
cufftResult cufftPlan3d(cufftHandle *plan, ...);
cufftResult cufftPlanMany(cufftHandle *plan, ...);
cufftResult cufftCreate(cufftHandle *handle);
cufftResult cufftMakePlan1d(cufftHandle plan, ...);
cufftResult cufftMakePlan2d(cufftHandle plan, ...);
cufftResult cufftMakePlan3d(cufftHandle plan, ...);
cufftResult cufftMakePlanMany(cufftHandle plan, ...);
cufftResult cufftMakePlanMany64(cufftHandle plan, ...);
cufftResult cufftGetSize(cufftHandle handle, ...);
cufftResult cufftEstimate1d(int nx, ...);
cufftResult cufftSetWorkArea(cufftHandle plan, void *work_area);
cufftResult cufftSetAutoAllocation(cufftHandle plan, int auto_allocate);
cufftResult cufftExecC2C(cufftHandle plan, ...);
cufftResult cufftExecR2C(cufftHandle plan, ...);
cufftResult cufftExecC2R(cufftHandle plan, ...);
cufftResult cufftExecZ2Z(cufftHandle plan, ...);
cufftResult cufftExecD2Z(cufftHandle plan, ...);
cufftResult cufftExecZ2D(cufftHandle plan, ...);
cufftResult cufftSetStream(cufftHandle plan, cudaStream_t stream);
cufftResult cufftDestroy(cufftHandle plan);
cufftResult cufftGetVersion(int *version);
#endif
