// Recognized op -> kernel.cu text.
//
// The family picks the template (fused_row, gated_activation, reduction); the
// emitter prints the op's expressions into the template's slots, and the host
// binding around it (host_binder.h): checks on every tensor, the axis sizes read
// from the tensors, the launch variant (warp or block per row, cached in registers
// or streamed, 16-byte vectors or scalars), and the PYBIND11_MODULE.
#pragma once

#include "recognizers/recognizer.h"

#include <string>
#include <variant>

namespace solbench::codegen {

struct KernelOptions {
    bool destination_passing = true; // run(inputs..., outputs...) vs returning the outputs
    std::string source_file;         // the .lg file's name (no directories)
};

struct EmitError {
    std::string message;
};

// The complete kernel.cu for the op, or why it cannot be emitted.
std::variant<std::string, EmitError> emit_kernel(const OpDescription& op,
                                                 const KernelOptions& options);

// The C++ type a tensor of this dtype holds in the kernel, if supported
// ("float", "__nv_bfloat16", "__half").
std::optional<std::string> cuda_type(ir::DType t);

} // namespace solbench::codegen
