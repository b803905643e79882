// IR expressions -> CUDA C++ fp32 expressions.
//
// Every value inside a generated kernel is a float. A node used more than once
// in the op (a shared subexpression) becomes a named `const float` temporary,
// so it is computed once; nodes used once are printed inline. The printer does
// not know where a Load reads from or what a reduction is called: the kernel
// emitter supplies those spellings (ExprNames), which differ between a pass
// over the row's columns and the per-row code around it.
#pragma once

#include "ir/op_ir.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace solbench::codegen {

// A float literal that round-trips: 1e-05f, 0.5f, 2.0f, INFINITY, (-INFINITY).
std::string float_literal(double v);

// How many parents each node has in the DAG under `roots` (shared nodes > 1).
std::map<const ir::Node*, int> use_counts(const std::vector<ir::Expr>& roots);

// True when e reads no column of any tensor outside a Reduce: its value is the
// same for every column of a row, so it can be computed once per row.
bool column_invariant(const ir::Expr& e);
bool column_invariant(const ir::Node& n);

// Spellings of the leaves that depend on where an expression is evaluated.
struct ExprNames {
    // inputs[input] at the current column (+ offset); only called for Loads.
    // A column read: its input, offset from the column, the width it wraps at and the
    // size the column is divided by (a merged row's outer axis).
    std::function<std::string(int input, const std::optional<ir::Dim>& offset,
                              const std::optional<ir::Dim>& wrap,
                              const std::optional<ir::Dim>& div)>
        load;
    // A Table input's value at a fixed position of the row (negative: from its end).
    std::function<std::string(int input, int64_t position)> table;
    std::function<std::string(int input)> scalar;          // a Scalar input, as a float
    std::function<std::string(int axis)> axis;             // an axis size, as a float
    std::function<std::string(const ir::Node&)> reduction; // a Reduce's per-row result
    std::function<std::string()> column;                   // the current column, as a float
    std::function<std::string(int position)> row; // the row's coordinate on row_axes[position]
};

// Prints expressions of one scope into `const float` statements.
class ExprPrinter {
  public:
    // `uses` comes from use_counts(); `prefix` names temporaries (prefix0, ...).
    // With `outer`, column-invariant subexpressions are printed there instead
    // (hoisted out of a column loop into the per-row code).
    ExprPrinter(ExprNames names, const std::map<const ir::Node*, int>& uses, std::string prefix,
                ExprPrinter* outer = nullptr);

    // A C++ expression for e's value; statements for its temporaries are
    // appended to statements().
    std::string print(const ir::Expr& e);

    // The statements printed since the last take, in dependency order.
    std::vector<std::string> take_statements();

    // A value an earlier pass kept (a register array of a cached row): printed as `spelling`.
    void bind(const ir::Node* n, std::string spelling);
    // A value a later pass reads again: when printed, it is also stored to `target`.
    void keep(const ir::Node* n, std::string target);

    // As print, and named unless a leaf: a column-invariant value hoisted out of a loop.
    std::string print_named(const ir::Expr& e);

    // A row's 1 / divisor as `scale * inverse`, both named, printed once (reciprocal()).
    struct Reciprocal {
        std::string scale, inverse;
    };
    Reciprocal row_reciprocal(const ir::Expr& divisor);

  private:
    std::string print_node(const ir::Node& n);
    std::string print_condition(const ir::Expr& e); // a C++ bool expression
    std::string name_temporary(const ir::Node& n, const std::string& value);
    std::string reciprocal(const ir::Expr& divisor); // `scale * inverse` of row_reciprocal

    ExprNames names_;
    const std::map<const ir::Node*, int>& uses_;
    std::string prefix_;
    ExprPrinter* outer_;
    std::map<const ir::Node*, std::string> printed_;
    std::map<const ir::Node*, std::string> kept_;       // node -> the array it is stored to
    std::map<const ir::Node*, Reciprocal> reciprocals_; // divisor -> its scaled reciprocal
    std::vector<std::string> statements_;
    int next_temp_ = 0;
};

} // namespace solbench::codegen
