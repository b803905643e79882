// solbench._core: the C++ pipeline as a Pythonic API.
//
//   import solbench
//   op = solbench.explain("rmsnorm.lg")          # dict, as `solgen explain --json`
//   solbench.generate("rmsnorm.lg", "out/")      # writes a bundle
//   solbench.generate("rmsnorm.lg", "out/", solbench.GenerateOptions(author="me", force=True))
//   solbench.run("rmsnorm.lg", {"hidden_states": [[1.0]], "weight": [1.0]})
#include "cli/cli.h"
#include "cli/exit_codes.h"
#include "cli/explain.h"
#include "driver/compile.h"
#include "frontend/interpreter.h"
#include "ir/evaluator.h"
#include "package/generate.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

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
    if (const auto* f = std::get_if<Failure>(&c.result))
        for (const Diagnostic& d : f->diagnostics)
            out << render(*c.source, d);
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

// generate()'s options as one typed Python object: the package layer's GenerateOptions (its
// out_dir and source_file_name come from generate()'s own arguments) plus which `## To` block
// to compile, which is chosen before the package layer runs.
struct PyGenerateOptions : GenerateOptions {
    std::string op;
};

void bind_generate_options(py::module_& m) {
    const PyGenerateOptions defaults; // the constructor's defaults are the C++ struct's
    py::class_<PyGenerateOptions>(
        m, "GenerateOptions",
        "Options of generate(), as solgen's flags: definition (--definition), targets "
        "(--target), arch, author, name, return_style (--return-style, the inverse of "
        "destination_passing), force, op (which `## To` block). Assign a new list to targets: "
        "reading it returns a copy.")
        .def(py::init([](std::optional<std::string> definition, std::vector<std::string> targets,
                         std::optional<std::string> arch, std::string author,
                         std::optional<std::string> name, bool return_style, bool force,
                         std::string op) {
                 PyGenerateOptions o;
                 o.definition_path = std::move(definition);
                 o.targets = std::move(targets);
                 o.arch = std::move(arch);
                 o.author = std::move(author);
                 o.name = std::move(name);
                 o.destination_passing = !return_style;
                 o.force = force;
                 o.op = std::move(op);
                 return o;
             }),
             py::kw_only(), py::arg("definition") = defaults.definition_path,
             py::arg("targets") = defaults.targets, py::arg("arch") = defaults.arch,
             py::arg("author") = defaults.author, py::arg("name") = defaults.name,
             py::arg("return_style") = !defaults.destination_passing,
             py::arg("force") = defaults.force, py::arg("op") = defaults.op)
        .def_readwrite("definition", &PyGenerateOptions::definition_path)
        .def_readwrite("targets", &PyGenerateOptions::targets)
        .def_readwrite("arch", &PyGenerateOptions::arch)
        .def_readwrite("author", &PyGenerateOptions::author)
        .def_readwrite("name", &PyGenerateOptions::name)
        .def_readwrite("destination_passing", &PyGenerateOptions::destination_passing)
        .def_property(
            "return_style", [](const PyGenerateOptions& o) { return !o.destination_passing; },
            [](PyGenerateOptions& o, bool v) { o.destination_passing = !v; })
        .def_readwrite("force", &PyGenerateOptions::force)
        .def_readwrite("op", &PyGenerateOptions::op)
        .def("__repr__", [](const py::object& self) {
            std::string text = "GenerateOptions(";
            const char* sep = "";
            for (const char* f : {"definition", "targets", "arch", "author", "name", "return_style",
                                  "force", "op"}) {
                text += sep + std::string(f) + "=" + py::repr(self.attr(f)).cast<std::string>();
                sep = ", ";
            }
            return text + ")";
        });
}

} // namespace

PYBIND11_MODULE(_core, m) {
    m.doc() = "solbench's C++ core: parse, explain, recognize, emit and package LOGOS ops";
    py::register_exception<OpError>(m, "OpError", PyExc_ValueError);
    bind_generate_options(m);

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
            if (auto* f = std::get_if<Failure>(&c.result); f && !f->refused())
                throw OpError(errors_text(c));
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
        [](const std::string& path, const std::string& out_dir, const PyGenerateOptions& options) {
            Compiled c = compile_file(path, options.op);
            const OpDescription& d = recognized(c);
            GenerateOptions opts = static_cast<const GenerateOptions&>(options); // all but op
            opts.out_dir = out_dir;
            opts.source_file_name = path.substr(path.find_last_of('/') + 1);
            std::ostringstream out, err;
            if (generate(d, opts, out, err) != cli::Exit::Ok) throw OpError(err.str());
            return out.str();
        },
        py::arg("path"), py::arg("out_dir"), py::arg("options") = PyGenerateOptions{},
        "Write a SOL-ExecBench bundle for the op into out_dir (options: a GenerateOptions).");

    m.def(
        "main",
        [](const std::vector<std::string>& argv) {
            std::vector<std::string> args = argv;
            std::vector<char*> cargs;
            for (auto& a : args)
                cargs.push_back(a.data());
            return cli::run(static_cast<int>(cargs.size()), cargs.data());
        },
        py::arg("argv"), "Run the solgen command line (argv[0] is the program name).");

    m.def(
        "exit_codes",
        [] {
            std::vector<std::pair<std::string, int>> table;
            for (const cli::ExitCode& e : cli::kExitCodes)
                table.emplace_back(std::string(e.name), cli::code(e.code));
            return table;
        },
        "solgen's exit codes as (name, code) pairs, from the one table in cli/exit_codes.h.");

    m.def(
        "python_module", [](const std::string& command) { return cli::python_module(command); },
        py::arg("command"),
        "The Python module whose main(argv) runs this solgen command, or None when it is native.");
}
