#include "diag/diagnostic.h"

#include <iterator>

namespace solbench {

namespace {

// Every rule once: its id (printed and in JSON) and what it means in words.
struct RuleInfo {
    Rule rule;
    const char* id;
    const char* words;
};

constexpr RuleInfo kRules[] = {
    {Rule::Syntax, "syntax", "not valid LOGOS"},
    {Rule::Scan, "scan", "a value carried from one element to the next (a scan)"},
    {Rule::CrossRow, "cross-row", "an output row reads other rows"},
    {Rule::DataDependentIndex, "data-dependent-index", "an index that depends on data"},
    {Rule::NonLastAxisReduction, "non-last-axis-reduction",
     "a reduction over an axis that is not the last"},
    {Rule::DataDependentLoop, "data-dependent-loop", "a loop whose trip count depends on data"},
    {Rule::NonTensorValue, "non-tensor-value", "a non-tensor value (Text, Map, ...)"},
    {Rule::Recursion, "recursion", "a recursive helper"},
    {Rule::NoFamily, "no-family",
     "not one of the fused-row, gated-activation or reduction families"},
    {Rule::OutputShape, "output-shape",
     "an output built in another shape than it is declared, or never written"},
    {Rule::InputLayout, "input-layout",
     "an input that is neither row-shaped like the outputs nor broadcast along them"},
    {Rule::ColumnIndex, "column-index",
     "a column read that is not the loop's own column plus a constant"},
    {Rule::StorePattern, "store-pattern",
     "an output element written other than once, at its own position"},
    {Rule::LocalSequence, "local-sequence",
     "a local sequence used other than as a buffer of this row's columns"},
    {Rule::SizeArithmetic, "size-arithmetic", "size arithmetic solgen cannot keep exact"},
    {Rule::LoopForm, "loop-form", "a loop outside the counting forms solgen raises"},
    {Rule::HelperForm, "helper-form", "a helper that does not return one value on every path"},
    {Rule::ValueKind, "value-kind", "a value of another kind than the place needs"},
    {Rule::ElementOutsideReduction, "element-outside-reduction",
     "a per-row output that reads row elements outside a reduction"},
    {Rule::Unsupported, "unsupported", "a construct solgen does not raise"},
};

const RuleInfo& info(Rule r) {
    for (const RuleInfo& i : kRules)
        if (i.rule == r) return i;
    return kRules[std::size(kRules) - 1];
}

} // namespace

const char* to_string(Rule r) {
    return info(r).id;
}

const char* describe(Rule r) {
    return info(r).words;
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
