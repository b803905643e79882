// IR expressions -> CUDA C++ float2 expressions: a column loop's values two columns at a time.
//
// sm_100 has packed FP32 arithmetic (FADD2, FMUL2, FFMA2: two lanes an instruction), which
// ptxas does not form from scalar code. A row loop whose trees are all arithmetic, loads and
// element-wise builtins is printed a second time with this printer, two columns a step; the
// helpers it calls (row_helpers.mustache: add2, mul2, fma2, ...) are the packed intrinsics on
// sm_100 and the same operations a lane at a time elsewhere, so sm_90 and the CPU backend run
// the same text. Column-invariant subtrees are printed by the scalar row printer (`outer`),
// hoisted out of the loop, and splatted into both lanes.
#pragma once

#include "codegen/expr_printer.h"
#include "ir/op_ir.h"

#include <array>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace solbench::codegen {

// The helpers pair forms call (row_helpers.mustache defines each one a kernel calls: an
// unused function is a compiler warning).
inline constexpr std::array<std::string_view, 10> kPairHelpers = {
    "pair_at", "store_pair", "splat", "neg2", "div2",
    "add2",    "sub2",       "mul2",  "fma2", "exp_nonpositive"};

// When a pair's exp(x - max(x)) may run on the FMA pipe (row_helpers.mustache's exp2_fma, a
// polynomial) instead of the MUFU, on sm_100: the MUFU issues 16 a clock an SM, so an op of
// two special functions an element (softcap: a tanh and an exp) is MUFU-bound on a B200 by
// the static model (docs/performance.md) while its FMA pipe has room.
struct FmaExpPolicy {
    int min_special_per_element = 2; // special functions an element of the op's row loops
    int every = 4;                   // one pair in `every` of a loop takes the FMA pipe
};
inline constexpr FmaExpPolicy kFmaExpPolicy{};

// Special-function instructions an element of the row loops computing `roots` costs: each
// distinct column value's exp, log, tanh, sigmoid, erf, sqrt, non-integer power and division
// by a column value, counted once (a pass keeps what a later one reads again).
int special_functions_per_element(const std::vector<ir::Expr>& roots);

// Those of kPairHelpers that `lines` call.
std::set<std::string_view> pair_helpers_called(const std::vector<std::string>& lines);

class PairPrinter {
  public:
    // `load` spells a column Load's two values (a float2 expression) at columns j, j + 1.
    using LoadPair = std::function<std::string(const ir::Node& load)>;

    // With `fma_exp`, exp(x - max(x)) prints as exp_nonpositive (kFmaExpPolicy).
    PairPrinter(LoadPair load, const std::map<const ir::Node*, int>& uses, std::string prefix,
                ExprPrinter& outer, bool fma_exp = false);

    // Whether every node of e outside its column-invariant subtrees has a pair form.
    static bool pairable(const ir::Expr& e);
    // Whether e is pairable and its pair form has a packed operation (add2, sub2, mul2, fma2,
    // div2): a loop with none gains nothing from a pair form.
    static bool packs(const ir::Expr& e);

    // A float2 expression for e (pairable(e) must hold); statements for its temporaries are
    // appended to statements().
    std::string print(const ir::Expr& e);
    // As print, but always a name (a leaf's spelling or a `const float2` temporary).
    std::string print_named(const ir::Expr& e);

    std::vector<std::string> take_statements();

    // A value an earlier pass kept in `array` (float[kVec]): read as the pair at j.
    void bind(const ir::Node* n, const std::string& array);
    // A value a later pass reads again: when printed, its pair is also stored to `array`.
    void keep(const ir::Node* n, std::string array);

  private:
    std::string print_node(const ir::Expr& e);
    std::string name_temporary(const ir::Node& n, const std::string& value);
    std::string packed_call(const char* helper, const std::vector<std::string>& args);
    std::string lanes(const std::string& function, const std::vector<std::string>& pairs);
    // The Mul a single-use addend is, to be fused with it into one fma2; else null.
    const ir::Node* fusable_product(const ir::Expr& e) const;

    LoadPair load_;
    const std::map<const ir::Node*, int>& uses_;
    std::string prefix_;
    ExprPrinter& outer_;
    bool fma_exp_;
    std::map<const ir::Node*, std::string> printed_;
    std::map<const ir::Node*, std::string> kept_; // node -> the array its pair is stored to
    std::vector<std::string> statements_;
    int next_temp_ = 0;
};

} // namespace solbench::codegen
