// Source files, positions and compiler-style diagnostics.
//
// Every later stage (parser, checker, raiser, recognizers) reports problems as
// a Diagnostic anchored at a SourcePos; render() turns one into the familiar
//   file:line:col: error: message
//       <the source line>
//       ^
// form. Positions are 1-based, columns count bytes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace solbench {

struct SourcePos {
    int line = 0; // 1-based; 0 means "no position"
    int col = 0;  // 1-based byte column
    bool valid() const { return line > 0; }
    friend bool operator==(const SourcePos&, const SourcePos&) = default;
};

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

struct Diagnostic {
    SourcePos pos;
    std::string message;
};

// "file:line:col: error: message" followed by the source line and a caret.
std::string render(const SourceFile& file, const Diagnostic& d);
// Just the first line, "file:line:col: error: message".
std::string render_short(const std::string& path, const Diagnostic& d);

} // namespace solbench
