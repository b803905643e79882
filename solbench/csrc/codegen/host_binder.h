// The host side of a kernel.cu: run()'s signature, its TORCH_CHECKs on every tensor
// and axis size, the outputs it allocates, and the launches with their if/else over
// the launch plan's variants (launch_plan.h).
//
// The device side (kernel_emitter.cpp) hands the binder the op and the layout its
// kernels settled on; nothing flows back, so this file reads as "what the host
// checks and launches" apart from "what the device computes".
#pragma once

#include "codegen/emit_names.h"
#include "codegen/kernel_emitter.h"
#include "codegen/launch_plan.h"

#include <set>
#include <string>
#include <utility>
#include <vector>

namespace solbench::codegen {

// What the kernels settled that the host must match.
struct KernelLayout {
    bool flat = false;  // one long row of rows * cols elements (an elementwise op)
    std::set<int> axes; // the axis sizes the kernels take as parameters
    // The column offsets and wrap widths of the kernels' reads: a vector lands on
    // whole vectors only if these are whole vectors too.
    std::vector<ir::Dim> shifts;
};

// What a vectorized launch asks of its tensors: the alignment helper the kernel header
// defines (aligned16, aligned32) and the vector's columns, which every row offset is a
// multiple of.
struct VectorAccess {
    std::string aligned, width;
};
inline const VectorAccess kNarrowAccess{"aligned16", "kVectorWidth"};   // 16-byte vectors
inline const VectorAccess kWideAccess{"aligned32", "kWideVectorWidth"}; // 32-byte ones

// A column sum's launches: the output's identifier and the device function summed.
struct ColumnSumLaunch {
    std::string name, function;
    int output = 0;
};

class HostBinder {
  public:
    HostBinder(const OpDescription& op, const KernelOptions& options, KernelLayout layout)
        : op_(op), ir_(op.ir), destination_passing_(options.destination_passing),
          layout_(std::move(layout)) {}

    std::string run_signature() const;
    // The checks on every tensor, the axis sizes bound from them, then (return style)
    // the outputs' allocations; `errors` gets what cannot be bound.
    std::vector<std::string> checks(std::vector<std::string>& errors) const;
    // The first thing after the checks: return when there is nothing to launch.
    std::string empty_return() const;
    std::string returned() const; // the outputs as run() returns them
    // The kernels' parameters (with types) or the matching launch arguments, in one
    // place so that the two agree.
    std::vector<std::string> kernel_params(bool with_types) const;

    std::vector<std::string> row_launch(const RowLaunchPlan& plan) const;
    std::vector<std::string> element_launch(const ElementLaunchPlan& plan) const;
    std::vector<std::string> column_sum_launch(const std::vector<ColumnSumLaunch>& sums) const;
    std::vector<std::string> row_sum_launch() const;
    // One row set's block of run() (an op of several): its sizes and its launches.
    std::vector<std::string> row_set_block(const std::string& ns, const std::string& comment,
                                           const std::vector<std::string>& launch) const;

  private:
    std::string axis(int a) const { return host_axis(ir_, a); }
    std::string dim(const ir::Dim& d) const { return host_dim(ir_, d); }
    std::vector<std::string> row_count_lines() const;
    std::string empty_test() const;
    std::string zero_sums() const;
    std::vector<std::string> vector_conditions(const VectorAccess& access) const;
    std::vector<std::string> launch_prologue(bool wide) const;

    const OpDescription& op_;
    const ir::OpIR& ir_;
    bool destination_passing_;
    KernelLayout layout_;
};

} // namespace solbench::codegen
