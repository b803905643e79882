// The solgen command line: generate, explain, run natively; check, compile and
// bench in the Python package (one table, in cli.cpp, routes them all).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace solbench::cli {

// Runs solgen with a C-style argument vector; returns the process exit code:
// 0 success, 1 usage or I/O error, 2 the op was refused or has errors.
int run(int argc, char** argv);

// The Python module whose main(argv) runs `command`, or nullopt when the
// command is native (or unknown): `python -m solbench` routes by this.
std::optional<std::string> python_module(std::string_view command);

} // namespace solbench::cli
