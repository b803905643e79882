// Source files, and diagnostics rendered against them.
//
// Every stage reports problems as a Diagnostic (diag/diagnostic.h) anchored
// at a SourcePos; render() turns one into the familiar
//   file:line:col: error: message
//       <the source line>
//       ^
// form. Positions are 1-based, columns count bytes.
#pragma once

#include "diag/diagnostic.h"

#include <string>
#include <string_view>
#include <vector>

namespace solbench {

// The text of one input file, split into lines for diagnostics.
class SourceFile {
  public:
    SourceFile(std::string path, std::string text);

    const std::string& path() const { return path_; }
    const std::string& text() const { return text_; }
    // The line's text without its newline; empty when out of range.
    std::string_view line(int n) const;
    int line_count() const { return static_cast<int>(line_starts_.size()); }

  private:
    std::string path_;
    std::string text_;
    std::vector<size_t> line_starts_;
};

// render_short()'s line, then the source line with a caret under the column,
// then the diagnostic's notes ("note: ..."), one per line.
std::string render(const SourceFile& file, const Diagnostic& d);

} // namespace solbench
