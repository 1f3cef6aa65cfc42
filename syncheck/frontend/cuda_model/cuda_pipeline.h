// syncheck model of <cuda_pipeline.h>: the __pipeline_* primitives (cp.async, sm_80+).
#ifndef _CUDA_PIPELINE_H_
#define _CUDA_PIPELINE_H_
#include "cuda_pipeline_primitives.h"
#endif
