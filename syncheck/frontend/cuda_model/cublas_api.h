/* syncheck CUDA model header: cuBLAS API, as cublas_v2.h. */
#include "cublas_v2.h"
