#include "frontend/source.h"

#include <algorithm>

namespace solbench {

SourceFile::SourceFile(std::string path, std::string text)
    : path_(std::move(path)), text_(std::move(text)) {
    line_starts_.push_back(0);
    for (size_t i = 0; i < text_.size(); ++i)
        if (text_[i] == '\n' && i + 1 < text_.size()) line_starts_.push_back(i + 1);
}

std::string_view SourceFile::line(int n) const {
    if (n < 1 || n > line_count()) return {};
    size_t start = line_starts_[static_cast<size_t>(n - 1)];
    size_t end = text_.find('\n', start);
    if (end == std::string::npos) end = text_.size();
    std::string_view s(text_.data() + start, end - start);
    if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
    return s;
}

namespace {

// The source line at `pos` (clipped around it when very long) and a caret under it.
std::string caret_lines(const SourceFile& file, SourcePos pos) {
    std::string_view text = file.line(pos.line);
    constexpr size_t kMax = 160;
    size_t caret = static_cast<size_t>(std::max(pos.col, 1) - 1);
    size_t start = 0;
    if (text.size() > kMax && caret > kMax / 2) start = std::min(caret - kMax / 2, text.size());
    std::string_view shown = text.substr(start, kMax);
    std::string line;
    for (char c : shown)
        line += (static_cast<unsigned char>(c) < 0x20 && c != '\t') ? '?' : c;
    std::string pad;
    for (size_t i = start; i < caret && i - start < shown.size(); ++i)
        pad += (text[i] == '\t') ? '\t' : ' ';
    return "    " + line + "\n    " + pad + "^\n";
}

} // namespace

std::string render(const SourceFile& file, const Diagnostic& d) {
    std::string out = render_short(file.path(), d) + "\n";
    if (d.pos.valid()) out += caret_lines(file, d.pos);
    for (const std::string& note : d.notes)
        out += "note: " + note + "\n";
    return out;
}

} // namespace solbench
