#include "diag/diagnostic.h"

namespace solbench {

const char* to_string(Rule r) {
    switch (r) {
    case Rule::Syntax:
        return "syntax";
    case Rule::Scan:
        return "scan";
    case Rule::CrossRow:
        return "cross-row";
    case Rule::DataDependentIndex:
        return "data-dependent-index";
    case Rule::NonLastAxisReduction:
        return "non-last-axis-reduction";
    case Rule::DataDependentLoop:
        return "data-dependent-loop";
    case Rule::NonTensorValue:
        return "non-tensor-value";
    case Rule::Recursion:
        return "recursion";
    case Rule::NoFamily:
        return "no-family";
    case Rule::Unsupported:
        return "unsupported";
    }
    return "unsupported";
}

const char* describe(Rule r) {
    switch (r) {
    case Rule::Syntax:
        return "not valid LOGOS";
    case Rule::Scan:
        return "a value carried from one element to the next (a scan)";
    case Rule::CrossRow:
        return "an output row reads other rows";
    case Rule::DataDependentIndex:
        return "an index that depends on data";
    case Rule::NonLastAxisReduction:
        return "a reduction over an axis that is not the last";
    case Rule::DataDependentLoop:
        return "a loop whose trip count depends on data";
    case Rule::NonTensorValue:
        return "a non-tensor value (Text, Map, ...)";
    case Rule::Recursion:
        return "a recursive helper";
    case Rule::NoFamily:
        return "not one of the fused-row, gated-activation or reduction families";
    case Rule::Unsupported:
        return "a construct solgen does not raise";
    }
    return "";
}

Diagnostic refusal(SourcePos pos, Rule rule, std::string message) {
    Diagnostic d;
    d.pos = pos;
    d.rule = rule;
    d.message = std::move(message);
    return d;
}

Diagnostic json_error(std::string pointer, std::string message) {
    Diagnostic d;
    d.pointer = std::move(pointer);
    d.message = std::move(message);
    return d;
}

std::string render_short(const std::string& file, const Diagnostic& d) {
    std::string out = file;
    if (d.pos.valid())
        out += ":" + std::to_string(d.pos.line) + ":" + std::to_string(d.pos.col);
    else if (!d.pointer.empty())
        out += ":" + d.pointer;
    out += ": error: ";
    if (d.rule) out += "refused (" + std::string(to_string(*d.rule)) + "): ";
    return out + d.message;
}

} // namespace solbench
