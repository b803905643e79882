// libFuzzer target over solgen's pipeline, short of the disk and the
// interpreter: an arbitrary byte string is read as a .lg file (lexer, parser,
// checker, raiser, recognizers); every diagnostic is rendered and the explain
// JSON is built; a recognized op is emitted into an in-memory bundle
// (templater, kernel emitter, reference printer, schema validation).
//
// The interpreter is left out on purpose: a hostile op may legitimately loop
// for a long time, which would be reported as a (false) timeout.
//
// Any crash, sanitizer report, uncaught exception, leak or >1 s input is a bug:
// the public APIs promise diagnostics, never a throw.
#include "cli/explain.h"
#include "driver/compile.h"
#include "package/packager.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>

namespace {

// Renders what a user would see, so the diagnostic formatting is exercised too.
size_t render_all(const solbench::Compiled& c) {
    size_t total = 0;
    if (const auto* f = std::get_if<solbench::Failure>(&c.result))
        for (const solbench::Diagnostic& d : f->diagnostics)
            total += solbench::render(*c.source, d).size();
    return total + solbench::cli::explain_json(c).dump().size();
}

size_t build_in_memory(const solbench::OpDescription& op) {
    for (bool dps : {true, false}) {
        solbench::package::BundleOptions options;
        options.name = op.ir.name + "_solgen";
        options.destination_passing = dps;
        options.source_file_name = "fuzz.lg";
        auto bundle = solbench::package::build_bundle(op, options, nullptr);
        if (const auto* files = std::get_if<solbench::package::BundleFiles>(&bundle)) {
            size_t total = 0;
            for (const auto& [path, content] : *files)
                total += path.size() + content.size();
            if (total == 0) __builtin_trap(); // a recognized op must produce files
            return total;
        }
    }
    return 0;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string text(reinterpret_cast<const char*>(data), size);
    solbench::Compiled c = solbench::compile_text("fuzz.lg", std::move(text));
    volatile size_t sink = render_all(c);
    if (const auto* op = std::get_if<solbench::OpDescription>(&c.result))
        sink = sink + solbench::cli::explain_text(*op).size() + build_in_memory(*op);
    (void)sink;
    return 0;
}
