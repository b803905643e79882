#include "driver/compile.h"

#include "frontend/checker.h"
#include "frontend/parser.h"
#include "raise/raise.h"

#include <fstream>
#include <optional>
#include <sstream>

namespace solbench {

namespace {

// When the default op (the last block no other calls) fails, say so and name
// the others: a file may hold printing helpers that are not the op.
std::optional<std::string> op_choice_note(const ast::Program& p) {
    if (p.other_candidates.empty()) return std::nullopt;
    std::string others;
    for (const std::string& n : p.other_candidates)
        others += (others.empty() ? "`" : ", `") + n + "`";
    return "`" + p.op +
           "` was taken as the op, being the last `## To` block that no other "
           "block calls; " +
           others + (p.other_candidates.size() == 1 ? " is" : " are") +
           " not called either: choose the op with --op NAME";
}

Failure errors(const Compiled& c, std::vector<Diagnostic> ds) {
    return Failure{c.source->path(), std::move(ds)};
}

// parse -> check -> raise -> recognize, stopping at the first stage that fails.
void read_op(Compiled& c, const std::string& op_name) {
    ParseResult parsed = parse(*c.source, op_name);
    c.program = std::move(parsed.program);
    if (!parsed.ok()) {
        c.result = errors(c, std::move(parsed.errors));
        return;
    }
    c.op = c.program.find();
    if (!c.op) {
        c.result = errors(c, {Diagnostic{{}, "no `## To` block: the file defines no op"}});
        return;
    }
    TypeFacts facts;
    if (auto found = check(c.program, &facts); !found.empty()) {
        c.result = errors(c, std::move(found));
        return;
    }
    Raised raised = raise_op(c.program, *c.op, c.source->path(), facts);
    if (auto* failure = std::get_if<Failure>(&raised)) {
        c.result = std::move(*failure);
        return;
    }
    c.result = recognize(std::get<ir::OpIR>(raised));
}

} // namespace

Compiled compile_text(const std::string& path, std::string text, const std::string& op_name) {
    Compiled c;
    c.source = std::make_unique<SourceFile>(path, std::move(text));
    read_op(c, op_name);
    auto* failure = std::get_if<Failure>(&c.result);
    if (auto note = op_choice_note(c.program); failure && note)
        failure->diagnostics.front().notes.push_back(*note);
    return c;
}

Compiled compile_file(const std::string& path, const std::string& op_name) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        Compiled c;
        c.source = std::make_unique<SourceFile>(path, "");
        c.result = Failure{path, {Diagnostic{{}, "cannot read the file"}}};
        return c;
    }
    std::ostringstream text;
    text << in.rdbuf();
    return compile_text(path, text.str(), op_name);
}

} // namespace solbench
