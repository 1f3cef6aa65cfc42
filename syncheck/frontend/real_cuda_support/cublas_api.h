/* syncheck: no wheel ships cuBLAS; its host API as the model header declares it. */
#include "../cuda_model/cublas_api.h"
