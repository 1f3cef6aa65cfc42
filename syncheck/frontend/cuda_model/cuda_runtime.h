/* syncheck CUDA model header: declarations only, enough for static analysis.
   It stands in for the toolkit's <cuda_runtime.h>; nothing here is executed. */
#ifndef SYNCHECK_CUDA_RUNTIME_H
#define SYNCHECK_CUDA_RUNTIME_H
/* Guards of the real headers, so code that tests them sees them as included. */
#define __CUDA_RUNTIME_H__
#define __CUDA_RUNTIME_API_H__
#define __DRIVER_TYPES_H__
#define __VECTOR_TYPES_H__
#define __DEVICE_LAUNCH_PARAMETERS_H__
#define __CUDACC__ 1
#ifndef CUDART_VERSION
#define CUDART_VERSION 12030
#endif
/* What nvcc predefines (and clang's CUDA wrapper with real headers): code picks its warp
   intrinsics by them (`#if __CUDACC_VER_MAJOR__ >= 9` -> the _sync forms). */
#ifndef __CUDACC_VER_MAJOR__
#define __CUDACC_VER_MAJOR__ 12
#define __CUDACC_VER_MINOR__ 3
#define __CUDACC_VER_BUILD__ 0
#endif
#include "syncheck_cuda_core.h"
#endif
