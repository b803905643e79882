// LOGOS-like text of an expression, for messages ("item 0 of xs", "length of
// x equals rows * cols"). Private to the checker and the interpreter.
#pragma once

#include "frontend/ast.h"

#include <string>
#include <string_view>

namespace solbench::interp {

std::string describe(const ast::Expr& e);

// `message` with every word longer than 60 characters cut to its first 40
// and "...", so a pathological identifier cannot flood a diagnostic.
std::string clip_words(std::string_view message);

} // namespace solbench::interp
