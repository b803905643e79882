// libFuzzer target over a benchmark definition.json: an arbitrary byte string
// is read as a definition (JSON parse, duplicate keys, the schema, the
// harness's lax sizes, literal and repeated shape entries), bound to the
// rmsnorm op of examples/ (names, constants, equal axes), and a bound op is
// emitted into an in-memory bundle (kernel, workloads, reference, schema).
//
// Any crash, sanitizer report, uncaught exception, leak or >1 s input is a bug:
// a hostile definition gets errors naming the file and field, never a throw.
#include "driver/compile.h"
#include "package/definition.h"
#include "package/packager.h"

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <variant>

namespace {

const solbench::OpDescription& rmsnorm() {
    static const solbench::OpDescription op = [] {
        std::ifstream in(SOLBENCH_SOURCE_DIR "/examples/rmsnorm.lg", std::ios::binary);
        std::stringstream text;
        text << in.rdbuf();
        solbench::Compiled c = solbench::compile_text("rmsnorm.lg", text.str());
        const auto* op = std::get_if<solbench::OpDescription>(&c.result);
        if (!op) __builtin_trap(); // the fuzzer needs its op
        return *op;
    }();
    return op;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    namespace pkg = solbench::package;
    std::string text(reinterpret_cast<const char*>(data), size);
    auto parsed = pkg::parse_definition("fuzz/definition.json", text);
    const auto* def = std::get_if<pkg::Definition>(&parsed);
    if (!def) {
        if (std::get<solbench::Failure>(parsed).diagnostics.empty()) __builtin_trap(); // say why
        return 0;
    }
    auto bound = pkg::bind(rmsnorm(), *def);
    const auto* op = std::get_if<solbench::OpDescription>(&bound);
    if (!op) return 0;
    pkg::BundleOptions options;
    options.name = "fuzz_solgen";
    options.source_file_name = "rmsnorm.lg";
    auto bundle = pkg::build_bundle(*op, options, def);
    volatile size_t sink = 0;
    if (const auto* files = std::get_if<pkg::BundleFiles>(&bundle))
        for (const auto& [path, content] : *files)
            sink = sink + path.size() + content.size();
    (void)sink;
    return 0;
}
