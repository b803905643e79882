// solgen generate: a recognized op -> a SOL-ExecBench bundle on disk.
#pragma once

#include "cli/exit_codes.h"
#include "recognizers/recognizer.h"

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace solbench {

struct GenerateOptions {
    std::optional<std::string> definition_path;
    std::string out_dir;
    std::vector<std::string> targets{"B200"};
    std::optional<std::string> arch;
    std::string author = "solgen";
    std::optional<std::string> name;
    bool destination_passing = true;
    bool force = false;
    std::string source_file_name;
};

// Writes the bundle and returns Exit::Ok; on any error prints "file:...: error:
// ..." lines to err, writes nothing, and returns Exit::Usage (bad options) or
// Exit::Rejected (a definition that does not bind, a directory it cannot write).
cli::Exit generate(const OpDescription& op, const GenerateOptions& opts, std::ostream& out,
                   std::ostream& err);

} // namespace solbench
