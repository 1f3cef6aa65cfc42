/* syncheck CUDA model header: cuBLAS API, as cublas_v2.h. */
#pragma once
#include "cublas_v2.h"
