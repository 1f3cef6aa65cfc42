/* syncheck CUDA model header */
#pragma once
#include "../cooperative_groups.h"
