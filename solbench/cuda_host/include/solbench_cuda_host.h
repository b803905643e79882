// solbench's CUDA execution layer: force-included (-include) before a kernel.cu compiled as C++
// against torch's CPU build, so the same text that nvcc builds runs on the CPU with CUDA's
// semantics. Covers exactly the vocabulary of docs/kernel-contract.md.
#pragma once

#define __SOLBENCH_CUDA_HOST__ 1

#include "solbench_cuda_host/device_api.h"
#include "solbench_cuda_host/device_attributes.h"
#include "solbench_cuda_host/device_math.h"
#include "solbench_cuda_host/device_state.h"
#include "solbench_cuda_host/fp8_types.h"
#include "solbench_cuda_host/half_types.h"
#include "solbench_cuda_host/launch.h"
#include "solbench_cuda_host/qualifiers.h"
#include "solbench_cuda_host/runtime_types.h"
#include "solbench_cuda_host/shared_memory.h"
