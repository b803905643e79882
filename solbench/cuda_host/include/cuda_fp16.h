// Shim for <cuda_fp16.h>: __half and its conversions (see solbench_cuda_host/half_types.h).
#pragma once
#include "solbench_cuda_host.h"
