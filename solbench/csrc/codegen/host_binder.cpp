// run()'s checks on the tensors, its allocations and its launches.
#include "codegen/host_binder.h"

#include "ir/walk.h"

#include <algorithm>

namespace solbench::codegen {

using ir::Dim;
using ir::DType;
using ir::Role;
using ir::Tensor;

namespace {

const char* scalar_type_enum(DType t) {
    switch (t) {
    case DType::BFloat16:
        return "at::ScalarType::BFloat16";
    case DType::Float16:
        return "at::ScalarType::Half";
    case DType::Int8:
        return "at::ScalarType::Char";
    case DType::Int16:
        return "at::ScalarType::Short";
    case DType::Float8E4M3:
        return "at::ScalarType::Float8_e4m3fn";
    case DType::Float8E5M2:
        return "at::ScalarType::Float8_e5m2";
    case DType::Int32:
        return "at::ScalarType::Int";
    case DType::Int64:
        return "at::ScalarType::Long";
    case DType::Bool:
        return "at::ScalarType::Bool";
    default:
        return "at::ScalarType::Float";
    }
}

// A launch, skipped when its grid is empty (no rows or no columns).
void add_launch(std::vector<std::string>& launch, const std::string& nonempty,
                const std::string& grid, const std::string& call) {
    launch.push_back("if (status == cudaSuccess && " + nonempty + ") {");
    launch.push_back("    cudaLaunchConfig_t config = {};");
    launch.push_back("    config.gridDim = " + grid + ";");
    launch.push_back("    config.blockDim = dim3(kBlockThreads);");
    launch.push_back("    config.stream = stream.stream();");
    launch.push_back("    status = cudaLaunchKernelEx(&config, " + call + ");");
    launch.push_back("}");
}

} // namespace

std::string HostBinder::run_signature() const {
    std::vector<std::string> params;
    for (size_t i = 0; i < ir_.inputs.size(); ++i) {
        const Tensor& t = ir_.inputs[i];
        std::string name = input_name(ir_, static_cast<int>(i));
        if (t.role != Role::Scalar || t.tensor_scalar()) {
            params.push_back("const at::Tensor& " + name);
        } else if (t.dtype == DType::Bool) {
            params.push_back("bool " + name);
        } else if (is_floating(t.dtype)) {
            params.push_back("double " + name);
        } else {
            params.push_back("int64_t " + name);
        }
    }
    std::string ret = "void";
    if (destination_passing_) {
        for (size_t i = 0; i < ir_.outputs.size(); ++i)
            params.push_back("const at::Tensor& " + output_name(ir_, static_cast<int>(i)));
    } else if (ir_.outputs.size() == 1) {
        ret = "at::Tensor";
    } else {
        std::vector<std::string> types(ir_.outputs.size(), "at::Tensor");
        ret = "std::tuple<" + join(types, ", ") + ">";
    }
    return ret + " run(" + join(params, ", ") + ")";
}

// TORCH_CHECKs on every tensor, the axis sizes, and (return style) the outputs.
std::vector<std::string> HostBinder::checks(std::vector<std::string>& errors) const {
    std::vector<std::string> lines, allocs;
    std::set<int> bound;
    auto check_tensor = [&](const Tensor& t, const std::string& name) {
        const std::string q = "\"" + t.name;
        lines.push_back("TORCH_CHECK(" + name + ".device() == stream.device(), " + q +
                        " must be on the launch's device \", stream.device(), \", got \", " + name +
                        ".device());");
        lines.push_back("TORCH_CHECK(" + name + ".scalar_type() == " + scalar_type_enum(t.dtype) +
                        ", " + q + " must be " + ir::benchmark_name(t.dtype) + ", got \", " + name +
                        ".scalar_type());");
        lines.push_back("TORCH_CHECK(" + name + ".is_contiguous(), " + q +
                        " must be contiguous\");");
        // A scalar passed as a one-element tensor is 1-d of size 1.
        const bool one_element = t.scalar_form == ir::ScalarForm::OneElement;
        const std::string rank = std::to_string(one_element ? 1 : ir::real_shape(ir_, t).size());
        lines.push_back("TORCH_CHECK(" + name + ".dim() == " + rank + ", " + q + " must be " +
                        rank + "-d, got \", " + name + ".dim());");
        if (one_element)
            lines.push_back("TORCH_CHECK(" + name + ".size(0) == 1, " + q +
                            " must hold one element, got \", " + name + ".size(0));");
    };
    auto bind_dims = [&](const Tensor& t, const std::string& name) {
        const std::vector<Dim> shape = ir::real_shape(ir_, t); // a merged row's parts
        for (size_t d = 0; d < shape.size(); ++d) {
            const Dim& dim_d = shape[d];
            std::string size = name + ".size(" + std::to_string(d) + ")";
            const std::string& axis_name = ir_.axes[dim_d.axis].name;
            if (!bound.count(dim_d.axis) && !is_const(ir_, dim_d.axis)) {
                bound.insert(dim_d.axis);
                if (dim_d.scale == 1) {
                    lines.push_back("const int64_t " + axis(dim_d.axis) + " = " + size + ";");
                } else {
                    std::string k = std::to_string(dim_d.scale);
                    lines.push_back("TORCH_CHECK(" + size + " % " + k + " == 0, \"" + t.name +
                                    ".size(" + std::to_string(d) + ") must be a multiple of " + k +
                                    ", got \", " + size + ");");
                    lines.push_back("const int64_t " + axis(dim_d.axis) + " = " + size + " / " + k +
                                    ";");
                }
                continue;
            }
            std::string expected = dim(dim_d);
            lines.push_back(
                "TORCH_CHECK(" + size + " == " + expected + ", \"" + t.name + ".size(" +
                std::to_string(d) + ") must be " +
                (dim_d.scale == 1 ? axis_name : std::to_string(dim_d.scale) + " * " + axis_name) +
                " (\", " + expected + ", \"), got \", " + size + ");");
        }
    };
    for (size_t i = 0; i < ir_.inputs.size(); ++i)
        if (ir_.inputs[i].role != Role::Scalar || ir_.inputs[i].tensor_scalar())
            check_tensor(ir_.inputs[i], input_name(ir_, static_cast<int>(i)));
    if (destination_passing_)
        for (size_t i = 0; i < ir_.outputs.size(); ++i)
            check_tensor(ir_.outputs[i], output_name(ir_, static_cast<int>(i)));
    for (size_t i = 0; i < ir_.inputs.size(); ++i)
        if (ir_.inputs[i].role != Role::Scalar)
            bind_dims(ir_.inputs[i], input_name(ir_, static_cast<int>(i)));
    // A Table's rows must hold every position the op reads (the interpreter's range error).
    for (size_t i = 0; i < ir_.inputs.size(); ++i) {
        const Tensor& t = ir_.inputs[i];
        if (t.role != Role::Table) continue;
        int64_t need = 0;
        for (const ir::Expr& v : ir_.values)
            ir::visit(v, [&](const ir::Node& n) {
                if (n.op == ir::Op::Load && n.index == static_cast<int>(i) && n.fixed_column)
                    need = std::max(need,
                                    *n.fixed_column >= 0 ? *n.fixed_column + 1 : -*n.fixed_column);
            });
        const std::string width = dim(ir::column_dim(t));
        lines.push_back("TORCH_CHECK(" + width + " >= " + std::to_string(need) + ", \"" + t.name +
                        " is read at position " + std::to_string(need) +
                        " of its rows, which hold \", " + width + ", \" values\");");
    }
    // An Int parameter passed as a scalar gives its axis, or must agree with the tensors.
    for (size_t i = 0; i < ir_.inputs.size(); ++i) {
        const Tensor& t = ir_.inputs[i];
        if (!t.size) continue;
        const std::string name = input_name(ir_, static_cast<int>(i));
        lines.push_back("TORCH_CHECK(" + name + " >= 0, \"" + t.name +
                        " is a size and must not be negative, got \", " + name + ");");
        if (!t.size->axis) continue; // the op never uses it
        const int a = *t.size->axis;
        if (bound.count(a) || is_const(ir_, a)) {
            lines.push_back("TORCH_CHECK(" + name + " == " + axis(a) + ", \"" + t.name +
                            " must equal " + ir_.axes[a].name + " (\", " + axis(a) +
                            ", \"), got \", " + name + ");");
        } else {
            bound.insert(a);
            if (axis(a) != name) // else the parameter is the axis already
                lines.push_back("const int64_t " + axis(a) + " = " + name + ";");
        }
    }
    if (destination_passing_) {
        for (size_t i = 0; i < ir_.outputs.size(); ++i)
            bind_dims(ir_.outputs[i], output_name(ir_, static_cast<int>(i)));
    } else {
        for (size_t i = 0; i < ir_.outputs.size(); ++i) {
            const Tensor& t = ir_.outputs[i];
            std::vector<std::string> sizes;
            for (const Dim& d : ir::real_shape(ir_, t))
                sizes.push_back(dim(d));
            allocs.push_back("const at::Tensor " + output_name(ir_, static_cast<int>(i)) +
                             " = torch::empty({" + join(sizes, ", ") +
                             "}, torch::TensorOptions().dtype(" + scalar_type_enum(t.dtype) +
                             ").device(stream.device()));");
        }
    }
    // A merged row (r2 §8) runs over the product of its parts.
    for (int a = 0; a < static_cast<int>(ir_.axes.size()); ++a) {
        if (ir_.axes[a].parts.empty() || is_const(ir_, a)) continue;
        std::vector<std::string> parts;
        for (int p : ir_.axes[a].parts)
            parts.push_back(axis(p));
        lines.push_back("const int64_t " + axis(a) + " = " + join(parts, " * ") + ";");
    }
    for (const auto& [a, b] : ir_.equal_axes)
        lines.push_back("TORCH_CHECK(" + axis(a) + " == " + axis(b) + ", \"" + ir_.axes[b].name +
                        " must equal " + ir_.axes[a].name +
                        " (one axis of the definition), got \", " + axis(b) + ", \" and \", " +
                        axis(a) + ");");
    if (ir::row_set_count(ir_) == 1) // else each row set counts its own (row_set_block)
        for (const std::string& l : row_count_lines())
            lines.push_back(l);
    for (size_t i = 0; i < ir_.outputs.size(); ++i) // a sum over rows: its per-row sums
        if (ir_.outputs[i].role == Role::RowSum) {
            if (ir::row_set_count(ir_) != 1)
                errors.push_back("a sum over rows in an op of several row sets");
            lines.push_back("const at::Tensor " + output_name(ir_, static_cast<int>(i)) +
                            "_rows = torch::empty({rows}, torch::TensorOptions().dtype("
                            "at::ScalarType::Float).device(stream.device()));");
        }
    lines.insert(lines.end(), allocs.begin(), allocs.end());
    return lines;
}

// `rows` (and `cols` when the kernel takes it) for the launches.
std::vector<std::string> HostBinder::row_count_lines() const {
    std::vector<std::string> lines;
    std::vector<std::string> row_sizes;
    for (int a : ir_.row_axes)
        row_sizes.push_back(axis(a));
    lines.push_back("const int64_t rows = " + (row_sizes.empty() ? "1" : join(row_sizes, " * ")) +
                    ";");
    lines.push_back("TORCH_CHECK(rows < (int64_t{1} << 31), \"" + ir_.name +
                    ": too many rows for one launch: \", rows);");
    // A flattened elementwise launch takes rows * cols and never needs `cols`.
    const bool kernel_takes_cols =
        op_.family == Family::GatedActivation ? !layout_.flat : !is_const(ir_, ir_.column_axis);
    if (kernel_takes_cols && axis(ir_.column_axis) != "cols")
        lines.push_back("const int64_t cols = " + axis(ir_.column_axis) + ";");
    return lines;
}

// When the launches have nothing to do, and the column sums to zero then (a sum
// over no rows is zero).
std::string HostBinder::empty_test() const {
    return op_.family == Family::GatedActivation ? "rows == 0 || " + dim(row_dim(ir_)) + " == 0"
                                                 : "rows == 0";
}

std::string HostBinder::zero_sums() const {
    std::string zero;
    for (size_t i = 0; i < ir_.outputs.size(); ++i)
        if (ir_.outputs[i].role == Role::ColumnSum || ir_.outputs[i].role == Role::RowSum)
            zero += output_name(ir_, static_cast<int>(i)) + ".zero_(); ";
    return zero;
}

std::string HostBinder::empty_return() const {
    // Nothing to launch for an empty tensor.
    const std::string ret = destination_passing_ ? "return;" : "return " + returned() + ";";
    // No rows: a column reduction's sums are zeros all the same.
    const std::string zero = zero_sums();
    return "if (" + empty_test() + ") " + (zero.empty() ? ret : "{ " + zero + ret + " }");
}

// The outputs as run() returns them (return style): one tensor, or a tuple.
std::string HostBinder::returned() const {
    std::vector<std::string> names;
    for (size_t i = 0; i < ir_.outputs.size(); ++i)
        names.push_back(output_name(ir_, static_cast<int>(i)));
    return names.size() == 1 ? names[0] : "{" + join(names, ", ") + "}";
}

std::vector<std::string> HostBinder::kernel_params(bool with_types) const {
    std::vector<std::string> out;
    for (size_t i = 0; i < ir_.inputs.size(); ++i) {
        const Tensor& t = ir_.inputs[i];
        std::string name = input_name(ir_, static_cast<int>(i));
        if (t.role == Role::Unread || t.size) continue; // the kernel never reads it
        if (t.role == Role::Scalar && !t.tensor_scalar()) {
            out.push_back(with_types ? "float " + name : "static_cast<float>(" + name + ")");
            continue;
        }
        std::string type = *cuda_type(t.dtype);
        out.push_back(with_types ? "const " + type + "* __restrict__ " + name
                                 : "static_cast<const " + type + "*>(" + name + ".data_ptr())");
    }
    for (size_t i = 0; i < ir_.outputs.size(); ++i) {
        const Tensor& t = ir_.outputs[i];
        if (t.role == Role::ColumnSum) continue; // written by its own kernels
        std::string name = output_name(ir_, static_cast<int>(i));
        if (t.role == Role::RowSum) { // the row kernel writes its per-row sums, in fp32
            out.push_back(with_types ? "float* __restrict__ " + name + "_rows"
                                     : "static_cast<float*>(" + name + "_rows.data_ptr())");
            continue;
        }
        std::string type = *cuda_type(t.dtype);
        out.push_back(with_types ? type + "* __restrict__ " + name
                                 : "static_cast<" + type + "*>(" + name + ".data_ptr())");
    }
    out.push_back(with_types ? "int64_t rows" : "rows");
    if (op_.family == Family::GatedActivation || !is_const(ir_, ir_.column_axis))
        out.push_back(with_types ? "int64_t cols" : "cols");
    for (int a : layout_.axes) {
        if (a == ir_.column_axis && !layout_.flat) continue;
        out.push_back(with_types ? "int64_t " + identifier(ir_.axes[a].name) : axis(a));
    }
    return out;
}

// Conditions for vectors of `access`: aligned pointers, and row starts and offsets on whole
// vectors.
std::vector<std::string> HostBinder::vector_conditions(const VectorAccess& access) const {
    std::vector<std::string> conds;
    std::set<std::string> dims;
    auto add_tensor = [&](const Tensor& t, const std::string& name) {
        if (t.role == Role::Scalar || t.role == Role::PerRow || t.role == Role::Unread ||
            t.role == Role::ColumnSum || t.role == Role::RowSum || t.role == Role::Table)
            return;
        conds.push_back(access.aligned + "(" + name + ")");
        if (!layout_.flat && t.role == Role::Rows) dims.insert(dim(ir::column_dim(t)));
    };
    // A tensor over a merged row's outer axis alone is read element by element.
    auto divided_only = [&](int input) {
        bool plain = false, divided = false;
        for (const ir::Expr& v : ir_.values)
            ir::visit(v, [&](const ir::Node& n) {
                if (n.op != ir::Op::Load || n.index != input) return;
                (n.col_div ? divided : plain) = true;
            });
        return divided && !plain;
    };
    for (size_t i = 0; i < ir_.inputs.size(); ++i)
        if (!divided_only(static_cast<int>(i)))
            add_tensor(ir_.inputs[i], input_name(ir_, static_cast<int>(i)));
    for (size_t i = 0; i < ir_.outputs.size(); ++i)
        add_tensor(ir_.outputs[i], output_name(ir_, static_cast<int>(i)));
    for (const Dim& d : layout_.shifts)
        dims.insert(dim(d));
    // A pass runs whole vectors over its reduction's extent, which no tensor may have (a
    // constant loop `for k from 1 to 3` summing a per-row value): it must be whole too.
    for (const ir::Expr& v : ir_.values)
        ir::visit(v, [&](const ir::Node& n) {
            if (n.op == ir::Op::Reduce) dims.insert(dim(n.extent));
        });
    for (const auto& d : dims)
        conds.push_back("(" + d + ") % " + access.width + " == 0");
    if (conds.empty()) conds.push_back("true");
    return conds;
}

// Every launch ladder starts by testing for 16-byte vectors, and one with 32-byte variants
// for 32-byte ones: on a device that has them (wide_accesses), every tensor on whole ones.
std::vector<std::string> HostBinder::launch_prologue(bool wide) const {
    std::vector<std::string> lines = {
        "const bool vectorized = " + join(vector_conditions(kNarrowAccess), " && ") + ";"};
    if (wide)
        lines.push_back("const bool wide = vectorized && wide_accesses(stream) && " +
                        join(vector_conditions(kWideAccess), " && ") + ";");
    lines.push_back("cudaError_t status = cudaSuccess;");
    return lines;
}

// The if/else over a row launch plan: `status = launch_rows<...>(...)` for the first
// variant whose row length fits.
std::vector<std::string> HostBinder::row_launch(const RowLaunchPlan& plan) const {
    const std::string cols = axis(ir_.column_axis);
    const std::string call_args = "rows, stream.stream(), " + join(kernel_params(false), ", ");
    auto launch = [&](const RowVariant& v) {
        const std::string threads = v.threads == kWarpThreads    ? "kWarpSize"
                                    : v.threads == kBlockThreads ? "kBlockThreads"
                                                                 : std::to_string(v.threads);
        const std::string vec = v.wide                                   ? "kWideVectorWidth"
                                : v.vectorized && plan.vector_width != 1 ? "kVectorWidth"
                                                                         : "1";
        return "    status = launch_rows<" + threads + ", " + vec + ", " +
               std::to_string(v.chunks) + ">(" + call_args + ");";
    };
    std::vector<std::string> lines = launch_prologue(plan.has_wide());
    // The 32-byte ladder first, each of its variants under `wide`; then the 16-byte one.
    std::vector<std::pair<std::string, RowVariant>> tried;
    for (const RowVariant& v : plan.wide_ladder)
        tried.emplace_back("wide", v);
    for (const RowVariant& v : plan.ladder)
        tried.emplace_back(v.vectorized ? "vectorized" : "", v);
    for (size_t k = 0; k < tried.size(); ++k) {
        const auto& [guard, v] = tried[k];
        std::string test = guard;
        if (v.max_cols) test += " && " + cols + " <= " + std::to_string(*v.max_cols);
        if (k == 0)
            lines.push_back("if (" + test + ") {");
        else if (test.empty())
            lines.push_back("} else {");
        else
            lines.push_back("} else if (" + test + ") {");
        lines.push_back(launch(v));
    }
    lines.push_back("}");
    return lines;
}

// The if/else over an elementwise launch plan; a flat launch passes rows = 1 and
// cols = every element.
std::vector<std::string> HostBinder::element_launch(const ElementLaunchPlan& plan) const {
    const std::string cols = dim(row_dim(ir_));
    std::vector<std::string> call = kernel_params(false);
    if (plan.flat) {
        for (auto& a : call) {
            if (a == "rows")
                a = "1";
            else if (a == "cols")
                a = "rows * " + cols;
        }
    }
    const std::string shape_args = plan.flat ? "1, rows * " + cols : "rows, " + cols;
    const std::string call_args = shape_args + ", stream.stream(), " + join(call, ", ");
    std::vector<std::string> lines = launch_prologue(false);
    for (size_t k = 0; k < plan.ladder.size(); ++k) {
        const bool vectors = plan.ladder[k].vectorized;
        const bool last = k + 1 == plan.ladder.size();
        lines.push_back(k == 0 ? "if (vectorized) {"
                        : last ? "} else {"
                               : "} else if (vectorized) {");
        lines.push_back(std::string("    status = launch_elements<") +
                        (vectors ? "kVectorWidth" : "1") + ", " +
                        std::to_string(plan.ladder[k].chunks) + ">(" + call_args + ");");
    }
    lines.push_back("}");
    return lines;
}

// Column sums summed over every row share one chunking of the rows: partial sums per
// chunk, then the chunks in order; with kept rows, one thread per output element.
std::vector<std::string>
HostBinder::column_sum_launch(const std::vector<ColumnSumLaunch>& sums) const {
    const std::vector<std::string> args = kernel_params(false);
    const std::string cols = dim(row_dim(ir_));
    std::vector<std::string> launch;
    bool chunked = false;
    for (const ColumnSumLaunch& s : sums) {
        const Tensor& out = ir_.outputs[static_cast<size_t>(s.output)];
        const std::string out_ptr =
            "static_cast<" + *cuda_type(out.dtype) + "*>(" + s.name + ".data_ptr())";
        if (out.row_subset.empty()) {
            if (!chunked) { // one chunking, shared by every such output
                chunked = true;
                launch.push_back("// Column reductions: partial sums over chunks of rows, then "
                                 "the chunks in order.");
                // About kSumBlocks blocks in all (a few waves on a big GPU).
                launch.push_back("const int64_t column_blocks = (" + cols +
                                 " + kBlockThreads - 1) / kBlockThreads;");
                launch.push_back("const int64_t chunk_target = column_blocks > 0 ? (kSumBlocks + "
                                 "column_blocks - 1) / column_blocks : 1;");
                launch.push_back("const int64_t rows_per_chunk = rows > chunk_target ? (rows + "
                                 "chunk_target - 1) / chunk_target : 1;");
                launch.push_back("const int64_t sum_chunks = (rows + rows_per_chunk - 1) / "
                                 "rows_per_chunk;");
                launch.push_back("const at::Tensor partial = torch::empty({sum_chunks, " + cols +
                                 "}, torch::TensorOptions().dtype(at::ScalarType::Float)"
                                 ".device(stream.device()));");
            }
            add_launch(launch, "column_blocks > 0 && sum_chunks > 0",
                       "dim3(static_cast<unsigned>(column_blocks), "
                       "static_cast<unsigned>(sum_chunks))",
                       s.function + "_partial, " + join(args, ", ") +
                           ", static_cast<float*>(partial.data_ptr()), rows_per_chunk");
            add_launch(launch, "column_blocks > 0", "dim3(static_cast<unsigned>(column_blocks))",
                       s.function + "_finish, static_cast<const float*>(partial.data_ptr()), " +
                           out_ptr + ", sum_chunks, static_cast<int64_t>(" + cols + ")");
        } else {
            std::vector<std::string> kept;
            for (int p : out.row_subset)
                kept.push_back(axis(ir_.row_axes[static_cast<size_t>(p)]));
            const std::string count = s.name + "_kept";
            launch.push_back("const int64_t " + count + " = " + join(kept, " * ") + ";");
            add_launch(launch, count + " * " + cols + " > 0",
                       "dim3(static_cast<unsigned>((" + count + " * " + cols +
                           " + kBlockThreads - 1) / kBlockThreads))",
                       s.function + "_kept, " + join(args, ", ") + ", " + out_ptr + ", " + count);
        }
    }
    return launch;
}

// Sums over rows: row_sum.mustache's kernel adds the row kernel's per-row sums over
// the summed rows, one thread per kept row.
std::vector<std::string> HostBinder::row_sum_launch() const {
    std::vector<std::string> launch;
    for (size_t i = 0; i < ir_.outputs.size(); ++i) {
        const Tensor& out = ir_.outputs[i];
        if (out.role != Role::RowSum) continue;
        const std::string name = output_name(ir_, static_cast<int>(i));
        const std::string function = identifier(ir_.name) + "_" + name;
        std::vector<std::string> kept;
        for (int p : out.row_subset)
            kept.push_back(axis(ir_.row_axes[static_cast<size_t>(p)]));
        const std::string count = name + "_kept";
        launch.push_back("// " + out.name + ": the per-row sums added over the leading rows.");
        launch.push_back("const int64_t " + count + " = " + join(kept, " * ") + ";");
        add_launch(launch, count + " > 0",
                   "dim3(static_cast<unsigned>((" + count +
                       " + kBlockThreads - 1) / kBlockThreads))",
                   function + "_finish, static_cast<const float*>(" + name +
                       "_rows.data_ptr()), static_cast<" + *cuda_type(out.dtype) + "*>(" + name +
                       ".data_ptr()), rows / " + count + ", " + count);
    }
    return launch;
}

std::vector<std::string> HostBinder::row_set_block(const std::string& ns,
                                                   const std::string& comment,
                                                   const std::vector<std::string>& launch) const {
    std::vector<std::string> h;
    h.push_back("{ // " + comment);
    h.push_back("    using namespace " + ns + ";");
    for (const std::string& l : row_count_lines())
        h.push_back("    " + l);
    const std::string zero = zero_sums();
    if (!zero.empty()) h.push_back("    if (" + empty_test() + ") { " + zero + "}");
    h.push_back("    if (status == cudaSuccess && !(" + empty_test() + ")) {");
    for (const std::string& l : launch)
        h.push_back("        " + l);
    h.push_back("    }");
    h.push_back("}");
    return h;
}

} // namespace solbench::codegen
