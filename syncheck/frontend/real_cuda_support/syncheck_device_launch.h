/* syncheck: included first when parsing with the real CUDA headers.
   syncheck parses the device side of a CUDA file (__CUDA_ARCH__ defined, as nvcc's device
   pass sees it). There clang resolves `k<<<g, b>>>(...)` through cudaConfigureCall, which the
   CUDA 12 runtime headers declare only for the host side: declare it here. */
#ifndef SYNCHECK_DEVICE_LAUNCH_H
#define SYNCHECK_DEVICE_LAUNCH_H
/* dim3 under a one-character name: a launch's braced grid or block list `<<<{g, 2}, {64, 16}>>>`
   (accepted by nvcc, rejected by clang) is read as `${g, 2}` (syncheck/frontend/launch_braces.py) */
typedef dim3 $;
#if defined(__CUDA_ARCH__)
extern "C" cudaError_t cudaConfigureCall(dim3 gridDim, dim3 blockDim, size_t sharedMem = 0,
                                         cudaStream_t stream = 0);
#endif
#endif
