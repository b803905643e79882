// The front half of the pipeline in one call: read a .lg file, parse, check,
// raise the chosen op and recognize its family.
#pragma once

#include "frontend/ast.h"
#include "frontend/source.h"
#include "recognizers/recognizer.h"

#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace solbench {

struct Compiled {
    std::unique_ptr<SourceFile> source;
    ast::Program program;
    const ast::Function* op = nullptr; // the chosen `## To` block, when it exists
    // The recognized op, or why not: the errors that stopped reading it, or
    // its refusal. When the default rule chose the op among several blocks no
    // other block calls, the first diagnostic's note says so.
    Result<OpDescription> result;
};

// Reads `path` (an I/O error comes back as a Failure without position).
Compiled compile_file(const std::string& path, const std::string& op_name = "");
Compiled compile_text(const std::string& path, std::string text, const std::string& op_name = "");

} // namespace solbench
