// Fills the family templates from the op IR; host_binder.cpp writes the host binding.
#include "codegen/kernel_emitter.h"

#include "codegen/emit_names.h"
#include "codegen/expr_printer.h"
#include "codegen/host_binder.h"
#include "codegen/launch_plan.h"
#include "codegen/pair_printer.h"
#include "codegen/row_schedule.h"
#include "codegen/templater.h"
#include "ir/walk.h"
#include "version.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

namespace solbench::codegen {

using ir::Dim;
using ir::DType;
using ir::Role;
using ir::Tensor;
using nlohmann::json;

std::optional<std::string> cuda_type(DType t) {
    switch (t) {
    case DType::Float32:
        return "float";
    case DType::BFloat16:
        return "__nv_bfloat16";
    case DType::Float16:
        return "__half";
    case DType::Int8:
        return "int8_t";
    case DType::Int16:
        return "int16_t";
    case DType::Int32:
        return "int32_t";
    case DType::Int64:
        return "int64_t";
    case DType::Bool: // torch's bool is one byte holding 0 or 1; CUDA has no __ldg of bool
        return "uint8_t";
    case DType::Float8E4M3:
        return "__nv_fp8_e4m3";
    case DType::Float8E5M2:
        return "__nv_fp8_e5m2";
    default:
        return std::nullopt;
    }
}

namespace {

int element_size(DType t) {
    switch (t) {
    case DType::Float32:
    case DType::Int32:
        return 4;
    case DType::Int64:
        return 8;
    case DType::Int8:
    case DType::Bool:
    case DType::Float8E4M3:
    case DType::Float8E5M2:
        return 1;
    default:
        return 2;
    }
}

// The kernel header's name for a tensor dtype: its to_float / from_float
// overloads are emitted only for the dtypes the kernel reads or writes.
// Integers and bool go by their benchmark names.
const char* header_dtype(DType t) {
    switch (t) {
    case DType::BFloat16:
        return "bfloat16";
    case DType::Float16:
        return "half";
    case DType::Int8:
    case DType::Int16:
    case DType::Int32:
    case DType::Int64:
    case DType::Bool:
        return ir::benchmark_name(t);
    case DType::Float8E4M3:
        return "fp8_e4m3";
    case DType::Float8E5M2:
        return "fp8_e5m2";
    default:
        return "float";
    }
}

std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        while (!line.empty() && (line.back() == ' ' || line.back() == '\\' || line.back() == '\r'))
            line.pop_back();
        lines.push_back(line);
    }
    while (!lines.empty() && lines.back().empty())
        lines.pop_back();
    return lines;
}

json string_list(const std::vector<std::string>& v) {
    json a = json::array();
    for (const auto& s : v)
        a.push_back(s);
    return a;
}

// The recognizer's online pairs (softmax's max and its normalizer, reduced in
// one pass: recognizers/online_softmax.cpp), keyed by node: each sum to its max.
OnlinePairs pair_nodes(const std::vector<ir::Expr>& reductions,
                       const std::vector<OnlinePair>& online) {
    OnlinePairs pairs;
    for (const OnlinePair& p : online)
        if (p.sum < reductions.size() && p.max < reductions.size())
            pairs[reductions[p.sum].get()] = reductions[p.max].get();
    return pairs;
}

std::string accumulate(ir::ReduceKind kind, const std::string& acc, const std::string& value) {
    switch (kind) {
    case ir::ReduceKind::Sum:
        return acc + " += " + value + ";";
    case ir::ReduceKind::Max:
        return acc + " = fmaxf(" + acc + ", " + value + ");";
    case ir::ReduceKind::Min:
        return acc + " = fminf(" + acc + ", " + value + ");";
    }
    return acc + ";";
}

const char* reduce_init(ir::ReduceKind kind) {
    return kind == ir::ReduceKind::Sum   ? "0.0f"
           : kind == ir::ReduceKind::Max ? "-INFINITY"
                                         : "INFINITY";
}

const char* reduce_combine(ir::ReduceKind kind) {
    return kind == ir::ReduceKind::Sum ? "SumOp" : kind == ir::ReduceKind::Max ? "MaxOp" : "MinOp";
}

// One distinct read of an input: the input, its column offset, wrap width and divisor.
struct LoadKey {
    int input = 0;
    std::optional<Dim> offset;
    std::optional<Dim> wrap;
    std::optional<Dim> div;
    bool plain() const { return !offset && !wrap && !div; } // at the column itself
    friend bool operator<(const LoadKey& a, const LoadKey& b) {
        auto dim = [](const std::optional<Dim>& d) {
            return std::make_tuple(d.has_value(), d ? d->axis : 0, d ? d->scale : 0);
        };
        auto key = [&](const LoadKey& k) {
            return std::make_tuple(k.input, dim(k.offset), dim(k.wrap), dim(k.div));
        };
        return key(a) < key(b);
    }
};

// Shared state of one emission: names, the kernel's parameters, errors.
class Emitter {
  public:
    Emitter(const OpDescription& op, const KernelOptions& options)
        : op_(op), ir_(op.ir), options_(options) {
        std::vector<ir::Expr> roots = ir_.values;
        uses_ = use_counts(roots);
    }

    std::variant<std::string, EmitError> run();

    // One row set's part of an op of several (run_row_sets).
    struct SetCode {
        std::string comment;           // which rows, which family
        std::string kernels;           // its kernels' text, for its namespace
        json constants;                // its own constants (kVectorWidth, ...)
        std::vector<std::string> host; // the block of run() that launches them
        bool block_reduce = false;
        bool wraps = false;
        bool wide = false;
    };
    std::variant<SetCode, EmitError> set_code(const std::string& ns);

  private:
    // --- names and dimensions -------------------------------------------
    std::string input_name(int i) const { return codegen::input_name(ir_, i); }
    std::string output_name(int i) const { return codegen::output_name(ir_, i); }
    bool is_const(int axis) const { return codegen::is_const(ir_, axis); }
    // The axis size in kernel code: a constexpr, `cols`, or a kernel parameter.
    std::string kernel_axis(int axis) {
        if (is_const(axis)) return constant_name(ir_.axes[axis].name);
        if (axis == ir_.column_axis && !layout_.flat) return "cols";
        layout_.axes.insert(axis);
        return identifier(ir_.axes[axis].name);
    }
    std::string kernel_dim(const Dim& d) {
        std::string a = kernel_axis(d.axis);
        return d.scale == 1 ? a : std::to_string(d.scale) + " * " + a;
    }
    Dim row_dim() const { return codegen::row_dim(ir_); }
    std::string row_start(const Tensor& t);
    std::string row_coordinate(int p);
    // A Table input's value at a fixed position of the current row.
    std::string table_value(int input, int64_t position) {
        const Tensor& t = ir_.inputs[input];
        std::string width = kernel_dim(ir::column_dim(t));
        std::string at = position >= 0 ? std::to_string(position)
                                       : "(" + width + " - " + std::to_string(-position) + ")";
        return "to_float(" + input_name(input) + "[" + row_start(t) + " + " + at + "])";
    }
    // A scalar input in kernel code: the float parameter, or a 0-d tensor's element.
    std::string scalar_value(int input) const {
        const std::string name = input_name(input);
        return ir_.inputs[input].tensor_scalar() ? "to_float(" + name + "[0])" : name;
    }

    // --- pieces ----------------------------------------------------------
    std::optional<EmitError> check_supported();
    int vector_width() const;
    ExprNames names(std::set<LoadKey>* loads, bool element);
    PairPrinter::LoadPair pair_loads(std::set<LoadKey>* loads);
    std::string load_var(const LoadKey& key);
    std::string column_at(const LoadKey& key, const std::string& column);
    // The inputs a row schedule holds in registers (row_helpers.mustache's RowCache): `cached`,
    // rows read by two loops or more (or by a single pass's one loop), and `ahead`, the other
    // inputs the loops read at the row's columns, loaded with the row before the first
    // reduction (after_arrival).
    struct RowCaches {
        std::set<int> cached;
        std::set<int> ahead;
    };
    std::vector<std::string> load_lines(const std::set<LoadKey>& loads, const RowCaches& caches);
    // The elementwise kernel's loads, kChunks chunks a thread in flight: the arrays a row's
    // chunks are loaded into, the load of chunk k, and the name the element functions read
    // chunk k's values by (gated_activation_kernel.mustache).
    struct ChunkLoads {
        std::vector<std::string> arrays, loads, views;
    };
    ChunkLoads chunk_load_lines(const std::set<LoadKey>& loads);
    std::vector<std::string> row_pointer_lines(bool for_row_kernel);
    json row_context();
    // What a schedule's loops read: plain reads per input, loops, whether all share the row length.
    struct RowReads {
        std::map<int, int> count;
        int loops = 0;
        bool same_extents = true;
    };
    json row_body(const RowSchedule& schedule, const std::vector<ir::Expr>& reductions,
                  const RowCaches& caches, RowReads* reads);
    int chunk_registers(const std::set<int>& inputs) const;
    json gated_context();
    HostBinder host() const;
    std::vector<std::string> host_checks();
    void add_axis_constants();
    json family_context();
    void kernel_flags(json& ctx);
    std::variant<std::string, EmitError> run_row_sets();
    std::variant<std::string, EmitError> render_file(const std::string& tmpl, json ctx,
                                                     const std::vector<std::string>& checks,
                                                     const std::vector<std::string>& launch);

    const OpDescription& op_;
    const ir::OpIR& ir_;
    KernelOptions options_;
    std::map<const ir::Node*, int> uses_;
    std::map<const ir::Node*, std::string> reduction_names_;
    KernelLayout layout_; // its flat launch and axes; host() adds the reads' shifts
    std::map<LoadKey, std::string> offset_names_;
    std::vector<std::string> errors_;
    std::set<std::string> combines_;          // the group_reduce combine ops the kernel uses
    bool online_ = false;                     // an online max/sum pair (softmax) is reduced
    std::set<std::string_view> pair_helpers_; // those the row loops' pair forms call
    bool uses_wrap_ = false;                  // a read wraps around the row (column_at)
    bool uses_wide_ = false;                  // a launch takes 32-byte vectors (launch_plan.h)
    json constants_ = json::array();
    // Column reductions (r2 §8): the element function each sums over the rows,
    // and its arguments at row `row`, column `c` (the row pointers in scope).
    struct ElementFn {
        std::string name, function; // the output's identifier, the device function
        json element;               // for the templates: output, function, params, body
        std::vector<std::string> vector_args, tail_args;
        std::set<LoadKey> loads;
        int output = 0;
    };
    ElementFn element_fn(size_t output);
    std::vector<ElementFn> column_sums_;
    std::pair<std::string, std::vector<std::string>> column_sum_code();
    std::pair<std::string, std::vector<std::string>> row_sum_code();
    std::string kept_row(const std::vector<int>& kept);
};

std::optional<EmitError> Emitter::check_supported() {
    if (ir_.values.size() != ir_.outputs.size())
        return EmitError{"the op has " + std::to_string(ir_.outputs.size()) + " outputs but " +
                         std::to_string(ir_.values.size()) + " output expressions"};
    if (ir_.column_axis < 0 || ir_.column_axis >= static_cast<int>(ir_.axes.size()))
        return EmitError{"the op has no column axis"};
    for (const auto* list : {&ir_.inputs, &ir_.outputs})
        for (const Tensor& t : *list) {
            if (t.role == Role::Scalar) {
                if (list == &ir_.outputs) return EmitError{"output '" + t.name + "' is a scalar"};
                if (!t.tensor_scalar()) continue;
            }
            if (t.role == Role::Unread) continue; // checked on the host only
            if (!cuda_type(t.dtype))
                return EmitError{"tensor '" + t.name + "' has dtype " +
                                 ir::benchmark_name(t.dtype) +
                                 "; kernels support float32, bfloat16, float16, int8, int16, "
                                 "int32, int64, bool and FP8 (e4m3fn, e5m2) tensors"};
        }
    std::function<bool(const ir::Expr&)> fixed = [&](const ir::Expr& e) {
        if (e->op == ir::Op::Load && e->fixed_column &&
            ir_.inputs[static_cast<size_t>(e->index)].role != Role::Table)
            return true;
        return std::any_of(e->args.begin(), e->args.end(), fixed);
    };
    for (const auto& v : ir_.values)
        if (fixed(v))
            return EmitError{"the op reads a fixed column of a row (not a recognized form)"};
    std::optional<Dim> out_dim;
    for (const Tensor& t : ir_.outputs) {
        if (t.role != Role::Rows) continue;
        if (out_dim && !(t.shape.back() == *out_dim))
            return EmitError{"the outputs' rows have different lengths"};
        out_dim = t.shape.back();
    }
    return std::nullopt;
}

// Columns per vector: 16 bytes of the narrowest tensor the kernel touches.
int Emitter::vector_width() const {
    int narrow = 4;
    for (const auto* list : {&ir_.inputs, &ir_.outputs})
        for (const Tensor& t : *list)
            if (t.role != Role::Scalar && t.role != Role::Unread)
                narrow = std::min(narrow, element_size(t.dtype));
    return 16 / narrow;
}

std::string Emitter::load_var(const LoadKey& key) {
    const int input = key.input;
    std::string base = input_name(input);
    if (key.plain()) return base + "_v";
    auto it = offset_names_.find(key);
    if (it != offset_names_.end()) return it->second;
    int n = 0;
    for (const auto& [k, v] : offset_names_)
        n += k.input == input;
    std::string name = base + (n == 0 ? "_hi_v" : "_hi" + std::to_string(n + 1) + "_v");
    offset_names_[key] = name;
    return name;
}

ExprNames Emitter::names(std::set<LoadKey>* loads, bool element) {
    ExprNames n;
    n.load = [this, loads, element](int input, const std::optional<Dim>& offset,
                                    const std::optional<Dim>& wrap,
                                    const std::optional<Dim>& div) -> std::string {
        const Tensor& t = ir_.inputs[input];
        if (t.role == Role::PerRow)
            return "to_float(" + input_name(input) + "[" + row_start(t) + "])";
        if (!element || !loads) {
            errors_.push_back("a column of '" + t.name + "' is read outside a column loop");
            return "0.0f";
        }
        loads->insert({input, offset, wrap, div});
        return load_var({input, offset, wrap, div}) + "[j]";
    };
    n.table = [this](int input, int64_t position) { return table_value(input, position); };
    n.scalar = [this](int input) { return scalar_value(input); };
    n.axis = [this](int axis) { return "static_cast<float>(" + kernel_axis(axis) + ")"; };
    n.column = [this, element]() -> std::string {
        if (!element) {
            errors_.push_back("the column is used outside a column loop");
            return "0.0f";
        }
        return "static_cast<float>(base + j)"; // row_passes.mustache's chunk and lane
    };
    n.row = [this](int p) { return "static_cast<float>(" + row_coordinate(p) + ")"; };
    n.reduction = [this](const ir::Node& node) {
        auto it = reduction_names_.find(&node);
        if (it != reduction_names_.end()) return it->second;
        errors_.push_back("a reduction is used before it is computed");
        return std::string("0.0f");
    };
    return n;
}

// A column read's two values at j, j + 1 (a per-row input's one value, in both lanes).
PairPrinter::LoadPair Emitter::pair_loads(std::set<LoadKey>* loads) {
    return [this, loads](const ir::Node& n) -> std::string {
        const Tensor& t = ir_.inputs[n.index];
        if (t.role == Role::PerRow)
            return "splat(to_float(" + input_name(n.index) + "[" + row_start(t) + "]))";
        const LoadKey key{n.index, n.col_offset, n.col_wrap, n.col_div};
        loads->insert(key);
        return "pair_at(" + load_var(key) + ", j)";
    };
}

// The element of a read at `column`: shifted by its offset, wrapped around the row by
// a select on the column (kernel_header.mustache's wrap_column).
std::string Emitter::column_at(const LoadKey& key, const std::string& column) {
    std::string at = column + (key.offset ? " + " + kernel_dim(*key.offset) : std::string());
    if (key.div) return "(" + at + ") / " + kernel_dim(*key.div);
    if (!key.wrap) return at;
    uses_wrap_ = true;
    return "wrap_column(" + at + ", " + kernel_dim(*key.wrap) + ")";
}

std::vector<std::string> Emitter::load_lines(const std::set<LoadKey>& loads,
                                             const RowCaches& caches) {
    std::vector<std::string> lines;
    for (const LoadKey& key : loads) {
        const int input = key.input;
        const Tensor& t = ir_.inputs[input];
        std::string var = load_var(key);
        std::string ptr = input_name(input) + (t.role == Role::Rows ? "_row" : "") + " + " +
                          column_at(key, "base");
        lines.push_back("float " + var + "[kVec];");
        if (key.div) { // a merged row's outer axis: one value per inner block of columns
            lines.push_back("for (int i = 0; i < kVec; ++i) " + var + "[i] = to_float(" +
                            input_name(input) + (t.role == Role::Rows ? "_row" : "") + "[" +
                            column_at(key, "base + i") + "]);");
            continue;
        }
        if (key.plain() && caches.cached.count(input))
            lines.push_back("fetch(" + input_name(input) + "_cache, chunk, " + ptr + ", " + var +
                            ");");
        else if (key.plain() && caches.ahead.count(input))
            lines.push_back("fetch(" + input_name(input) + "_ahead, chunk, " + ptr + ", " + var +
                            ");");
        else
            lines.push_back("load_vec<kVec>(" + ptr + ", " + var + ");");
    }
    return lines;
}

Emitter::ChunkLoads Emitter::chunk_load_lines(const std::set<LoadKey>& loads) {
    ChunkLoads out;
    for (const LoadKey& key : loads) {
        const Tensor& t = ir_.inputs[key.input];
        const std::string var = load_var(key);
        const std::string chunks = var.substr(0, var.size() - 2) + "_chunks"; // drop "_v"
        const std::string row = input_name(key.input) + (t.role == Role::Rows ? "_row" : "");
        if (key.div) { // a merged row's outer axis: one value per inner block of columns
            out.arrays.push_back("float " + chunks + "[kChunks][kVec];");
            out.loads.push_back("if (whole) for (int i = 0; i < kVec; ++i) " + chunks +
                                "[k][i] = to_float(" + row + "[" + column_at(key, "base + i") +
                                "]);");
            out.views.push_back("const float (&" + var + ")[kVec] = " + chunks + "[k];");
            continue;
        }
        const std::string ptr = row + " + " + column_at(key, "base");
        out.arrays.push_back("RowCache<kChunks, kVec, " + *cuda_type(t.dtype) + "> " + chunks +
                             ";");
        out.loads.push_back("fill_chunk(whole, " + ptr + ", " + chunks + ", k);");
        out.views.push_back("float " + var + "[kVec];");
        out.views.push_back("fetch(" + chunks + ", k, " + ptr + ", " + var + ");");
    }
    return out;
}

std::vector<std::string> Emitter::row_pointer_lines(bool for_row_kernel) {
    // The row kernel reads only what its own outputs need (not a column sum's inputs).
    std::set<int> read;
    for (size_t i = 0; i < ir_.values.size(); ++i)
        if (!for_row_kernel || ir_.outputs[i].role != Role::ColumnSum)
            ir::visit(ir_.values[i], [&](const ir::Node& n) {
                if (n.op == ir::Op::Load) read.insert(n.index);
            });
    std::vector<std::string> lines;
    auto add = [&](const Tensor& t, const std::string& name, bool is_input) {
        if (t.role != Role::Rows) return;
        if (is_input && !read.count(static_cast<int>(&t - ir_.inputs.data()))) return;
        std::string type = *cuda_type(t.dtype);
        lines.push_back((is_input ? "const " : "") + type + "* " + name + "_row = " + name + " + " +
                        row_start(t) + ";");
    };
    for (size_t i = 0; i < ir_.inputs.size(); ++i)
        add(ir_.inputs[i], input_name(static_cast<int>(i)), true);
    for (size_t i = 0; i < ir_.outputs.size(); ++i)
        add(ir_.outputs[i], output_name(static_cast<int>(i)), false);
    return lines;
}

// Where the current row starts in tensor t, in elements. A broadcast tensor
// starts at the offset of the row coordinates it follows: the coordinate
// along row axis p is (row / sizes of the later row axes) % size of p.
// The current row's coordinate along row_axes[p], from the flat `row` the kernels keep.
std::string Emitter::row_coordinate(int p) {
    std::vector<std::string> later;
    for (size_t q = static_cast<size_t>(p) + 1; q < ir_.row_axes.size(); ++q)
        later.push_back(kernel_axis(ir_.row_axes[q]));
    std::string coord = later.empty() ? "row" : "row / (" + join(later, " * ") + ")";
    if (p > 0) coord = "(" + coord + ") % " + kernel_axis(ir_.row_axes[static_cast<size_t>(p)]);
    return coord;
}

std::string Emitter::row_start(const Tensor& t) {
    std::string at = "row";
    if (ir::is_broadcast(t)) {
        at.clear();
        for (int p : t.row_subset) {
            std::string size = kernel_axis(ir_.row_axes[static_cast<size_t>(p)]);
            std::string coord = row_coordinate(p);
            at = at.empty() ? coord : "(" + at + ") * " + size + " + " + coord;
        }
        at = "(" + at + ")";
    }
    if (t.role == Role::Table) return at + " * " + kernel_dim(ir::column_dim(t));
    if (t.role != Role::Rows) return at;
    return at + " * " + (layout_.flat ? "cols" : kernel_dim(ir::column_dim(t)));
}

// The fused_row / reduction context: the passes over the row, then the outputs.
json Emitter::row_context() {
    for (size_t i = 0; i < ir_.outputs.size(); ++i)
        if (ir_.outputs[i].role == Role::ColumnSum) column_sums_.push_back(element_fn(i));
    std::vector<ir::Expr> reductions = op_.reductions;
    std::vector<OnlinePair> recognized = op_.online;
    if (reductions.empty()) { // a description made by hand: no pairs recognized
        reductions = ir::reductions_in_order(ir_);
        recognized.clear();
    }
    const RowSchedule streamed = schedule_streamed(reductions, pair_nodes(reductions, recognized));

    // Caching: Rows inputs read whole by two loops or more, when every loop runs over the
    // same row length (counted on the streamed schedule, printed once without a cache). A
    // row read by the one loop of a single reduction pass is cached too: not to read it
    // twice but to have every chunk's load in flight before the first use (after_arrival),
    // one trip to memory a row instead of one per chunk ptxas sinks to its use.
    RowReads reads;
    row_body(streamed, reductions, {}, &reads);
    std::set<int> cached;
    auto row_input = [&](int input) {
        return ir_.inputs[input].role == Role::Rows &&
               ir::column_dim(ir_.inputs[input]) == row_dim();
    };
    const bool single_pass = reads.loops == 1 && !reductions.empty();
    if ((reads.loops >= 2 || single_pass) && reads.same_extents)
        for (const auto& [input, count] : reads.count)
            if ((count >= 2 || single_pass) && row_input(input)) cached.insert(input);

    // With the row in registers, a schedule of its own when it differs (row_schedule.h).
    std::vector<ir::Expr> outputs;
    for (size_t i = 0; i < ir_.outputs.size(); ++i)
        if (ir_.outputs[i].role == Role::Rows) outputs.push_back(ir_.values[i]);
    auto cached_input = [&](const ir::Node& n) {
        const bool plain =
            n.op == ir::Op::Load && !n.fixed_column && !n.col_offset && !n.col_wrap && !n.col_div;
        return plain && cached.count(n.index) ? n.index : -1;
    };
    const RowSchedule in_registers =
        schedule_cached(reductions, outputs, cached_input, cached.size());
    const bool two_schedules =
        !cached.empty() && (!streamed.online.empty() || in_registers.keeps_values());

    // Read ahead, with the row in registers: every other input the loops read at the row's
    // columns (a weight, a bias, a residual read once), so the row pays one trip to memory.
    RowCaches caches{cached, {}};
    if (!cached.empty() && !reductions.empty()) {
        RowReads in_registers_reads;
        if (two_schedules) row_body(in_registers, reductions, caches, &in_registers_reads);
        for (const auto& [input, count] : (two_schedules ? in_registers_reads : reads).count)
            if (!cached.count(input)) caches.ahead.insert(input);
    }

    json schedules = json::array();
    if (two_schedules) {
        json c = row_body(in_registers, reductions, caches, nullptr);
        c["open"] = string_list({"if constexpr (kChunks > 0) { // the row in registers"});
        json s = row_body(streamed, reductions, {}, nullptr);
        s["open"] = string_list({"} else { // the row streamed from memory"});
        schedules = {c, s};
    } else {
        json s = row_body(streamed, reductions, caches, nullptr);
        s["open"] = json::array();
        schedules = {s};
    }

    json ctx;
    ctx["schedules"] = schedules;
    ctx["close_schedules"] = two_schedules;
    ctx["block_reduce"] = !reductions.empty();
    ctx["row_pointers"] = string_list(row_pointer_lines(true));

    // Launch variants: the plan (launch_plan.h), rendered as the host's ladder.
    const int col_axis = ir_.column_axis;
    // A schedule that keeps values holds a float a column for each (one array per cached
    // input, schedule_cached's budget); the cached rows themselves are raw words.
    const int cached_registers = in_registers.keeps_values()
                                     ? static_cast<int>(cached.size()) * vector_width()
                                     : chunk_registers(cached);
    const RowLaunchPlan plan =
        plan_row_launch(vector_width(), {cached_registers, chunk_registers(caches.ahead)},
                        is_const(col_axis) ? ir_.axes[col_axis].value : std::nullopt);
    constants_.push_back({{"name", "kVectorWidth"}, {"value", std::to_string(plan.vector_width)}});
    if (plan.has_wide()) {
        uses_wide_ = true;
        constants_.push_back(
            {{"name", "kWideVectorWidth"}, {"value", std::to_string(2 * plan.vector_width)}});
    }
    if (!caches.ahead.empty())
        constants_.push_back(
            {{"name", "kAheadMaxChunks"}, {"value", std::to_string(plan.ahead_max_chunks)}});
    ctx["launch_lines"] = string_list(host().row_launch(plan));
    return ctx;
}

// The registers a thread holds per chunk for `inputs` in registers: raw words when a chunk is
// whole 16-byte words, else one float per column (row_helpers.mustache's RowCache).
int Emitter::chunk_registers(const std::set<int>& inputs) const {
    const int vec = vector_width();
    int registers = 0;
    for (int input : inputs) {
        const int bytes = vec * element_size(ir_.inputs[input].dtype);
        registers += bytes % 16 == 0 ? bytes / 4 : vec;
    }
    return registers;
}

// One schedule printed for row_schedule.mustache: the register cache's fill, one loop per
// pass, the outputs' loop and the per-row stores; the inputs in `caches` are read from
// registers. With `reads`, also what the loops read (for choosing the cache).
json Emitter::row_body(const RowSchedule& schedule, const std::vector<ir::Expr>& reductions,
                       const RowCaches& caches, RowReads* reads) {
    const bool has_rows_output = std::any_of(ir_.outputs.begin(), ir_.outputs.end(),
                                             [](const Tensor& t) { return t.role == Role::Rows; });
    RowReads counted;
    counted.loops = static_cast<int>(schedule.passes.size()) + (has_rows_output ? 1 : 0);
    counted.same_extents = std::all_of(reductions.begin(), reductions.end(),
                                       [&](const ir::Expr& r) { return r->extent == row_dim(); });
    const OnlinePairs& online = schedule.online;
    // Read-ahead inputs, or a row cached for one loop alone: nothing reads the cache twice,
    // so only the wait keeps ptxas from sinking each chunk's load to its use.
    const bool waits_for_fill =
        !caches.ahead.empty() || (counted.loops == 1 && !caches.cached.empty());

    // Values kept by a pass for later ones: `kept<k>[chunk][j]`, one array each.
    std::map<const ir::Node*, std::string> kept;
    json kept_json = json::array();
    ExprPrinter row_printer(names(nullptr, false), uses_, "v");
    json passes_json = json::array();
    auto acc_name = [&](size_t r) {
        return std::string(ir::to_string(reductions[r]->reduce_kind)) + std::to_string(r);
    };
    std::map<const ir::Node*, std::string> online_sum; // a paired max -> its sum's accumulator
    for (size_t r = 0; r < reductions.size(); ++r)
        if (auto it = online.find(reductions[r].get()); it != online.end())
            online_sum[it->second] = acc_name(r);
    // The column loops' printers read what earlier passes kept.
    auto element_printer = [&](std::set<LoadKey>* loads) {
        ExprPrinter p(names(loads, true), uses_, "t", &row_printer);
        for (const auto& [node, first] : schedule.same_as)
            if (auto it = kept.find(first); it != kept.end())
                p.bind(node, it->second + "[chunk][j]");
        return p;
    };
    // The same loops two columns a step (pair_printer.h), reading the same kept arrays; an
    // op this heavy in special functions takes some of its exps to the FMA pipe.
    std::vector<ir::Expr> column_roots;
    for (const auto& r : reductions)
        column_roots.push_back(r->args[0]);
    for (size_t i = 0; i < ir_.outputs.size(); ++i)
        if (ir_.outputs[i].role == Role::Rows) column_roots.push_back(ir_.values[i]);
    const bool fma_exp =
        special_functions_per_element(column_roots) >= kFmaExpPolicy.min_special_per_element;
    auto pair_printer = [&](std::set<LoadKey>* loads) {
        PairPrinter p(pair_loads(loads), uses_, "pair", row_printer, fma_exp);
        for (const auto& [node, first] : schedule.same_as)
            if (auto it = kept.find(first); it != kept.end()) p.bind(node, it->second + "[chunk]");
        return p;
    };
    // A loop has a pair form where every tree it prints has one and some tree packs.
    auto pairs_loop = [&](const std::vector<ir::Expr>& trees) {
        return !trees.empty() && std::all_of(trees.begin(), trees.end(), PairPrinter::pairable) &&
               std::any_of(trees.begin(), trees.end(), PairPrinter::packs);
    };
    auto load_json = [&](const std::set<LoadKey>& loads, const std::vector<std::string>& decls) {
        for (const auto& l : loads)
            if (l.plain()) ++counted.count[l.input];
        std::vector<std::string> lines = load_lines(loads, caches);
        lines.insert(lines.end(), decls.begin(), decls.end());
        return string_list(lines);
    };
    for (const RowPass& p : schedule.passes) {
        std::set<LoadKey> loads;
        ExprPrinter element = element_printer(&loads);
        std::vector<std::string> new_kept;
        for (const ir::Node* n : p.kept) {
            const std::string name = "kept" + std::to_string(kept.size() + new_kept.size());
            for (const auto& [node, first] : schedule.same_as)
                if (first == n) element.keep(node, name + "[chunk][j]");
            new_kept.push_back(name);
            kept_json.push_back({{"name", name}});
        }
        std::vector<std::string> body, after, reduce, decls, comments;
        json accs = json::array();
        for (size_t r : p.reductions) {
            const ir::Node& node = *reductions[r];
            std::string acc = acc_name(r);
            comments.push_back(std::string(ir::to_string(node.reduce_kind)) + " over the row of " +
                               ir::print(ir_, node.args[0]));
            accs.push_back({{"acc", acc}, {"init", reduce_init(node.reduce_kind)}});
            if (online.count(&node)) continue; // accumulated with its max, below
            std::string value = element.print(node.args[0]);
            for (auto& st : element.take_statements())
                body.push_back(st);
            auto paired = online_sum.find(&node);
            if (paired == online_sum.end()) {
                body.push_back(accumulate(node.reduce_kind, acc, value));
                reduce.push_back(acc + " = group_reduce<kThreads>(" + acc + ", " +
                                 reduce_combine(node.reduce_kind) + "{}, scratch);");
                combines_.insert(reduce_combine(node.reduce_kind));
                continue;
            }
            const std::string& sum = paired->second;
            std::string chunk = acc + "_chunk";
            decls.push_back("float " + chunk + "[kVec];");
            body.push_back(chunk + "[j] = " + value + ";");
            after.push_back("online_max_sum<kVec>(" + chunk + ", " + acc + ", " + sum + ");");
            reduce.push_back("group_reduce_online<kThreads>(" + acc + ", " + sum + ", scratch);");
            online_ = true;
        }
        if (&p == &schedule.passes.front() && waits_for_fill && !accs.empty()) {
            // The first accumulation waits for the whole fill (after_arrival): ptxas then
            // issues every load of it before the row's first use, not each at its use.
            json& first = accs.front();
            first["init"] = first["init"].get<std::string>() + " - arrived";
        }
        // A sum of a product adds it lane by lane, acc += a.x * b.x, which nvcc fuses into
        // one FFMA a column as it does the scalar loop's: a packed product first would cost
        // an FMUL2 more. Only the factors' trees then count for packing.
        auto summed_product = [&](const ir::Node& reduction) -> const ir::Node* {
            const ir::Expr& e = reduction.args[0];
            if (reduction.reduce_kind != ir::ReduceKind::Sum || e->op != ir::Op::Mul ||
                column_invariant(e) || uses_.at(e.get()) != 1)
                return nullptr;
            for (const auto& [node, first] : schedule.same_as)
                if (node == e.get() && (kept.count(first) || std::find(p.kept.begin(), p.kept.end(),
                                                                       first) != p.kept.end()))
                    return nullptr;
            return e.get();
        };
        std::vector<ir::Expr> trees;
        for (size_t r : p.reductions) {
            const ir::Node& node = *reductions[r];
            if (online.count(&node)) continue;
            if (const ir::Node* m = summed_product(node))
                trees.insert(trees.end(), m->args.begin(), m->args.end());
            else
                trees.push_back(node.args[0]);
        }
        std::vector<std::string> pair_body;
        if (pairs_loop(trees)) {
            PairPrinter pair = pair_printer(&loads);
            for (size_t i = 0; i < new_kept.size(); ++i)
                for (const auto& [node, first] : schedule.same_as)
                    if (first == p.kept[i]) pair.keep(node, new_kept[i] + "[chunk]");
            for (size_t r : p.reductions) {
                const ir::Node& node = *reductions[r];
                if (online.count(&node)) continue;
                const std::string acc = acc_name(r);
                if (const ir::Node* m = summed_product(node)) {
                    const std::string a = pair.print_named(m->args[0]);
                    const std::string b = pair.print_named(m->args[1]);
                    for (auto& st : pair.take_statements())
                        pair_body.push_back(st);
                    for (const char* lane : {".x", ".y"})
                        pair_body.push_back(acc + " += " + a + lane + " * " + b + lane + ";");
                    continue;
                }
                const std::string value = pair.print_named(node.args[0]);
                for (auto& st : pair.take_statements())
                    pair_body.push_back(st);
                if (online_sum.count(&node)) {
                    pair_body.push_back("store_pair(" + acc + "_chunk, j, " + value + ");");
                    continue;
                }
                for (const char* lane : {".x", ".y"}) // column j, then j + 1: the scalar order
                    pair_body.push_back(accumulate(node.reduce_kind, acc, value + lane));
            }
            if (!reads) pair_helpers_.merge(pair_helpers_called(pair_body)); // rendered
        }
        for (size_t i = 0; i < new_kept.size(); ++i)
            kept[p.kept[i]] = new_kept[i];
        json pass;
        pass["comments"] = string_list(comments);
        pass["prelude"] = string_list(row_printer.take_statements());
        pass["accs"] = accs;
        pass["extent"] = kernel_dim(reductions[p.reductions.front()]->extent);
        pass["loads"] = load_json(loads, decls);
        pass["body"] = string_list(body);
        pass["paired"] = !pair_body.empty();
        pass["pair_body"] = string_list(pair_body);
        pass["after"] = string_list(after);
        pass["reduce"] = string_list(reduce);
        passes_json.push_back(pass);
        // Named only now: no reduction of a pass reads another of the same pass.
        for (size_t i = 0; i < p.reductions.size(); ++i)
            reduction_names_[reductions[p.reductions[i]].get()] = accs[i]["acc"].get<std::string>();
    }

    json epilogue = false;
    if (has_rows_output) {
        std::set<LoadKey> loads;
        ExprPrinter element = element_printer(&loads);
        std::vector<std::string> body, stores, decls;
        Dim extent = row_dim();
        for (size_t i = 0; i < ir_.outputs.size(); ++i) {
            const Tensor& t = ir_.outputs[i];
            if (t.role != Role::Rows) continue;
            extent = t.shape.back();
            std::string value = element.print(ir_.values[i]);
            for (auto& s : element.take_statements())
                body.push_back(s);
            std::string name = output_name(static_cast<int>(i));
            body.push_back(name + "_v[j] = " + value + ";");
            stores.push_back("store_vec<kVec>(" + name + "_row + base, " + name + "_v);");
            decls.push_back("float " + name + "_v[kVec];");
        }
        std::vector<ir::Expr> trees;
        for (size_t i = 0; i < ir_.outputs.size(); ++i)
            if (ir_.outputs[i].role == Role::Rows) trees.push_back(ir_.values[i]);
        std::vector<std::string> pair_body;
        if (pairs_loop(trees)) {
            PairPrinter pair = pair_printer(&loads);
            for (size_t i = 0; i < ir_.outputs.size(); ++i) {
                if (ir_.outputs[i].role != Role::Rows) continue;
                const std::string value = pair.print(ir_.values[i]);
                for (auto& st : pair.take_statements())
                    pair_body.push_back(st);
                pair_body.push_back("store_pair(" + output_name(static_cast<int>(i)) + "_v, j, " +
                                    value + ");");
            }
            if (!reads) pair_helpers_.merge(pair_helpers_called(pair_body)); // rendered
        }
        epilogue = json::object();
        epilogue["paired"] = !pair_body.empty();
        epilogue["pair_body"] = string_list(pair_body);
        epilogue["prelude"] = string_list(row_printer.take_statements());
        epilogue["extent"] = kernel_dim(extent);
        epilogue["loads"] = load_json(loads, decls);
        epilogue["body"] = string_list(body);
        epilogue["stores"] = string_list(stores);
        if (!(extent == row_dim())) counted.same_extents = false;
    }

    json per_row = false;
    std::vector<std::string> stores;
    for (size_t i = 0; i < ir_.outputs.size(); ++i) {
        const Tensor& t = ir_.outputs[i];
        if (t.role != Role::PerRow && t.role != Role::RowSum) continue;
        std::string value = row_printer.print(ir_.values[i]);
        if (t.role == Role::RowSum) // added over rows by its own kernel
            stores.push_back(output_name(static_cast<int>(i)) + "_rows[row] = " + value + ";");
        else
            stores.push_back(output_name(static_cast<int>(i)) + "[row] = from_float<" +
                             *cuda_type(t.dtype) + ">(" + value + ");");
    }
    if (!stores.empty()) {
        per_row = json::object();
        per_row["prelude"] = string_list(row_printer.take_statements());
        per_row["stores"] = string_list(stores);
    }

    auto cache_json = [&](const std::set<int>& inputs) {
        json list = json::array();
        for (int input : inputs) {
            const Tensor& t = ir_.inputs[input];
            list.push_back({{"name", input_name(input)},
                            {"type", *cuda_type(t.dtype)},
                            {"pointer", input_name(input) + (t.role == Role::Rows ? "_row" : "")},
                            {"extent", kernel_dim(row_dim())}});
        }
        return list;
    };
    json ahead = false;
    if (!caches.ahead.empty()) ahead = json{{"inputs", cache_json(caches.ahead)}};
    json arrival = false;
    if (waits_for_fill) {
        // Every load of the fill feeds the zero, the row's first: ptxas then has none to sink.
        json arrivals = json::array();
        for (int input : caches.cached)
            arrivals.push_back(input_name(input) + "_cache");
        for (int input : caches.ahead)
            arrivals.push_back(input_name(input) + "_ahead");
        arrival = json{{"arrivals", arrivals}};
    }
    if (reads) *reads = counted;
    json body;
    body["cached"] = cache_json(caches.cached);
    body["ahead"] = ahead;
    body["arrival"] = arrival;
    body["kept"] = kept_json;
    body["passes"] = passes_json;
    body["epilogue"] = epilogue;
    body["per_row"] = per_row;
    return body;
}

// The gated / elementwise context: one device function per output.
// One output's element as a device function of the values it reads (loads at
// the row and column, scalars, sizes, counters), with its arguments in the
// vectorized loop (`base + j`) and at a single column `c`.
Emitter::ElementFn Emitter::element_fn(size_t i) {
    // Parameters: the loads, scalars and axis sizes the expression reads.
    std::vector<std::pair<std::string, std::string>> params; // (param decl name, kernel arg)
    std::vector<std::pair<std::string, std::string>> tail_args;
    std::set<std::string> seen;
    ExprNames n;
    std::set<LoadKey> loads;
    n.load = [&](int input, const std::optional<Dim>& offset, const std::optional<Dim>& wrap,
                 const std::optional<Dim>& div) -> std::string {
        const Tensor& t = ir_.inputs[input];
        const LoadKey key{input, offset, wrap, div};
        std::string var = load_var(key);
        std::string param = var.substr(0, var.size() - 2); // drop "_v"
        if (seen.insert(param).second) {
            std::string vec_arg, tail_arg;
            std::string name = input_name(input);
            if (t.role == Role::PerRow) {
                vec_arg = tail_arg = "to_float(" + name + "[" + row_start(t) + "])";
            } else {
                loads.insert(key);
                vec_arg = var + "[j]";
                std::string ptr = name + (t.role == Role::Rows ? "_row" : "");
                tail_arg = "to_float(" + ptr + "[" + column_at(key, "c") + "])";
            }
            params.push_back({param, vec_arg});
            tail_args.push_back({param, tail_arg});
        }
        return param;
    };
    n.table = [&](int input, int64_t position) {
        std::string name = input_name(input) + (position >= 0 ? "_at" : "_at_end") +
                           std::to_string(position >= 0 ? position : -position);
        if (seen.insert(name).second) {
            params.push_back({name, table_value(input, position)});
            tail_args.push_back({name, table_value(input, position)});
        }
        return name;
    };
    n.scalar = [&](int input) {
        std::string name = input_name(input);
        if (seen.insert(name).second) {
            params.push_back({name, scalar_value(input)});
            tail_args.push_back({name, scalar_value(input)});
        }
        return name;
    };
    n.axis = [&](int axis) {
        std::string name = identifier(ir_.axes[axis].name) + "_f";
        if (seen.insert(name).second) {
            std::string arg = "static_cast<float>(" + kernel_axis(axis) + ")";
            params.push_back({name, arg});
            tail_args.push_back({name, arg});
        }
        return name;
    };
    n.column = [&]() {
        const std::string name = "column_index_f";
        if (seen.insert(name).second) { // gated_activation.mustache's vector and tail columns
            params.push_back({name, "static_cast<float>(base + j)"});
            tail_args.push_back({name, "static_cast<float>(c)"});
        }
        return name;
    };
    n.row = [&](int p) {
        const std::string name = "row_index" + std::to_string(p) + "_f";
        if (seen.insert(name).second) {
            std::string arg = "static_cast<float>(" + row_coordinate(p) + ")";
            params.push_back({name, arg});
            tail_args.push_back({name, arg});
        }
        return name;
    };
    n.reduction = [&](const ir::Node&) {
        errors_.push_back("an elementwise op has a reduction");
        return std::string("0.0f");
    };
    ExprPrinter printer(n, uses_, "t");
    std::string value = printer.print(ir_.values[i]);
    std::vector<std::string> body = printer.take_statements();
    body.push_back("return " + value + ";");
    std::string name = output_name(static_cast<int>(i));
    std::string function = identifier(ir_.name) + "_" + name;
    std::vector<std::string> decls, vargs, targs;
    for (const auto& [p, a] : params) {
        decls.push_back("float " + p);
        vargs.push_back(a);
    }
    for (const auto& [p, a] : tail_args)
        targs.push_back(a);
    ElementFn f;
    f.name = name;
    f.function = function;
    f.element = {{"output", ir_.outputs[i].name},
                 {"function", function},
                 {"params", join(decls, ", ")},
                 {"body", string_list(body)}};
    f.vector_args = vargs;
    f.tail_args = targs;
    f.loads = loads;
    f.output = static_cast<int>(i);
    return f;
}

json Emitter::gated_context() {
    // Flat: every tensor is rows x cols read at the same column, so the whole
    // tensor is one long row and only its very end needs the scalar tail.
    layout_.flat = true;
    for (const auto* list : {&ir_.inputs, &ir_.outputs})
        for (const Tensor& t : *list)
            if (t.role != Role::Scalar && t.role != Role::Unread &&
                (t.role != Role::Rows || ir::is_broadcast(t) || !(ir::column_dim(t) == row_dim())))
                layout_.flat = false; // a broadcast tensor has rows of its own
    std::function<bool(const ir::Expr&)> plain = [&](const ir::Expr& e) {
        if (e->op == ir::Op::Load && (e->col_offset || e->col_wrap || e->col_div)) return false;
        if (e->op == ir::Op::AxisSize || e->op == ir::Op::Reduce || e->op == ir::Op::Column ||
            e->op == ir::Op::Row)
            return false; // a flat launch has no rows and columns of its own
        return std::all_of(e->args.begin(), e->args.end(), plain);
    };
    for (const auto& v : ir_.values)
        layout_.flat = layout_.flat && plain(v);

    json elements = json::array(), outputs = json::array();
    std::vector<std::string> vector_body, vector_stores, tail_body;
    std::set<LoadKey> all_loads;
    for (size_t i = 0; i < ir_.outputs.size(); ++i) {
        const Tensor& out = ir_.outputs[i];
        if (out.role != Role::Rows && out.role != Role::ColumnSum) {
            errors_.push_back("output '" + out.name + "' of an elementwise op is not a row tensor");
            continue;
        }
        ElementFn fn = element_fn(i);
        const std::string& name = fn.name;
        const std::string& function = fn.function;
        const std::vector<std::string>& vargs = fn.vector_args;
        const std::vector<std::string>& targs = fn.tail_args;
        const std::set<LoadKey>& loads = fn.loads;
        if (out.role == Role::ColumnSum) { // summed by its own kernels
            column_sums_.push_back(fn);
            continue;
        }
        elements.push_back(fn.element);
        outputs.push_back({{"name", name}});
        vector_body.push_back(name + "_v[j] = " + function + "(" + join(vargs, ", ") + ");");
        vector_stores.push_back("store_vec<kVec>(" + name + "_row + base, " + name + "_v);");
        tail_body.push_back(name + "_row[c] = from_float<" + *cuda_type(out.dtype) + ">(" +
                            function + "(" + join(targs, ", ") + "));");
        all_loads.insert(loads.begin(), loads.end());
    }

    json ctx;
    ctx["elements"] = elements;
    ctx["outputs"] = outputs;
    const ChunkLoads chunk_loads = chunk_load_lines(all_loads);
    ctx["chunk_arrays"] = string_list(chunk_loads.arrays);
    ctx["vector_loads"] = string_list(chunk_loads.loads);
    ctx["chunk_views"] = string_list(chunk_loads.views);
    // A row's last chunk is partial only in a flat launch: otherwise the vectorized launch asks
    // for whole vectors in every output row (vector_conditions), and the rows are the outputs'.
    bool whole_rows = !layout_.flat;
    for (const Tensor& out : ir_.outputs)
        if (out.role == Role::Rows && !(ir::column_dim(out) == row_dim())) whole_rows = false;
    ctx["has_tail"] = !whole_rows;
    ctx["vector_body"] = string_list(vector_body);
    ctx["vector_stores"] = string_list(vector_stores);
    ctx["tail_body"] = string_list(tail_body);
    ctx["row_pointers"] = string_list(row_pointer_lines(true));
    // The columns of an output row: `cols` (the column axis) unless outputs are a multiple
    // of it (cos/sin tables twice as wide as their angles).
    ctx["row_cols"] = row_dim().scale == 1 ? std::string("cols") : kernel_dim(row_dim());

    // Launch: the plan (launch_plan.h), rendered as the host's if/else.
    const ElementLaunchPlan plan = plan_element_launch(vector_width(), layout_.flat);
    constants_.push_back({{"name", "kVectorWidth"}, {"value", std::to_string(plan.vector_width)}});
    constants_.push_back({{"name", "kMaxGridRows"}, {"value", std::to_string(plan.max_grid_rows)}});
    constants_.push_back(
        {{"name", "kMaxGridColumns"}, {"value", std::to_string(plan.max_grid_columns)}});
    ctx["launch_lines"] = string_list(host().element_launch(plan));
    ctx["block_reduce"] = false;
    return ctx;
}

// Column reductions, deterministic without atomics: a first kernel gives each
// (column block, chunk of rows) block the fp32 sum of its columns over the
// chunk's rows, in row order; a second adds the chunks' partial sums per column
// in chunk order. The chunking depends on the shape alone, so the same inputs
// give the same bits on every run.
// Column reductions (r2 §8): templates/column_sum.mustache's kernels, and their launches.
// Summed over every row: partial sums over chunks of rows, then the chunks in order.
// With kept rows: one thread per output element sums its rows in order.
// The row a `_kept` thread adds at step j (column_sum.mustache): its kept rows'
// coordinates from `kept_index`, the others' from j, each in the rows' order.
std::string Emitter::kept_row(const std::vector<int>& kept) {
    const int n = static_cast<int>(ir_.row_axes.size());
    bool leading = true;
    for (size_t k = 0; k < kept.size(); ++k)
        leading = leading && kept[k] == static_cast<int>(k);
    if (leading) return "kept_index * inner + j"; // the kept rows lead: consecutive rows
    auto is_kept = [&](int p) { return std::find(kept.begin(), kept.end(), p) != kept.end(); };
    auto size = [&](int p) { return kernel_axis(ir_.row_axes[static_cast<size_t>(p)]); };
    // The coordinate along p of a mixed-radix index over the positions of one kind.
    auto coordinate = [&](int p, const std::string& index) {
        std::vector<std::string> later;
        for (int q = p + 1; q < n; ++q)
            if (is_kept(q) == is_kept(p)) later.push_back(size(q));
        std::string at = later.empty() ? index : index + " / (" + join(later, " * ") + ")";
        return "(" + at + ") % " + size(p);
    };
    std::string row;
    for (int p = 0; p < n; ++p) {
        std::string coord = coordinate(p, is_kept(p) ? "kept_index" : "j");
        row = row.empty() ? coord : "(" + row + ") * " + size(p) + " + " + coord;
    }
    return row;
}

std::pair<std::string, std::vector<std::string>> Emitter::column_sum_code() {
    auto [row_sum_kernels, row_sum_launch] = row_sum_code();
    if (column_sums_.empty()) return {row_sum_kernels, row_sum_launch};
    for (int axis : ir_.row_axes) // the kept counts below read the row axes
        kernel_axis(axis);
    // The kernels' parameters as they stand now: the row pointers below may add axes.
    const HostBinder binder = host();
    const std::string params = join(binder.kernel_params(true), ", ");
    json sums = json::array();
    std::vector<ColumnSumLaunch> launches;
    for (const ElementFn& s : column_sums_) {
        const Tensor& out = ir_.outputs[static_cast<size_t>(s.output)];
        const std::string all_args = join(s.tail_args, ", ");
        std::vector<std::string> pointers; // the row pointers the element reads
        for (const std::string& line : row_pointer_lines(false)) {
            const std::string var = line.substr(0, line.find(" = "));
            const std::string ptr = var.substr(var.rfind(' ') + 1);
            if (all_args.find(ptr + "[") != std::string::npos) pointers.push_back(line);
        }
        const bool all_rows = out.row_subset.empty();
        sums.push_back({{"output", out.name},
                        {"name", s.name},
                        {"function", s.function},
                        {"params", s.element["params"]},
                        {"body", s.element["body"]},
                        {"type", *cuda_type(out.dtype)},
                        {"kernel_params", params},
                        {"cols", "(" + kernel_dim(row_dim()) + ")"},
                        {"row_pointers", string_list(pointers)},
                        {"args", all_args},
                        {"row_of", all_rows ? std::string() : kept_row(out.row_subset)},
                        {"over_all_rows", all_rows}});
        launches.push_back({s.name, s.function, s.output});
    }
    std::vector<std::string> launch = binder.column_sum_launch(launches);
    const bool chunked = std::any_of(column_sums_.begin(), column_sums_.end(), [&](const auto& s) {
        return ir_.outputs[static_cast<size_t>(s.output)].row_subset.empty();
    });
    if (chunked)
        constants_.push_back(
            {{"name", "kSumBlocks"}, {"value", std::to_string(plan_column_sums().target_blocks)}});
    auto text = codegen::render_template("column_sum.mustache", {{"column_sums", sums}});
    if (auto* err = std::get_if<codegen::TemplateError>(&text)) {
        errors_.push_back(err->message);
        return {};
    }
    std::string kernels = std::get<std::string>(text);
    kernels.pop_back(); // host_run.mustache's own line ends the last kernel's blank line
    if (!row_sum_kernels.empty()) kernels += "\n" + row_sum_kernels;
    launch.insert(launch.end(), row_sum_launch.begin(), row_sum_launch.end());
    return {kernels, launch};
}

// Sums over rows of per-row sums (r2 §8): templates/row_sum.mustache's kernel adds the
// row kernel's per-row sums, [summed rows, kept rows], over the summed rows in order.
std::pair<std::string, std::vector<std::string>> Emitter::row_sum_code() {
    json sums = json::array();
    for (size_t i = 0; i < ir_.outputs.size(); ++i) {
        const Tensor& out = ir_.outputs[i];
        if (out.role != Role::RowSum) continue;
        const std::string name = output_name(static_cast<int>(i));
        const std::string function = identifier(ir_.name) + "_" + name;
        sums.push_back({{"output", out.name},
                        {"name", name},
                        {"function", function},
                        {"type", *cuda_type(out.dtype)}});
    }
    if (sums.empty()) return {};
    auto text = codegen::render_template("row_sum.mustache", {{"row_sums", sums}});
    if (auto* err = std::get_if<codegen::TemplateError>(&text)) {
        errors_.push_back(err->message);
        return {};
    }
    std::string kernels = std::get<std::string>(text);
    kernels.pop_back();
    return {kernels, host().row_sum_launch()};
}

// The host binding as the kernels stand now: a copy of their layout, with the column
// shifts of every read so far, so that nothing flows back.
HostBinder Emitter::host() const {
    KernelLayout layout = layout_;
    for (const auto& [key, name] : offset_names_) {
        if (key.offset) layout.shifts.push_back(*key.offset);
        if (key.wrap) layout.shifts.push_back(*key.wrap);
    }
    return HostBinder(op_, options_, layout);
}

// run()'s checks and allocations; what they cannot bind is an error of the emission.
std::vector<std::string> Emitter::host_checks() {
    std::vector<std::string> lines = host().checks(errors_);
    add_axis_constants();
    return lines;
}

// The fixed axes' constexprs, named by the kernels and the checks alike.
void Emitter::add_axis_constants() {
    for (int a = 0; a < static_cast<int>(ir_.axes.size()); ++a)
        if (is_const(a)) {
            constants_.push_back({{"name", constant_name(ir_.axes[a].name)},
                                  {"value", std::to_string(*ir_.axes[a].value)}});
        }
}

// The family's template (its kernels alone: `<family>_kernel.mustache`).
std::string family_template(Family f, bool kernels_only) {
    return std::string(to_string(f)) + (kernels_only ? "_kernel.mustache" : ".mustache");
}

json Emitter::family_context() {
    return op_.family == Family::GatedActivation ? gated_context() : row_context();
}

// The kernels' own switches: the combines and helpers they use, their name and parameters.
void Emitter::kernel_flags(json& ctx) {
    ctx["uses_sum"] = combines_.count("SumOp") > 0;
    ctx["uses_max"] = combines_.count("MaxOp") > 0;
    ctx["uses_min"] = combines_.count("MinOp") > 0;
    ctx["uses_online"] = online_;
    ctx["uses_pairs"] = !pair_helpers_.empty();
    for (std::string_view helper : kPairHelpers)
        ctx["pair_" + std::string(helper)] = pair_helpers_.count(helper) > 0;
    ctx["fma_exp_every"] = std::to_string(kFmaExpPolicy.every);
    ctx["scratch_per_warp"] = online_ ? "2" : "1";
    ctx["block_threads"] = std::to_string(kBlockThreads);
    ctx["kernel_name"] = identifier(ir_.name) + "_kernel";
    ctx["kernel_params"] = join(host().kernel_params(true), ", ");
}

// One row set's kernels for run_row_sets(): rendered in namespace `ns`, and the
// block of the host function that launches them.
std::variant<Emitter::SetCode, EmitError> Emitter::set_code(const std::string& ns) {
    if (auto err = check_supported()) return *err;
    json ctx = family_context();
    if (!errors_.empty()) return EmitError{errors_.front()};
    std::vector<std::string> launch;
    for (const std::string& l : ctx["launch_lines"].get<std::vector<std::string>>())
        if (l != "cudaError_t status = cudaSuccess;") launch.push_back(l); // run() declares it
    ctx.erase("launch_lines");
    kernel_flags(ctx); // the row kernel's parameters, before the column sums add theirs
    auto [column_sum_kernels, column_sum_launch] = column_sum_code();
    launch.insert(launch.end(), column_sum_launch.begin(), column_sum_launch.end());
    if (!errors_.empty()) return EmitError{errors_.front()};
    ctx["wide"] = uses_wide_; // the helpers the kernel header adds for it come with run_row_sets
    auto text = render_template(family_template(op_.family, true), ctx);
    if (auto* err = std::get_if<TemplateError>(&text)) return EmitError{err->message};

    SetCode code;
    std::vector<std::string> rows;
    for (int a : ir_.row_axes)
        rows.push_back(ir_.axes[static_cast<size_t>(a)].name);
    code.comment =
        "The outputs over rows [" + join(rows, ", ") + "] (" + to_string(op_.family) + ").";
    code.kernels = std::get<std::string>(text) + column_sum_kernels;
    code.constants = constants_;
    code.block_reduce = ctx["block_reduce"].get<bool>();
    code.wraps = uses_wrap_;
    code.wide = uses_wide_;
    code.host = host().row_set_block(ns, code.comment, launch);
    return code;
}

// An op of several row sets: each set's kernels in a namespace of their own, and
// one host function that checks every tensor and launches each set in turn.
std::variant<std::string, EmitError> Emitter::run_row_sets() {
    std::vector<std::string> checks = host_checks();
    if (!errors_.empty()) return EmitError{errors_.front()};
    std::vector<std::string> launch{"cudaError_t status = cudaSuccess;"};
    json ctx;
    json sets = json::array();
    bool block_reduce = false, wraps = false, wide = false;
    const std::vector<OpDescription> parts = row_set_parts(op_);
    for (size_t k = 0; k < parts.size(); ++k) {
        const std::string ns = "row_set_" + std::to_string(k);
        Emitter part(parts[k], options_);
        auto result = part.set_code(ns);
        if (auto* err = std::get_if<EmitError>(&result)) return *err;
        const SetCode& code = std::get<SetCode>(result);
        sets.push_back({{"namespace", ns},
                        {"comment", code.comment},
                        {"constants", code.constants},
                        {"kernels", code.kernels}});
        block_reduce = block_reduce || code.block_reduce;
        wraps = wraps || code.wraps;
        wide = wide || code.wide;
        launch.insert(launch.end(), code.host.begin(), code.host.end());
    }
    ctx["row_sets"] = sets;
    ctx["block_reduce"] = block_reduce;
    ctx["wraps"] = wraps;
    ctx["wide"] = wide;
    ctx["column_sum_kernels"] = "";
    return render_file("row_sets.mustache", ctx, checks, launch);
}

std::variant<std::string, EmitError> Emitter::run() {
    if (ir::row_set_count(ir_) > 1) return run_row_sets(); // each set is checked on its own
    if (auto err = check_supported()) return *err;
    json ctx = family_context();
    if (!errors_.empty()) return EmitError{errors_.front()};
    ctx["wraps"] = uses_wrap_;
    ctx["wide"] = uses_wide_;

    std::vector<std::string> checks = host_checks();
    checks.push_back(host().empty_return());
    std::vector<std::string> launch = ctx["launch_lines"];
    ctx.erase("launch_lines");
    kernel_flags(ctx); // the row kernel's parameters, before the column sums add theirs
    auto [column_sum_kernels, column_sum_launch] = column_sum_code();
    if (!errors_.empty()) return EmitError{errors_.front()};
    launch.insert(launch.end(), column_sum_launch.begin(), column_sum_launch.end());
    ctx["column_sum_kernels"] = column_sum_kernels;
    return render_file(family_template(op_.family, false), ctx, checks, launch);
}

// The whole kernel.cu: the header's switches and the host function around the
// kernels already in ctx.
std::variant<std::string, EmitError> Emitter::render_file(const std::string& tmpl, json ctx,
                                                          const std::vector<std::string>& checks,
                                                          const std::vector<std::string>& launch) {

    // Only the helpers this kernel uses: unused ones would be warned about.
    bool fp8 = false;
    auto dtype_flags = [&](const char* prefix, const std::vector<Tensor>& list) {
        for (const char* t : {"float", "bfloat16", "half", "int8", "int16", "int32", "int64",
                              "bool", "fp8_e4m3", "fp8_e5m2"})
            ctx[std::string(prefix) + t] = false;
        for (const Tensor& t : list) {
            if ((t.role == Role::Scalar && !t.tensor_scalar()) || t.role == Role::Unread) continue;
            ctx[std::string(prefix) + header_dtype(t.dtype)] = true;
            fp8 = fp8 || t.dtype == DType::Float8E4M3 || t.dtype == DType::Float8E5M2;
        }
    };
    dtype_flags("reads_", ir_.inputs);
    dtype_flags("writes_", ir_.outputs);
    ctx["reads_fp8"] = ctx["reads_fp8_e4m3"].get<bool>() || ctx["reads_fp8_e5m2"].get<bool>();
    // cuda_fp8.h for FP8 tensors and for casts to FP8 inside an expression.
    // The int8/FP8 sections of kernel_header.mustache open and close inline:
    // kainjow keeps a false section's own tag lines as blank lines, and the
    // other kernels' text must stay byte-identical.
    std::function<bool(const ir::Expr&)> casts_fp8 = [&](const ir::Expr& e) {
        if (e->op == ir::Op::Cast &&
            (e->dtype == DType::Float8E4M3 || e->dtype == DType::Float8E5M2))
            return true;
        return std::any_of(e->args.begin(), e->args.end(), casts_fp8);
    };
    ctx["uses_fp8"] = fp8 || std::any_of(ir_.values.begin(), ir_.values.end(), casts_fp8);
    ctx["op_name"] = ir_.name;
    ctx["family"] = to_string(op_.family);
    ctx["version"] = kVersion;
    ctx["source_file"] = options_.source_file.empty() ? "an unnamed source" : options_.source_file;
    json desc = json::array();
    for (const auto& l : split_lines(ir_.description))
        desc.push_back({{"text", l}});
    ctx["description_lines"] = desc;
    ctx["block_threads"] = std::to_string(kBlockThreads);
    ctx["constants"] = constants_;
    const HostBinder binder = host();
    ctx["run_signature"] = binder.run_signature();
    ctx["checks"] = string_list(checks);
    ctx["launch"] = string_list(launch);
    ctx["return_statement"] = options_.destination_passing
                                  ? json::array()
                                  : string_list({"return " + binder.returned() + ";"});
    auto rendered = render_template(tmpl, ctx);
    if (auto* err = std::get_if<TemplateError>(&rendered)) return EmitError{err->message};
    return std::get<std::string>(rendered);
}

} // namespace

std::variant<std::string, EmitError> emit_kernel(const OpDescription& op,
                                                 const KernelOptions& options) {
    Emitter emitter(op, options);
    return emitter.run();
}

} // namespace solbench::codegen
