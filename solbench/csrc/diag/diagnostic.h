// One diagnostic type and one result type for the whole pipeline.
//
// Every stage that can fail (parser, checker, raiser, recognizers, definition
// reading and binding, schema checks) says why with Diagnostics, and returns
// Result<T>: its value, or a Failure naming the file and what is wrong with it
// (MLIR's FailureOr and diagnostics, in small). A refusal is a Diagnostic with
// the Rule the op breaks: valid LOGOS that solgen's op families exclude.
#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace solbench {

// A place in a source file. Positions are 1-based, columns count bytes.
struct SourcePos {
    int line = 0; // 0 means "no position"
    int col = 0;
    bool valid() const { return line > 0; }
    friend bool operator==(const SourcePos&, const SourcePos&) = default;
};

// The rules a refused op breaks (logos-ops.md §7 "typical refusals" and more).
enum class Rule {
    Syntax,               // not valid LOGOS (parse or type errors)
    Scan,                 // a value carried from one element to the next
    CrossRow,             // an output row reads other rows
    DataDependentIndex,   // an index computed from tensor data
    NonLastAxisReduction, // a reduction over an axis that is not the last
    DataDependentLoop,    // a loop whose trip count depends on data
    NonTensorValue,       // Text, Map or another non-tensor value
    Recursion,            // a helper that calls itself
    NoFamily,             // tensors fine, but not one of the three families
    // Narrower than "outside the families": the op's tensors are row-parallel in spirit, but
    // one construct is outside what the raiser takes (the message names it).
    OutputShape,             // an output built in another shape than declared, or never written
    InputLayout,             // an input neither row-shaped nor broadcast along the outputs
    ColumnIndex,             // a column read not at the loop's own column plus a constant
    StorePattern,            // an output element written other than once, at its own place
    LocalSequence,           // a local sequence used other than as this row's buffer
    SizeArithmetic,          // size arithmetic solgen cannot keep exact
    LoopForm,                // a loop outside the counting forms solgen raises
    HelperForm,              // a helper that does not return one value on every path
    ValueKind,               // a value of another kind than the place needs
    ElementOutsideReduction, // a per-row output reading row elements outside a reduction
    Unsupported,             // anything else solgen does not raise (named in the message)
};
const char* to_string(Rule r); // kebab-case id, e.g. "data-dependent-index"
const char* describe(Rule r);  // one line in words

struct Diagnostic {
    Diagnostic() = default;
    Diagnostic(SourcePos at, std::string text) : pos(at), message(std::move(text)) {}

    SourcePos pos; // in a source file; invalid when not tied to a line
    std::string message;
    std::optional<Rule> rule;       // set: a refusal, not an error
    std::string pointer;            // in a JSON file: the JSON pointer of the value ("" = none)
    std::vector<std::string> notes; // said after it, one line each
};

// A refusal of the op at `pos` for breaking `rule`.
Diagnostic refusal(SourcePos pos, Rule rule, std::string message);
// An error in a JSON file at the value `pointer` points at.
Diagnostic json_error(std::string pointer, std::string message);

// Why a stage produced nothing: the file it read and what is wrong there.
struct Failure {
    std::string file;
    std::vector<Diagnostic> diagnostics; // at least one, in source order
    // The op was read and refused (one diagnostic, with its rule).
    bool refused() const { return diagnostics.size() == 1 && diagnostics.front().rule; }
};

template <class T> using Result = std::variant<T, Failure>;

// "file:line:col: error: message", "file:/pointer: error: ...", or
// "file: error: ..."; a refusal reads "error: refused (rule): message".
std::string render_short(const std::string& file, const Diagnostic& d);

} // namespace solbench
