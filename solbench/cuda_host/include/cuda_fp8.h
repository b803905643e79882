// Shim for <cuda_fp8.h>: __nv_fp8_e4m3 / __nv_fp8_e5m2 and their conversions (see
// solbench_cuda_host/fp8_types.h).
#pragma once
#include "solbench_cuda_host.h"
