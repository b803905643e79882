// solgen's version, written into every generated kernel's header comment.
#pragma once

namespace solbench {
inline constexpr const char* kVersion = "0.1.0";
}
