// The solgen command line: generate, explain, run natively; check, compile and
// bench in the Python package (one table, in cli.cpp, routes them all).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace solbench::cli {

// Runs solgen with a C-style argument vector; returns the process exit code,
// one of cli/exit_codes.h's table (0 ok, 1 failed, 2 rejected, 64 usage, 69 unavailable, 70
// internal).
int run(int argc, char** argv);

// The Python module whose main(argv) runs `command`, or nullopt when the
// command is native (or unknown): `python -m solbench` routes by this.
std::optional<std::string> python_module(std::string_view command);

} // namespace solbench::cli
