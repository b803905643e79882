#include "driver/compile.h"

#include "frontend/checker.h"
#include "frontend/parser.h"
#include "raise/raise.h"

#include <fstream>
#include <sstream>

namespace solbench {

Compiled compile_text(const std::string& path, std::string text, const std::string& op_name) {
    Compiled c;
    c.source = std::make_unique<SourceFile>(path, std::move(text));
    ParseResult parsed = parse(*c.source, op_name);
    c.program = std::move(parsed.program);
    if (!parsed.ok()) {
        c.result = SourceErrors{std::move(parsed.errors)};
        return c;
    }
    c.op = c.program.find();
    if (!c.op) {
        c.result = SourceErrors{{Diagnostic{{}, "no `## To` block: the file defines no op"}}};
        return c;
    }
    if (auto errors = check(c.program); !errors.empty()) {
        c.result = SourceErrors{std::move(errors)};
        return c;
    }
    Raised raised = raise_op(c.program, *c.op, path);
    if (auto* refusal = std::get_if<Refusal>(&raised)) {
        c.result = *refusal;
        return c;
    }
    Recognition r = recognize(std::get<ir::OpIR>(raised));
    if (auto* d = std::get_if<OpDescription>(&r))
        c.result = std::move(*d);
    else
        c.result = std::get<Refusal>(r);
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
