/* syncheck CUDA model header */
#include "../cooperative_groups.h"
