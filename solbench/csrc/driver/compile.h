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

// Syntax or type errors: the op could not be read.
struct SourceErrors {
    std::vector<Diagnostic> errors;
};

struct Compiled {
    std::unique_ptr<SourceFile> source;
    ast::Program program;
    const ast::Function* op = nullptr; // the chosen `## To` block, when it exists
    // Said after the errors or refusal: how the op was chosen when the default
    // rule picked one of several blocks no other block calls.
    std::vector<std::string> notes;
    // Recognized op, refusal, or the errors that stopped reading.
    std::variant<OpDescription, Refusal, SourceErrors> result;
};

// Reads `path` (I/O errors come back as a SourceErrors without position).
Compiled compile_file(const std::string& path, const std::string& op_name = "");
Compiled compile_text(const std::string& path, std::string text, const std::string& op_name = "");

} // namespace solbench
