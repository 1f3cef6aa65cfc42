/* syncheck CUDA model header */
#include "cuda_runtime.h"
