// syncheck model of <cuda_pipeline_primitives.h>.
#ifndef _CUDA_PIPELINE_PRIMITIVES_H_
#define _CUDA_PIPELINE_PRIMITIVES_H_
#include <stddef.h>
__device__ void __pipeline_memcpy_async(void *dst_shared, const void *src_global, size_t size_and_align,
                                        size_t zfill = 0);
__device__ void __pipeline_commit(void);
__device__ void __pipeline_wait_prior(size_t prior);
__device__ void __pipeline_arrive_on(unsigned long long *bar);
#endif
