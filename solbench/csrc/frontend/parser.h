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

#include <vector>

namespace solbench {

struct ParseResult {
    ast::Program program;
    std::vector<Diagnostic> errors; // in source order
    bool ok() const { return errors.empty(); }
};

ParseResult parse(const SourceFile& file);

} // namespace solbench
