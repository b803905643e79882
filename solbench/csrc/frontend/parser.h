// LOGOS parser: literate Markdown text in, ast::Program out.
//
// The parser never throws and never aborts: every problem becomes a
// Diagnostic, and it recovers at the next statement (or the next `## To`
// block) so one file can report several errors. Input of any size or content
// (binary, NUL bytes, invalid UTF-8, very deep nesting) yields a Program and/or
// diagnostics, never a crash or a hang.
#pragma once

#include "frontend/ast.h"
#include "frontend/source.h"

#include <string>
#include <vector>

namespace solbench {

struct ParseResult {
    ast::Program program;
    std::vector<Diagnostic> errors; // in source order
    bool ok() const { return errors.empty(); }
};

// Reads the op named `op_name` (default: the `## To` block no other block
// calls, the last of several) and the helpers it reaches; every other block's
// body is skipped unread (logos-ops.md §1).
ParseResult parse(const SourceFile& file, const std::string& op_name = "");

} // namespace solbench
