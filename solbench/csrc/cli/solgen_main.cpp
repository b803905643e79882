// solgen's entry point: everything lives in cli::run so the Python package
// can call the very same command line.
#include "cli/cli.h"

int main(int argc, char** argv) {
    return solbench::cli::run(argc, argv);
}
