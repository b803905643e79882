// solgen's command line. `solgen OP.lg --out DIR` generates a bundle; the
// subcommands explain, run, check and bench come first on the command line.
#include "cli/cli.h"

#include "cli/exit_codes.h"

#include "cli/explain.h"
#include "driver/compile.h"
#include "frontend/interpreter.h"
#include "package/generate.h"
#include "version.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string_view>
#include <unistd.h>

namespace solbench::cli {

namespace {

constexpr int kOk = code(Exit::Ok), kUsage = code(Exit::Usage), kRejected = code(Exit::Rejected);

// Reads a regular file of at most 64 MiB (a FIFO or /dev/zero is not an op).
std::optional<std::string> read_text(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec) ||
        std::filesystem::file_size(path, ec) > (std::size_t{64} << 20) || ec)
        return std::nullopt;
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// Reads and compiles; on an I/O error prints it and returns nullopt.
std::optional<Compiled> load(const std::string& path, const std::string& op_name) {
    auto text = read_text(path);
    if (!text) {
        std::cerr
            << path
            << ": error: cannot read the file (not a readable regular file of at most 64 MiB)\n";
        return std::nullopt;
    }
    return compile_text(path, std::move(*text), op_name);
}

// Parses the command line; on --help/--version or a usage error returns the
// exit code (Ok, or Usage for usage errors, never CLI11's own codes).
std::optional<int> parse_args(CLI::App& app, int argc, char** argv) {
    try {
        app.parse(argc, argv);
    } catch (const CLI::Success& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        app.exit(e);
        return kUsage;
    }
    return std::nullopt;
}

// Prints why an op was not recognized; returns Exit::Rejected.
int report_failure(const Compiled& c) {
    const Failure& f = std::get<Failure>(c.result);
    for (const Diagnostic& d : f.diagnostics)
        std::cerr << render(*c.source, d);
    if (f.refused()) {
        std::cerr << "note: " << describe(*f.diagnostics.front().rule)
                  << " is outside solgen's op families; no code was emitted\n";
    } else {
        size_t n = f.diagnostics.size();
        std::cerr << n << (n == 1 ? " error" : " errors") << " in " << c.source->path() << "\n";
    }
    return kRejected;
}

int cmd_explain(int argc, char** argv) {
    CLI::App app{"Print the recognized structure of an op", "solgen explain"};
    std::string path, op_name;
    bool json = false;
    app.add_option("op", path, "the .lg file")->required();
    app.add_option("--op", op_name,
                   "the `## To` block to explain (default: the one no other block calls)");
    app.add_flag("--json", json, "print exactly one JSON object");
    if (auto rc = parse_args(app, argc, argv)) return *rc;
    auto c = load(path, op_name);
    if (!c) return kRejected;
    if (json) {
        std::cout << explain_json(*c).dump() << "\n";
        return std::holds_alternative<OpDescription>(c->result) ? kOk : kRejected;
    }
    if (const auto* d = std::get_if<OpDescription>(&c->result)) {
        std::cout << explain_text(*d);
        return kOk;
    }
    return report_failure(*c);
}

int cmd_run(int argc, char** argv) {
    CLI::App app{"Run an op with the LOGOS interpreter (the semantic oracle)", "solgen run"};
    std::string path, inputs_path, op_name;
    app.add_option("op", path, "the .lg file")->required();
    app.add_option("--inputs", inputs_path, "a JSON object of inputs by parameter name")
        ->required();
    app.add_option("--op", op_name,
                   "the `## To` block to run (default: the one no other block calls)");
    if (auto rc = parse_args(app, argc, argv)) return *rc;
    auto c = load(path, op_name);
    if (!c) return kRejected;
    if (auto* f = std::get_if<Failure>(&c->result); f && !f->refused()) return report_failure(*c);
    auto inputs_text = read_text(inputs_path);
    if (!inputs_text) {
        std::cerr << inputs_path << ": error: cannot read the file\n";
        return kRejected;
    }
    nlohmann::json inputs = nlohmann::json::parse(*inputs_text, nullptr, false);
    if (inputs.is_discarded() || !inputs.is_object()) {
        std::cerr << inputs_path << ": error: expected a JSON object of inputs\n";
        return kRejected;
    }
    try {
        std::cout << interpret(c->program, *c->op, inputs).dump() << "\n";
        return kOk;
    } catch (const RuntimeError& e) {
        std::cerr << render(*c->source, Diagnostic{e.pos, e.what()});
        return kRejected;
    }
}

// Where `solgen check|bench|compile` runs: the Python beside this executable
// (a venv's bin/, where pip installed both), else $SOLBENCH_PYTHON, else python3.
std::string python_interpreter() {
    if (const char* env = std::getenv("SOLBENCH_PYTHON"); env && *env) return env;
    std::error_code ec;
    auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        auto sibling = self.parent_path() / "python3";
        if (std::filesystem::exists(sibling, ec)) return sibling.string();
    }
    return "python3";
}

// The Python commands run as `python -m solbench CMD ...`, which looks CMD up
// in the same table (python_module) and calls that module's main().
int cmd_python(const std::string& sub, int argc, char** argv) {
    std::string python = python_interpreter();
    std::vector<std::string> args = {python, "-m", "solbench", sub};
    for (int i = 1; i < argc; ++i)
        args.emplace_back(argv[i]);
    std::vector<char*> cargs;
    for (auto& a : args)
        cargs.push_back(a.data());
    cargs.push_back(nullptr);
    std::cout.flush();
    execvp(python.c_str(), cargs.data());
    std::cerr << "solgen " << sub << ": cannot start " << python
              << " (pip install . installs solbench; SOLBENCH_PYTHON names another interpreter)\n";
    return code(Exit::Internal);
}

int cmd_generate(int argc, char** argv) {
    CLI::App app{"solgen: turn a LOGOS tensor op into a SOL-ExecBench submission\n\n"
                 "  solgen OP.lg --out DIR [--definition definition.json]\n"
                 "  solgen explain [--json] OP.lg\n"
                 "  solgen run OP.lg --inputs inputs.json\n"
                 "  solgen check BUNDLE [--device cpu|cuda|auto]\n"
                 "  solgen bench BUNDLE\n"
                 "  solgen compile BUNDLE\n",
                 "solgen"};
    std::string path, op_name;
    GenerateOptions opts;
    std::string definition;
    bool return_style = false;
    std::string name;
    app.set_version_flag("--version", std::string("solgen ") + kVersion);
    app.add_option("op", path, "the .lg file")->required();
    app.add_option("--out,-o", opts.out_dir, "the bundle directory to write")->required();
    app.add_option("--definition", definition, "bind to this benchmark definition.json");
    app.add_option("--target", opts.targets, "B200 (default) and/or LOCAL")
        ->check(CLI::IsMember({"B200", "LOCAL"}))
        ->take_all();
    app.add_option("--arch", opts.arch, "pin one architecture, e.g. sm_90")
        ->check([](const std::string& a) {
            return a.rfind("sm_", 0) == 0 && a.size() >= 5 ? "" : "expected sm_XX";
        });
    app.add_option("--author", opts.author, "solution author")->check([](const std::string& a) {
        return a.empty() ? "must not be empty (the harness requires an author)" : "";
    });
    app.add_option("--name", name, "solution name (default: <op>_solgen)");
    app.add_option("--op", op_name,
                   "the `## To` block to generate (default: the one no other block calls)");
    app.add_flag("--return-style", return_style, "run() returns its outputs");
    app.add_flag("--force", opts.force, "replace an existing non-empty bundle directory");
    if (auto rc = parse_args(app, argc, argv)) return *rc;
    if (!definition.empty()) opts.definition_path = definition;
    if (!name.empty()) opts.name = name;
    opts.destination_passing = !return_style;
    opts.source_file_name = path.substr(path.find_last_of('/') + 1);
    auto c = load(path, op_name);
    if (!c) return kRejected;
    const auto* d = std::get_if<OpDescription>(&c->result);
    if (!d) return report_failure(*c);
    return code(generate(*d, opts, std::cout, std::cerr));
}

// The one table of solgen's commands. Native ones run in this process; the
// others are Python modules (they need torch), reached through python_module.
struct Command {
    std::string_view name;
    int (*native)(int argc, char** argv); // nullptr: a Python command
    std::string_view python_module;
};

constexpr Command kCommands[] = {
    {"explain", cmd_explain, ""},
    {"run", cmd_run, ""},
    {"check", nullptr, "solbench.conformance.cli"},
    {"compile", nullptr, "solbench.compile_check"},
    {"bench", nullptr, "solbench.bench"},
};

const Command* find_command(std::string_view name) {
    for (const Command& c : kCommands)
        if (c.name == name) return &c;
    return nullptr;
}

} // namespace

std::optional<std::string> python_module(std::string_view command) {
    const Command* c = find_command(command);
    if (!c || c->native) return std::nullopt;
    return std::string(c->python_module);
}

int run(int argc, char** argv) {
    try {
        const Command* c = argc > 1 ? find_command(argv[1]) : nullptr;
        if (!c) return cmd_generate(argc, argv); // `solgen OP.lg --out DIR`, --help, --version
        if (c->native) return c->native(argc - 1, argv + 1);
        return cmd_python(std::string(c->name), argc - 1, argv + 1);
    } catch (const std::exception& e) {
        std::cerr << "solgen: internal error: " << e.what() << " (please report it)\n";
        return code(Exit::Internal);
    }
}

} // namespace solbench::cli
