#include "driver/compile.h"

#include "frontend/checker.h"
#include "frontend/parser.h"
#include "raise/raise.h"

#include <fstream>
#include <sstream>

namespace solbench {

namespace {

// When the default op (the last block no other calls) fails, say so and name
// the others: a file may hold printing helpers that are not the op.
std::vector<std::string> op_choice_notes(const ast::Program& p) {
    if (p.other_candidates.empty()) return {};
    std::string others;
    for (const std::string& n : p.other_candidates)
        others += (others.empty() ? "`" : ", `") + n + "`";
    return {"`" + p.op +
            "` was taken as the op, being the last `## To` block that no other "
            "block calls; " +
            others + (p.other_candidates.size() == 1 ? " is" : " are") +
            " not called either: choose the op with --op NAME"};
}

// parse -> check -> raise -> recognize, stopping at the first stage that fails.
void read_op(Compiled& c, const std::string& op_name) {
    ParseResult parsed = parse(*c.source, op_name);
    c.program = std::move(parsed.program);
    if (!parsed.ok()) {
        c.result = SourceErrors{std::move(parsed.errors)};
        return;
    }
    c.op = c.program.find();
    if (!c.op) {
        c.result = SourceErrors{{Diagnostic{{}, "no `## To` block: the file defines no op"}}};
        return;
    }
    if (auto errors = check(c.program); !errors.empty()) {
        c.result = SourceErrors{std::move(errors)};
        return;
    }
    Raised raised = raise_op(c.program, *c.op, c.source->path());
    if (auto* refusal = std::get_if<Refusal>(&raised)) {
        c.result = *refusal;
        return;
    }
    Recognition r = recognize(std::get<ir::OpIR>(raised));
    if (auto* d = std::get_if<OpDescription>(&r))
        c.result = std::move(*d);
    else
        c.result = std::get<Refusal>(r);
}

} // namespace

Compiled compile_text(const std::string& path, std::string text, const std::string& op_name) {
    Compiled c;
    c.source = std::make_unique<SourceFile>(path, std::move(text));
    read_op(c, op_name);
    if (!std::holds_alternative<OpDescription>(c.result)) c.notes = op_choice_notes(c.program);
    return c;
}

Compiled compile_file(const std::string& path, const std::string& op_name) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        Compiled c;
        c.source = std::make_unique<SourceFile>(path, "");
        c.result = SourceErrors{{Diagnostic{{}, "cannot read the file"}}};
        return c;
    }
    std::ostringstream text;
    text << in.rdbuf();
    return compile_text(path, text.str(), op_name);
}

} // namespace solbench
