// solbench._core: the C++ pipeline as a Pythonic API.
//
//   import solbench
//   op = solbench.explain("rmsnorm.lg")          # dict, as `solgen explain --json`
//   solbench.generate("rmsnorm.lg", "out/")      # writes a bundle
//   solbench.run("rmsnorm.lg", {"hidden_states": [[1.0]], "weight": [1.0]})
#include "cli/cli.h"
#include "cli/explain.h"
#include "driver/compile.h"
#include "frontend/interpreter.h"
#include "ir/evaluator.h"
#include "package/generate.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <sstream>

namespace py = pybind11;
using namespace solbench;

namespace {

py::object to_py(const nlohmann::json& j) {
    return py::module_::import("json").attr("loads")(j.dump());
}

nlohmann::json from_py(const py::object& o) {
    std::string text = py::module_::import("json").attr("dumps")(o).cast<std::string>();
    return nlohmann::json::parse(text);
}

std::string errors_text(const Compiled& c) {
    std::ostringstream out;
    if (const auto* errs = std::get_if<SourceErrors>(&c.result))
        for (const Diagnostic& d : errs->errors) out << render(*c.source, d);
    if (const auto* r = std::get_if<Refusal>(&c.result))
        out << render(*c.source, Diagnostic{r->pos, std::string("refused (") + to_string(r->rule) +
                                                        "): " + r->message});
    return out.str();
}

// Raised for ops that are refused or do not parse; carries the diagnostics.
struct OpError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

const OpDescription& recognized(const Compiled& c) {
    if (const auto* d = std::get_if<OpDescription>(&c.result)) return *d;
    throw OpError(errors_text(c));
}

} // namespace

PYBIND11_MODULE(_core, m) {
    m.doc() = "solbench's C++ core: parse, explain, recognize, emit and package LOGOS ops";
    py::register_exception<OpError>(m, "OpError", PyExc_ValueError);

    m.def(
        "explain",
        [](const std::string& path, const std::string& op) {
            return to_py(cli::explain_json(compile_file(path, op)));
        },
        py::arg("path"), py::arg("op") = "",
        "The recognized structure of an op, or {'refused': ...} / {'errors': [...]}.");

    m.def(
        "run",
        [](const std::string& path, const py::object& inputs, const std::string& op) {
            Compiled c = compile_file(path, op);
            if (std::holds_alternative<SourceErrors>(c.result)) throw OpError(errors_text(c));
            try {
                return to_py(interpret(c.program, *c.op, from_py(inputs)));
            } catch (const RuntimeError& e) {
                throw OpError(render(*c.source, Diagnostic{e.pos, e.what()}));
            }
        },
        py::arg("path"), py::arg("inputs"), py::arg("op") = "",
        "Run the op with the LOGOS interpreter; inputs and outputs as JSON-like values.");

    m.def(
        "evaluate_ir",
        [](const std::string& path, const py::object& inputs, const std::string& op) {
            Compiled c = compile_file(path, op);
            return to_py(ir::evaluate(recognized(c).ir, from_py(inputs)));
        },
        py::arg("path"), py::arg("inputs"), py::arg("op") = "",
        "Evaluate the op's IR (float64) on the same inputs as run().");

    m.def(
        "generate",
        [](const std::string& path, const std::string& out_dir, const py::dict& options) {
            Compiled c = compile_file(path, options.contains("op") ? options["op"].cast<std::string>() : "");
            const OpDescription& d = recognized(c);
            GenerateOptions opts;
            opts.out_dir = out_dir;
            opts.source_file_name = path.substr(path.find_last_of('/') + 1);
            if (options.contains("definition")) opts.definition_path = options["definition"].cast<std::string>();
            if (options.contains("targets")) opts.targets = options["targets"].cast<std::vector<std::string>>();
            if (options.contains("arch")) opts.arch = options["arch"].cast<std::string>();
            if (options.contains("author")) opts.author = options["author"].cast<std::string>();
            if (options.contains("name")) opts.name = options["name"].cast<std::string>();
            if (options.contains("return_style")) opts.destination_passing = !options["return_style"].cast<bool>();
            if (options.contains("force")) opts.force = options["force"].cast<bool>();
            std::ostringstream out, err;
            int rc = generate(d, opts, out, err);
            if (rc != 0) throw OpError(err.str());
            return out.str();
        },
        py::arg("path"), py::arg("out_dir"), py::arg("options") = py::dict(),
        "Write a SOL-ExecBench bundle for the op into out_dir. options: definition, targets, "
        "arch, author, name, return_style, force, op.");

    m.def(
        "main",
        [](const std::vector<std::string>& argv) {
            std::vector<std::string> args = argv;
            std::vector<char*> cargs;
            for (auto& a : args) cargs.push_back(a.data());
            return cli::run(static_cast<int>(cargs.size()), cargs.data());
        },
        py::arg("argv"), "Run the solgen command line (argv[0] is the program name).");
}
