#include "cli/cli.h"

#include <iostream>

namespace solbench::cli {

int run(int, char**) {
    std::cerr << "solgen: not built yet\n";
    return 1;
}

} // namespace solbench::cli
