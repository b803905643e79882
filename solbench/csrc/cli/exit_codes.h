// The one exit-code table of every `solgen` command, native or Python (the
// Python commands read it through _core.exit_codes()). README's "Exit codes"
// section is this table in words; tests hold the two together.
#pragma once

#include <string_view>

namespace solbench::cli {

enum class Exit : int {
    Ok = 0,     // done: the bundle written, the op recognized, every workload PASSED
    Failed = 1, // a check ran and the bundle failed it (a workload, a compile problem)
    Rejected =
        2, // the input was rejected (errors, a refusal, a bad or unreadable file); nothing written
    Usage = 64,       // the command line is wrong (sysexits.h EX_USAGE)
    Unavailable = 69, // what the command needs is not here: a CUDA GPU, nvcc (EX_UNAVAILABLE)
    Internal = 70,    // solgen itself failed (sysexits.h EX_SOFTWARE): a bug to report
};

struct ExitCode {
    Exit code;
    std::string_view name; // lower case, as Python's solbench.exit_codes.Exit spells it upper
    std::string_view meaning;
};

inline constexpr ExitCode kExitCodes[] = {
    {Exit::Ok, "ok", "done: the bundle is written, the op recognized, every workload PASSED"},
    {Exit::Failed, "failed", "a check ran and the bundle failed it"},
    {Exit::Rejected, "rejected",
     "the input was rejected: errors in it, a refusal, a bad or unreadable file; nothing written"},
    {Exit::Usage, "usage", "the command line is wrong"},
    {Exit::Unavailable, "unavailable", "what the command needs is not here: a CUDA GPU, nvcc"},
    {Exit::Internal, "internal", "solgen itself failed: a bug to report"},
};

constexpr int code(Exit e) {
    return static_cast<int>(e);
}

} // namespace solbench::cli
