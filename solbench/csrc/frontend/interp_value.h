// Runtime values of the LOGOS interpreter (private to interpreter*.cpp).
//
// A value is an Int (int64), a Real (double), a Bool, a Text, a sequence, or
// Nothing (what a function without `-> R` yields). Sequences are shared by
// reference, as LOGOS binds them: `Let row be item r of x` and `Push y to out`
// alias; `copy of` makes an independent copy. A sequence has a fixed rank and
// only holds values of rank - 1, so no sequence can ever contain itself.
#pragma once

#include "frontend/ast.h"
#include "frontend/elem_dtype.h"
#include "frontend/interpreter.h"
#include "ir/op_ir.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace solbench::interp {

struct SeqVal;
using SeqPtr = std::shared_ptr<SeqVal>;
struct Nothing {};

using Value = std::variant<Nothing, int64_t, double, bool, std::string, SeqPtr>;

struct SeqVal {
    ast::ElemType elem = ast::ElemType::Real;
    int rank = 1; // >= 1; items hold values of rank - 1
    std::vector<Value> items;
};

using solbench::to_dtype; // frontend/elem_dtype.h

bool is_int_elem(ast::ElemType t);   // Int, Int8, Int16, UInt8, Int32, Int64
bool is_float_elem(ast::ElemType t); // BFloat16, Float16, Float32, Float64, Real

const char* elem_name(ast::ElemType t);              // the LOGOS spelling: "BFloat16", ...
std::string type_name(ast::ElemType elem, int rank); // "Seq of Seq of Float32"

// "an Int", "a Real", "a Seq of Float32", ... for messages.
std::string describe_kind(const Value& v);

// An independent deep copy (`copy of`); scalars are returned as they are.
Value deep_copy(const Value& v);

// `v` converted for storage in a slot of type {elem, rank}: a number stored as
// a floating element is rounded to it (nearest-even), an Int slot takes only
// integral numbers, a sequence of another element type is copied converted.
// Throws RuntimeError(pos, "<what>: ...") when the value does not fit.
Value store_as(const Value& v, ast::ElemType elem, int rank, SourcePos pos,
               const std::string& what);

} // namespace solbench::interp
