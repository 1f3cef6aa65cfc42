/* syncheck CUDA model header */
#pragma once
#include "cuda_runtime.h"
