/* syncheck: no wheel of the cuda extra ships this CUDA library header; the model's declarations stand in.
   Searched last (-idirafter): a toolkit's own copy wins. */
#include "../cuda_model/cufft.h"
