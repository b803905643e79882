// solgen's version: pyproject.toml's, passed in by CMake (SOLBENCH_VERSION);
// written into every generated kernel's header comment and solution description.
#pragma once

#ifndef SOLBENCH_VERSION
#error "SOLBENCH_VERSION is defined by CMakeLists.txt from pyproject.toml"
#endif

namespace solbench {
inline constexpr const char* kVersion = SOLBENCH_VERSION;
}
