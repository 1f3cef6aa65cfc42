/* syncheck CUDA model header: the cuBLAS host API as kernels' host code uses it (handles,
   status and option enums, the calls). Host declarations only: syncheck reads host code for
   launches, never runs it. The calls take any arguments, so every overload parses. */
#ifndef SYNCHECK_CUBLAS_V2_H
#define SYNCHECK_CUBLAS_V2_H
#include <cuda_runtime.h>
#include <library_types.h>
#define CUBLAS_VER_MAJOR 12
#define CUBLAS_VER_MINOR 3
#define CUBLAS_VER_PATCH 0
#define CUBLAS_VER_BUILD 0
#define CUBLAS_VERSION (CUBLAS_VER_MAJOR * 10000 + CUBLAS_VER_MINOR * 100 + CUBLAS_VER_PATCH)
struct cublasContext;
typedef struct cublasContext *cublasHandle_t;
typedef enum {
  CUBLAS_STATUS_SUCCESS = 0, CUBLAS_STATUS_NOT_INITIALIZED = 1, CUBLAS_STATUS_ALLOC_FAILED = 3,
  CUBLAS_STATUS_INVALID_VALUE = 7, CUBLAS_STATUS_ARCH_MISMATCH = 8, CUBLAS_STATUS_MAPPING_ERROR = 11,
  CUBLAS_STATUS_EXECUTION_FAILED = 13, CUBLAS_STATUS_INTERNAL_ERROR = 14,
  CUBLAS_STATUS_NOT_SUPPORTED = 15, CUBLAS_STATUS_LICENSE_ERROR = 16
} cublasStatus_t;
typedef enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1, CUBLAS_OP_C = 2, CUBLAS_OP_HERMITAN = 2,
               CUBLAS_OP_CONJG = 3 } cublasOperation_t;
typedef enum { CUBLAS_FILL_MODE_LOWER = 0, CUBLAS_FILL_MODE_UPPER = 1, CUBLAS_FILL_MODE_FULL = 2 } cublasFillMode_t;
typedef enum { CUBLAS_DIAG_NON_UNIT = 0, CUBLAS_DIAG_UNIT = 1 } cublasDiagType_t;
typedef enum { CUBLAS_SIDE_LEFT = 0, CUBLAS_SIDE_RIGHT = 1 } cublasSideMode_t;
typedef enum { CUBLAS_POINTER_MODE_HOST = 0, CUBLAS_POINTER_MODE_DEVICE = 1 } cublasPointerMode_t;
typedef enum { CUBLAS_ATOMICS_NOT_ALLOWED = 0, CUBLAS_ATOMICS_ALLOWED = 1 } cublasAtomicsMode_t;
typedef enum {
  CUBLAS_DEFAULT_MATH = 0, CUBLAS_TENSOR_OP_MATH = 1, CUBLAS_PEDANTIC_MATH = 2,
  CUBLAS_TF32_TENSOR_OP_MATH = 3, CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION = 16
} cublasMath_t;
typedef enum {
  CUBLAS_GEMM_DEFAULT = -1, CUBLAS_GEMM_DFALT = -1, CUBLAS_GEMM_ALGO0 = 0, CUBLAS_GEMM_ALGO1 = 1,
  CUBLAS_GEMM_DEFAULT_TENSOR_OP = 99, CUBLAS_GEMM_DFALT_TENSOR_OP = 99,
  CUBLAS_GEMM_ALGO0_TENSOR_OP = 100, CUBLAS_GEMM_ALGO1_TENSOR_OP = 101
} cublasGemmAlgo_t;
typedef enum {
  CUBLAS_COMPUTE_16F = 64, CUBLAS_COMPUTE_16F_PEDANTIC = 65, CUBLAS_COMPUTE_32F = 68,
  CUBLAS_COMPUTE_32F_PEDANTIC = 69, CUBLAS_COMPUTE_32F_FAST_16F = 74,
  CUBLAS_COMPUTE_32F_FAST_16BF = 75, CUBLAS_COMPUTE_32F_FAST_TF32 = 77, CUBLAS_COMPUTE_64F = 70,
  CUBLAS_COMPUTE_64F_PEDANTIC = 71, CUBLAS_COMPUTE_32I = 72, CUBLAS_COMPUTE_32I_PEDANTIC = 73
} cublasComputeType_t;
typedef void (*cublasLogCallback)(const char *message);

cublasStatus_t cublasCreate(cublasHandle_t *handle);
cublasStatus_t cublasDestroy(cublasHandle_t handle);
cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t stream);
cublasStatus_t cublasGetStream(cublasHandle_t handle, cudaStream_t *stream);
cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode);
cublasStatus_t cublasGetMathMode(cublasHandle_t handle, cublasMath_t *mode);
cublasStatus_t cublasSetPointerMode(cublasHandle_t handle, cublasPointerMode_t mode);
cublasStatus_t cublasSetWorkspace(cublasHandle_t handle, void *workspace, size_t bytes);
cublasStatus_t cublasGetVersion(cublasHandle_t handle, int *version);
cublasStatus_t cublasLoggerConfigure(int log_on, int to_stdout, int to_stderr, const char *file_name);
cublasStatus_t cublasSetLoggerCallback(cublasLogCallback callback);
const char *cublasGetStatusName(cublasStatus_t status);
const char *cublasGetStatusString(cublasStatus_t status);
/* The BLAS calls: many types and overloads, one permissive declaration each. */
cublasStatus_t cublasSgemm(cublasHandle_t handle, ...);
cublasStatus_t cublasDgemm(cublasHandle_t handle, ...);
cublasStatus_t cublasHgemm(cublasHandle_t handle, ...);
cublasStatus_t cublasGemmEx(cublasHandle_t handle, ...);
cublasStatus_t cublasGemmBatchedEx(cublasHandle_t handle, ...);
cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t handle, ...);
cublasStatus_t cublasSgemmBatched(cublasHandle_t handle, ...);
cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t handle, ...);
cublasStatus_t cublasHgemmBatched(cublasHandle_t handle, ...);
cublasStatus_t cublasHgemmStridedBatched(cublasHandle_t handle, ...);
cublasStatus_t cublasStrsm(cublasHandle_t handle, ...);
cublasStatus_t cublasStrsmBatched(cublasHandle_t handle, ...);
cublasStatus_t cublasSgemv(cublasHandle_t handle, ...);
cublasStatus_t cublasSaxpy(cublasHandle_t handle, ...);
cublasStatus_t cublasSdot(cublasHandle_t handle, ...);
cublasStatus_t cublasSscal(cublasHandle_t handle, ...);
cublasStatus_t cublasSnrm2(cublasHandle_t handle, ...);
cublasStatus_t cublasSgeam(cublasHandle_t handle, ...);
#endif
