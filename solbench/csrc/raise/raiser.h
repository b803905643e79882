// The raiser's internal state: symbolic values, axes, loops and scopes.
// Private to solbench/csrc/raise/; the public entry point is raise.h.
#pragma once

#include "frontend/ast.h"
#include "frontend/checker.h"
#include "ir/op_ir.h"
#include "raise/poly.h"
#include "recognizers/recognizer.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

namespace solbench::raise {

// Thrown inside the raiser to stop at the first statement that breaks a rule.
struct Refused {
    Diagnostic refusal; // with its rule
};

// Thrown when a loop nest ran over a merged row's axes as rows before the nest that
// merges them (an elementwise output written before the norm's reductions): the raise
// starts again knowing the axes whose loops head merged rows (their axis ids).
struct RaiseAgainMerged {
    std::set<int> heads;
};

// Every name a block assigns with `Set`, at any depth, with the first place.
void assigned_names(const ast::Block& block, std::map<std::string, SourcePos>& out);
void assigned_names_of(const ast::Stmt& s, std::map<std::string, SourcePos>& out);
bool contains_loop(const ast::Block& block);
// A variable a row loop's body resets at its top level before any other use (loops.cpp).
bool reset_per_row(const ast::Block& body, size_t end, const std::string& name);
// The tensor element type of a LOGOS element type (none for Text).
std::optional<ir::DType> element_dtype(ast::ElemType t);
bool ir_reads_data(const ir::Expr& e);

// An integer: index arithmetic over axes and loop counters.
struct IntVal {
    Poly p;
};

// A real (or boolean, 0/1) value: an IR expression. `taint` is a refusal
// deferred until the value is used inside the row-parallel part (e.g. a read
// of a fixed row, fine on its own, refused once it feeds a row).
// `integer`: the language types it Int (an integer tensor's element, a size,
// a cast to an integer type), so `/` of two of them truncates (docs/logos-language.md).
struct NumVal {
    ir::Expr e;
    std::optional<Diagnostic> taint;
    bool integer = false;
};

// A (partial) view of a tensor parameter: `item r of x` with r fixed, and
// possibly a slice `items a through b of` of its next dimension.
struct ViewVal {
    int tensor = 0;             // index into Raiser::tensors_
    std::vector<Poly> prefix;   // 0-based indices of the leading dims
    Poly offset;                // the next dimension's first item, 0-based (a slice's a - 1)
    std::optional<Poly> length; // a slice's length (b - a + 1); none: the whole dimension
};

// A local sequence built with Push.
struct SeqVal {
    int local = 0; // index into Raiser::locals_
};

struct TextVal {};

using Value = std::variant<IntVal, NumVal, ViewVal, SeqVal, TextVal>;

struct AxisInfo {
    std::string name;                             // set for Int parameters
    std::optional<int64_t> value;                 // constant, from a Check
    std::optional<std::pair<int, int64_t>> alias; // this axis == scale * other
    bool from_param = false;
    // A row of several trailing axes (r2 §8): this axis is the product of these
    // (axis ids, outermost first).
    std::vector<int> parts;
};

enum class LoopKind { Row, Column, Inner };

struct LoopInfo {
    LoopKind kind = LoopKind::Row;
    int id = 0; // its Atom::Loop id
    Poly extent;
    SourcePos pos;
    std::optional<Poly> shift; // Column: the first read's column minus the counter
    // Column: the reads visit the row last column first (`item (n + 1 - j) of
    // row`); a reduction may, an element-wise output may not (a permutation).
    bool reversed = false;
    std::optional<int> axis; // Row: the axis it runs over
    // A row of several trailing axes (r2 §8, instance norm over H x W): the
    // outermost of their loops (the head) is the column loop, the loops nested in it
    // its parts. Head: the part loops' ids, itself first, outermost first, and the
    // number of levels of its nest. Part: the head's id.
    std::vector<int> parts;
    size_t levels = 0;
    std::optional<int> head;
};

// What one output receives: one value per iteration of a loop nest.
struct Content {
    std::vector<int> row_loops;  // indices into Raiser::loops_ (ids), outermost first
    std::optional<int> col_loop; // loop id of the column loop, if per element
    ir::Expr value;
    SourcePos pos;
    // One value per row pushed as a sequence of one element: a kept axis of 1.
    bool kept_unit = false;
    // A column reduction (r2 §8): the output holds, per column, the sum over
    // every row of `value`; with kept_rows k, over the rows of each index of the
    // first k row loops (the output's leading dimensions).
    bool column_sum = false;
    size_t kept_rows = 0;
    // A sum over rows of a per-row value (r2 §8: grad_weight[c] of an instance norm's
    // backward, over N and H x W): `value` is the per-row sum, added over the rows of
    // `summed_loop`; row_loops are the kept rows' loops.
    std::optional<int> summed_loop;
};

// The columns one branch of an If on the column counter runs over: [lo, hi) of
// the loop's 0-based counter. A read there may wrap around the row (r2 §8).
struct ColumnRange {
    int loop = 0;
    Poly lo, hi;
};

// A column read: the offset from the counter, and the width it wraps at.
struct ColumnRead {
    std::optional<ir::Dim> offset, wrap;
};

struct TensorParam {
    const ast::Param* param = nullptr;
    ir::DType dtype = ir::DType::Float32;
    std::vector<int> dims;         // axis ids (before aliasing)
    bool flat = false;             // declared rank 1, shaped by a length contract
    std::optional<Content> stored; // outputs written with Set item
    // Inputs: read along the columns (true) or one value per row (false);
    // unset until the first read.
    std::optional<bool> column_read;
    // Read along the columns: the dimension the columns run along (the last,
    // unless kept axes of 1 follow it).
    std::optional<size_t> column_dim;
    // Read at the current column somewhere (not only at fixed positions: a Table).
    bool read_at_column = false;
    // The trailing dimensions its columns run over: 1, or several merged into one row.
    size_t column_rank = 1;
    // Inside a merged row: the parts of the row its trailing dimensions index (all, or
    // the outermost alone), and the row loop's axis whose counter joins the first part
    // in one dimension (group norm's `(g - 1) * per_group + k` of channels).
    size_t merged_parts = 0;
    std::optional<int> split_axis;
};

struct LocalSeq {
    ast::Type type;
    size_t depth = 0; // loop depth at its declaration
    std::optional<Content> content;
};

struct Binding {
    Value value;
    bool is_mutable = false;
    size_t depth = 0; // loop depth at its declaration
};

class Raiser {
  public:
    Raiser(const ast::Program& program, const ast::Function& op, std::string file,
           const TypeFacts& facts);
    ir::OpIR run(); // throws Refused

  private:
    friend struct ExprEval;

    // Setup (raiser.cpp)
    void check_calls_acyclic();
    void bind_params();

    // Statements (raiser.cpp)
    void exec_block(const ast::Block& block);
    void exec(const ast::Stmt& s);
    void exec_let(const ast::Stmt& s, const ast::Let& let);
    void exec_set(const ast::Stmt& s, const ast::SetVar& set);
    void exec_set_item(const ast::Stmt& s, const ast::SetItem& set);
    void exec_push(const ast::Stmt& s, const ast::Push& push);
    void exec_if(const ast::Stmt& s, const ast::If& node);
    void exec_check(const ast::Stmt& s, const ast::Check& check);
    void exec_while(const ast::Stmt& s, const ast::While& node);
    void exec_return(const ast::Stmt& s, const ast::Return& ret);

    // Loops (loops.cpp)
    struct LoopSpec {
        SourcePos pos;
        const ast::Block* body = nullptr;
        size_t body_end = 0;              // statements of body to run (a While drops its step)
        Poly lo, hi;                      // the counter runs lo..hi inclusive
        std::string var;                  // the counter's name (a new binding), or
        std::string counter;              // an existing mutable Int (While)
        std::optional<ViewVal> over;      // for-each over this view
        std::optional<SeqVal> over_local; // for-each over a row buffer (a local sequence)
    };
    void run_loop(const LoopSpec& spec);
    // A column reduction written as a loop over the columns around the row loops:
    //   Repeat for c from 1 to length of out:
    //       Let mutable total be 0.
    //       <loops over the rows: ... Set total to total + e.>
    //       Set item c of out to total.
    // It is raised turned inside out: the row loops outside, the loop over the
    // columns innermost (where row outputs may be stored too), e is the element
    // summed over the rows.
    struct ColumnSum {
        LoopSpec column;   // the loop over the columns, run innermost
        std::string total; // the accumulator
        bool in_column = false;
        bool reached_update = false; // the accumulator's update was read as one
        std::optional<ir::Expr> element;
        std::vector<int> row_loops;
        int col_loop = -1;
        size_t kept = 0; // row_loops[0, kept) are the output's kept rows, the rest summed
        // The summed loops whose rows the reads visit last first (`item (n + 1 - s) of
        // x`: the same sum), false for those read forwards; a loop is read one way.
        std::map<int, bool> reversed;
    };
    bool try_column_sum(const LoopSpec& spec);
    std::optional<Atom> summed_row_read(std::optional<Atom> at, const Poly& idx, SourcePos pos);
    bool stores_the_total(const std::vector<const ast::Stmt*>& tail,
                          const std::vector<const ast::Stmt*>& before, const ast::Expr& value,
                          const std::string& total);
    // Everything a raise changes, saved before a speculative one (a column reduction)
    // and put back when it does not apply. A new member of the raiser's state goes here.
    struct Snapshot {
        std::vector<AxisInfo> axes;
        std::vector<TensorParam> tensors;
        std::vector<LocalSeq> locals;
        std::vector<int> loop_stack;
        std::vector<LoopInfo> all_loops;
        std::vector<ColumnRange> column_ranges;
        std::vector<std::map<std::string, Binding>> scopes;
        std::vector<std::string> helper_stack;
        long inlined_calls = 0;
        std::map<std::string, ir::Expr> placeholders;
        std::optional<Value> returned;
        std::optional<Diagnostic> deferred;
        std::vector<std::pair<std::string, int>> size_params;
    };
    Snapshot snapshot() const;
    void restore(Snapshot&& s);
    void run_column_sum_body(const LoopSpec& innermost_rows);
    LoopKind classify(const ast::Block& body) const;
    // Merged rows (merged.cpp): a loop nest over several trailing axes raised as one
    // loop over the columns of their product (r2 §8).
    // The loops nested in a loop that heads a merged row; 0 when it does not head one.
    size_t merged_levels(const LoopSpec& spec, const std::map<std::string, SourcePos>& set_at);
    int merged_axis(LoopInfo& head, SourcePos pos);
    std::optional<size_t> merged_rank(const LoopInfo& head, const std::vector<Poly>& index0) const;
    // A read or store inside a merged row: the row loop a split first index joins
    // (its id, in `split`), the index list with that loop's counter in its place
    // (for the row checks), the number of parts read; the Load's column divisor.
    struct MergedIndex {
        std::optional<int> split; // a row loop's id
        std::vector<Poly> rows;   // the leading indices, the split loop's counter last
        size_t parts = 0;
        std::optional<ir::Dim> div;
    };
    MergedIndex check_merged_index(const LoopInfo& head, TensorParam& t,
                                   const std::vector<Poly>& index0, SourcePos pos);
    void merge_dims(const TensorParam& t, std::vector<int>& dims) const;
    void check_split_row(int split, const std::vector<Poly>& index0, size_t n_lead, SourcePos pos,
                         std::optional<Diagnostic>& taint);
    bool only_row_loops_open() const;
    bool is_row_dimension(int axis);
    void finish_carried(const LoopInfo& loop, const std::map<std::string, Value>& before,
                        const std::map<std::string, SourcePos>& set_at);

    // Expressions (raise_expr.cpp)
    Value eval(const ast::Expr& e);
    Value call(const ast::Expr& e, const ast::Call& c);
    Value call_helper(const ast::Function& f, std::vector<Value> args, SourcePos pos);
    Value exec_helper_block(const ast::Block& block, size_t from);
    Value read_item(SourcePos pos, const Value& seq, const Value& index);
    // A row buffer: a local sequence filled with one Push per column of this row.
    const Content& row_buffer(const SeqVal& seq, SourcePos pos) const;
    Value element_load(int tensor, const std::vector<Poly>& index0, SourcePos pos);
    IntVal length_of(const Value& seq, SourcePos pos);
    ViewVal slice_of(const Value& seq, const Value& from, const Value& to, SourcePos pos);

    // Values
    NumVal to_num(const Value& v, SourcePos pos);
    ir::Expr counter_value(int loop_id, SourcePos pos);
    // The interpreter rounds a value stored under a narrow declared type.
    Value round_to_declared(Value v, const ast::Type& t, SourcePos pos);
    IntVal to_int(const Value& v, SourcePos pos);
    Poly canon(const Poly& p) const;
    std::pair<int, int64_t> resolve_axis(int axis) const;
    int new_axis(std::string name = "", bool from_param = false);
    void unify_dim(int dim_axis, const Poly& extent, SourcePos pos);
    void require_clean(const NumVal& v, SourcePos pos);
    bool has_placeholder(const ir::Expr& e) const;

    // Scopes
    Binding* lookup(const std::string& name);
    void declare(const std::string& name, Value v, bool is_mutable);
    const LoopInfo* innermost(LoopKind k) const;
    const LoopInfo* loop_by_id(int id) const;
    LoopInfo& loop_at(size_t depth) { return all_loops_[static_cast<size_t>(loop_stack_[depth])]; }
    // The innermost loop that is not a row loop (its counter is the column).
    LoopInfo* column_context();
    std::vector<Poly> decompose_flat(const TensorParam& t, const Poly& index0, SourcePos pos);
    void check_row_indices(const TensorParam& t, const std::vector<Poly>& index0, size_t n_lead,
                           SourcePos pos, std::optional<Diagnostic>& taint);
    // A dimension fixed at 1 (a kept axis), indexed at 0 (`item 1 of`).
    bool is_unit_index(const TensorParam& t, size_t j, const Poly& index0) const;
    Value read_row_buffer(const Content& c, const Poly& idx0, SourcePos pos);
    void cover_columns(const TensorParam& t, const Poly& covered, int64_t shift, SourcePos pos,
                       bool reversed = false);
    static int column_axis(const TensorParam& t);
    Poly last_dim(const TensorParam& t);
    void unify_or_keep(const TensorParam& t, const Poly& covered, SourcePos pos);
    ColumnRead column_offset(LoopInfo& loop, const TensorParam& t, const Poly& index0,
                             SourcePos pos);
    std::optional<ColumnRead> wrapped_read(LoopInfo& loop, const TensorParam& t, const Poly& rest);
    // `If c <= half:` on the column counter: the columns of its branch and of the others.
    std::optional<std::pair<ColumnRange, ColumnRange>> column_split(const ast::Expr& cond);
    std::vector<int> current_row_loops() const;

    // Outputs (outputs.cpp / assemble.cpp)
    Content content_for_push(const Value& v, size_t target_depth, SourcePos pos);
    ir::OpIR assemble();
    void classify_input(ir::Tensor& x, const TensorParam& t,
                        const std::vector<std::vector<int>>& row_sets) const;
    void classify_in_set(ir::Tensor& x, const TensorParam& t,
                         const std::vector<int>& row_roots) const;

    [[noreturn]] void refuse(SourcePos pos, Rule rule, const std::string& message) const;

    const ast::Program& program_;
    const TypeFacts& facts_;
    const ast::Function& op_;
    std::string file_;

    std::vector<AxisInfo> axes_;
    std::vector<TensorParam> tensors_; // every tensor parameter, inputs and outputs
    std::vector<LocalSeq> locals_;
    std::vector<int> loop_stack_;            // ids of the loops around the current statement
    std::vector<LoopInfo> all_loops_;        // every loop raised, indexed by id
    std::vector<ColumnRange> column_ranges_; // the branches on the column around here
    std::vector<std::map<std::string, Binding>> scopes_;
    std::vector<std::string> helper_stack_;
    long inlined_calls_ = 0;
    std::map<std::string, ir::Expr> placeholders_; // carried variables of open column loops
    std::optional<Value> returned_;                // the op's `Return`
    // A problem that is only reported if nothing more specific is found later.
    std::optional<Diagnostic> deferred_;
    std::vector<int> scalar_inputs_; // tensors_ index -> IR input (Scalar params)
    std::vector<std::pair<std::string, int>> size_params_; // Int parameters and their axes
    std::optional<ColumnSum> column_sum_;                  // while raising one
    // A sum over the rows of a loop of a per-row sum (merged.cpp): while its loop runs,
    // the accumulator and the loop; after it, the per-row sums it stands for.
    struct RowSum {
        std::vector<std::string> totals;
        int loop = -1;
    };
    std::optional<RowSum> row_sum_;
    std::map<const ir::Node*, int> row_sums_; // a per-row sum -> the loop it adds over
  public:
    std::set<int> merged_heads_; // from an earlier raise of the op (RaiseAgainMerged)
  private:
    bool starts_row_sum(const LoopSpec& spec, const LoopInfo& loop,
                        const std::map<std::string, SourcePos>& set_at,
                        std::vector<std::string>& totals);
    std::map<const ast::Param*, int> input_index_; // param -> IR input index
};

} // namespace solbench::raise
