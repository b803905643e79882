// The value-level operations of the interpreter: arithmetic, comparisons,
// casts, builtins. Private to interpreter*.cpp. Every function throws
// RuntimeError(pos, ...) when its operands have the wrong kind.
//
// Number semantics (logos-ops.md §5-§6): arithmetic is float64. Int is a
// 64-bit integer type, and Int op Int stays Int (overflow is an error): in
// particular Int / Int is integer division truncating toward zero and
// Int % Int takes the sign of the dividend, so `length of row / 2` is an Int
// usable as an index and a loop bound. When either operand is Real the Int
// one becomes Real ("Int and Real mix").
#pragma once

#include "frontend/interp_value.h"

#include <span>

namespace solbench::interp {

bool is_builtin(const std::string& name);
int builtin_arity(const std::string& name); // 0 when not a builtin

Value apply_binary(ast::BinaryOp op, const Value& a, const Value& b, SourcePos pos);
Value apply_unary(ast::UnaryOp op, const Value& a, SourcePos pos);
Value apply_cast(const Value& v, ast::ElemType to, SourcePos pos);
Value apply_builtin(const std::string& name, std::span<const Value> args, SourcePos pos);

bool as_bool(const Value& v, SourcePos pos, const std::string& what);
int64_t as_int(const Value& v, SourcePos pos, const std::string& what);
std::string as_text(const Value& v); // Text as is, others spelt out

} // namespace solbench::interp
