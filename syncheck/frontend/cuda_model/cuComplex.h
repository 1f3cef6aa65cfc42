/* syncheck CUDA model header: single and double precision complex numbers as float2/double2
   with their arithmetic, for host and device code. */
#ifndef SYNCHECK_CUCOMPLEX_H
#define SYNCHECK_CUCOMPLEX_H
#include <cuda_runtime.h>
typedef float2 cuFloatComplex;
typedef double2 cuDoubleComplex;
typedef cuFloatComplex cuComplex;
__host__ __device__ inline float cuCrealf(cuFloatComplex x) { return x.x; }
__host__ __device__ inline float cuCimagf(cuFloatComplex x) { return x.y; }
__host__ __device__ inline cuFloatComplex make_cuFloatComplex(float r, float i) { cuFloatComplex z; z.x = r; z.y = i; return z; }
__host__ __device__ inline cuFloatComplex make_cuComplex(float r, float i) { return make_cuFloatComplex(r, i); }
__host__ __device__ inline cuFloatComplex cuConjf(cuFloatComplex x) { return make_cuFloatComplex(x.x, -x.y); }
__host__ __device__ inline cuFloatComplex cuCaddf(cuFloatComplex a, cuFloatComplex b) { return make_cuFloatComplex(a.x + b.x, a.y + b.y); }
__host__ __device__ inline cuFloatComplex cuCsubf(cuFloatComplex a, cuFloatComplex b) { return make_cuFloatComplex(a.x - b.x, a.y - b.y); }
__host__ __device__ inline cuFloatComplex cuCmulf(cuFloatComplex a, cuFloatComplex b) {
  return make_cuFloatComplex(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
__host__ __device__ cuFloatComplex cuCdivf(cuFloatComplex a, cuFloatComplex b);
__host__ __device__ float cuCabsf(cuFloatComplex x);
__host__ __device__ inline double cuCreal(cuDoubleComplex x) { return x.x; }
__host__ __device__ inline double cuCimag(cuDoubleComplex x) { return x.y; }
__host__ __device__ inline cuDoubleComplex make_cuDoubleComplex(double r, double i) { cuDoubleComplex z; z.x = r; z.y = i; return z; }
__host__ __device__ inline cuDoubleComplex cuConj(cuDoubleComplex x) { return make_cuDoubleComplex(x.x, -x.y); }
__host__ __device__ inline cuDoubleComplex cuCadd(cuDoubleComplex a, cuDoubleComplex b) { return make_cuDoubleComplex(a.x + b.x, a.y + b.y); }
__host__ __device__ inline cuDoubleComplex cuCsub(cuDoubleComplex a, cuDoubleComplex b) { return make_cuDoubleComplex(a.x - b.x, a.y - b.y); }
__host__ __device__ inline cuDoubleComplex cuCmul(cuDoubleComplex a, cuDoubleComplex b) {
  return make_cuDoubleComplex(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
__host__ __device__ cuDoubleComplex cuCdiv(cuDoubleComplex a, cuDoubleComplex b);
__host__ __device__ double cuCabs(cuDoubleComplex x);
__host__ __device__ inline cuDoubleComplex cuComplexFloatToDouble(cuFloatComplex c) { return make_cuDoubleComplex(c.x, c.y); }
__host__ __device__ inline cuFloatComplex cuComplexDoubleToFloat(cuDoubleComplex c) { return make_cuFloatComplex((float)c.x, (float)c.y); }
__host__ __device__ inline cuComplex cuCfmaf(cuComplex x, cuComplex y, cuComplex d) { return cuCaddf(cuCmulf(x, y), d); }
__host__ __device__ inline cuDoubleComplex cuCfma(cuDoubleComplex x, cuDoubleComplex y, cuDoubleComplex d) { return cuCadd(cuCmul(x, y), d); }
#endif
