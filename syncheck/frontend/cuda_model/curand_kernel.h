/* syncheck CUDA model header: the cuRAND device API (generator states and the functions that
   draw from them) as kernels use it. The states are opaque structs of the right kind; the
   draws are declared once for every state type. Nothing here synchronizes threads. */
#ifndef SYNCHECK_CURAND_KERNEL_H
#define SYNCHECK_CURAND_KERNEL_H
#include <cuda_runtime.h>
#include "curand.h"
struct curandStateXORWOW { unsigned int d, v[5]; int boxmuller_flag, boxmuller_flag_double;
                           float boxmuller_extra; double boxmuller_extra_double; };
struct curandStatePhilox4_32_10 { uint4 ctr, output; uint2 key; unsigned int STATE; int boxmuller_flag,
                                  boxmuller_flag_double; float boxmuller_extra; double boxmuller_extra_double; };
struct curandStateMRG32k3a { unsigned int s1[3], s2[3]; int boxmuller_flag, boxmuller_flag_double;
                             float boxmuller_extra; double boxmuller_extra_double; };
struct curandStateMtgp32 { int offset, pIdx; unsigned int s[1024]; void* k; };
struct curandStateSobol32 { unsigned int i, x, c, direction_vectors[32]; };
struct curandStateScrambledSobol32 { unsigned int i, x, c, direction_vectors[32]; };
struct curandStateSobol64 { unsigned long long i, x, c, direction_vectors[64]; };
struct curandStateScrambledSobol64 { unsigned long long i, x, c, direction_vectors[64]; };
typedef struct curandStateXORWOW curandStateXORWOW_t;
typedef struct curandStateXORWOW curandState_t;
typedef struct curandStateXORWOW curandState;
typedef struct curandStatePhilox4_32_10 curandStatePhilox4_32_10_t;
typedef struct curandStateMRG32k3a curandStateMRG32k3a_t;
typedef struct curandStateMtgp32 curandStateMtgp32_t;
typedef struct curandStateSobol32 curandStateSobol32_t;
typedef struct curandStateScrambledSobol32 curandStateScrambledSobol32_t;
typedef struct curandStateSobol64 curandStateSobol64_t;
typedef struct curandStateScrambledSobol64 curandStateScrambledSobol64_t;
#define curandStateSobol_sz 1
#define curandDirectionVectors_sz 1
template <typename... Args> __device__ void curand_init(Args... args);
template <typename State> __device__ unsigned int curand(State *state);
template <typename State> __device__ uint4 curand4(State *state);
template <typename State> __device__ float curand_uniform(State *state);
template <typename State> __device__ double curand_uniform_double(State *state);
template <typename State> __device__ float4 curand_uniform4(State *state);
template <typename State> __device__ double2 curand_uniform2_double(State *state);
template <typename State> __device__ float curand_normal(State *state);
template <typename State> __device__ double curand_normal_double(State *state);
template <typename State> __device__ float2 curand_normal2(State *state);
template <typename State> __device__ double2 curand_normal2_double(State *state);
template <typename State> __device__ float4 curand_normal4(State *state);
template <typename State> __device__ float curand_log_normal(State *state, float mean, float stddev);
template <typename State> __device__ double curand_log_normal_double(State *state, double mean, double stddev);
template <typename State> __device__ unsigned int curand_poisson(State *state, double lambda);
template <typename State> __device__ void skipahead(unsigned long long n, State *state);
template <typename State> __device__ void skipahead_sequence(unsigned long long n, State *state);
template <typename State> __device__ void skipahead_subsequence(unsigned long long n, State *state);
#endif
