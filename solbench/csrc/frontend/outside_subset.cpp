#include "frontend/outside_subset.h"

#include <array>
#include <string_view>

namespace solbench {

namespace {

// A statement of full LOGOS (the logicaffeine language), by its first word:
// what it is, and what the op subset writes instead (empty: nothing does).
struct Form {
    std::string_view lead;
    std::string_view what;
    std::string_view instead;
};

constexpr std::array<Form, 37> kStatements = {{
    {"Show", "printing", "an op's result goes to its outputs; print in `## Main`"},
    {"Call", "a call statement", "call a helper in an expression: `Let y be f(x).`"},
    {"Give", "moving a value into a function", ""},
    {"Break", "leaving a loop early", "an op's loops run their whole range"},
    {"Inspect", "matching on a variant", "use `If`"},
    {"Pop", "popping from a sequence", ""},
    {"Add", "adding to a Set", ""},
    {"Remove", "removing from a Set", ""},
    {"Read", "reading input", "an op reads its tensors from its parameters"},
    {"Write", "writing a file", "an op writes its outputs"},
    {"Sleep", "pausing", ""},
    {"Spawn", "spawning an agent", ""},
    {"Send", "sending a message", ""},
    {"Receive", "receiving a message", ""},
    {"Await", "waiting for a message", ""},
    {"Stream", "streaming to a peer", ""},
    {"Listen", "networking", ""},
    {"Connect", "networking", ""},
    {"Sync", "CRDT synchronization", ""},
    {"Mount", "a persistent journal", ""},
    {"Merge", "a CRDT merge", ""},
    {"Increase", "a CRDT counter update", "`Set x to x + n.`"},
    {"Decrease", "a CRDT counter update", "`Set x to x - n.`"},
    {"Append", "a CRDT sequence append", "`Push v to xs.`"},
    {"Resolve", "resolving a CRDT conflict", ""},
    {"Launch", "starting a task", ""},
    {"Stop", "cancelling a task", ""},
    {"Try", "a non-blocking pipe operation", ""},
    {"Escape", "embedded Rust", ""},
    {"Inside", "a memory zone", ""},
    {"Attempt", "concurrent execution", ""},
    {"Simultaneously", "parallel execution", "the kernel is parallel already"},
    {"Require", "a release-mode assertion", "`Check that c.`"},
    {"Trust", "a documented assumption", "`Check that c.`"},
    {"Requires", "a precondition clause", "`Check that c.`"},
    {"Ensures", "a postcondition clause", ""},
    {"To", "a function nested in a body", "write a `## To` block of its own"},
}};

bool is_word(const lex::Token& t) {
    return t.kind == lex::Tok::Word;
}

std::string message(std::string_view written, std::string_view what, std::string_view instead) {
    std::string m = "`" + std::string(written) + "` (" + std::string(what) +
                    ") is LOGOS, but not in solgen's op subset";
    if (!instead.empty()) m += ": " + std::string(instead);
    return m;
}

} // namespace

std::optional<std::string> outside_subset_statement(std::span<const lex::Token> toks) {
    if (toks.empty() || !is_word(toks[0])) return std::nullopt;
    const lex::Token& first = toks[0];
    for (const Form& f : kStatements) {
        // Capitalized as a statement keyword, or not (`show x.`).
        std::string_view w = first.text;
        if (w.size() != f.lead.size() || w.empty() || w.substr(1) != f.lead.substr(1)) continue;
        if ((w[0] | 0x20) != (f.lead[0] | 0x20)) continue;
        return message(f.lead, f.what, f.instead);
    }
    auto at = [&](size_t k) -> const lex::Token& { return toks[std::min(k, toks.size() - 1)]; };
    // `x = e`, `mut x = e`, `x += e`: LOGOS's equals-style bindings.
    size_t name = (first.text == "mut" && is_word(at(1))) ? 1 : 0;
    if (is_word(at(name)) && at(name + 1).punct("="))
        return message(std::string(first.text) + (name ? " " + std::string(at(1).text) : "") + " =",
                       "an equals-style binding", "`Let x be e.` or `Set x to e.`");
    for (std::string_view op : {"+", "-", "*", "/"})
        if (is_word(first) && at(1).punct(op) && at(2).punct("=") &&
            at(2).pos.col == at(1).pos.col + 1)
            return message(std::string(first.text) + " " + std::string(op) + "=",
                           "a compound assignment",
                           "`Set " + std::string(first.text) + " to " + std::string(first.text) +
                               " " + std::string(op) + " e.`");
    // `f(x).` alone: a call made for its effect.
    if (is_word(first) && at(1).punct("("))
        return message(std::string(first.text) + "(...)", "a call as a statement",
                       "a helper returns a value: use it in `Let`, `Set`, `Push` or `Return`");
    return std::nullopt;
}

} // namespace solbench
