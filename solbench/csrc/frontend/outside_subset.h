// LOGOS forms that solgen's op subset leaves out, so that the parser can say
// what a construct is instead of "expected a statement": `Show x.` is LOGOS
// (printing), just not something a tensor op can do. One table, read by the
// parser when a line does not start a statement of the subset.
#pragma once

#include "frontend/lexer.h"

#include <optional>
#include <span>
#include <string>

namespace solbench {

// The message for a statement of full LOGOS that is not in the op subset
// (`toks` is the line from its first token), or nullopt when it is not one.
std::optional<std::string> outside_subset_statement(std::span<const lex::Token> toks);

} // namespace solbench
