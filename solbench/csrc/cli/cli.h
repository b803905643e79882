// The solgen command line: generate, explain, run, check (delegated to Python).
#pragma once

namespace solbench::cli {

// Runs solgen with a C-style argument vector; returns the process exit code:
// 0 success, 1 usage or I/O error, 2 the op was refused or has errors.
int run(int argc, char** argv);

} // namespace solbench::cli
