// Shim for <cuda_bf16.h>: __nv_bfloat16 and its conversions (see solbench_cuda_host/half_types.h).
#pragma once
#include "solbench_cuda_host.h"
