// Shim for <cuda_runtime.h>: the CUDA execution layer provides the runtime API on the host.
#pragma once
#include "solbench_cuda_host.h"
