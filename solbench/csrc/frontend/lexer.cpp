#include "frontend/lexer.h"

#include <cstdio>

namespace solbench::lex {

namespace {

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}
bool is_digit(char c) {
    return c >= '0' && c <= '9';
}
bool is_word_start(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool is_word_char(char c) {
    return is_word_start(c) || is_digit(c);
}

int col_of(size_t offset) {
    return static_cast<int>(offset) + 1;
}

// Length of the valid UTF-8 sequence starting at s[i], or 0 when invalid.
size_t utf8_length(std::string_view s, size_t i) {
    auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
    unsigned char b = byte(i);
    if (b < 0x80) return 1;
    size_t n = 0;
    unsigned char lo = 0x80, hi = 0xBF; // allowed range of the second byte
    if (b >= 0xC2 && b <= 0xDF) {
        n = 2;
    } else if (b >= 0xE0 && b <= 0xEF) {
        n = 3;
        if (b == 0xE0) lo = 0xA0; // no overlong forms
        if (b == 0xED) hi = 0x9F; // no surrogates
    } else if (b >= 0xF0 && b <= 0xF4) {
        n = 4;
        if (b == 0xF0) lo = 0x90;
        if (b == 0xF4) hi = 0x8F; // nothing above U+10FFFF
    } else {
        return 0;
    }
    if (i + n > s.size()) return 0;
    if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
    for (size_t k = 2; k < n; ++k)
        if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
    return n;
}

std::string hex_byte(char c) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "0x%02X", static_cast<unsigned>(static_cast<unsigned char>(c)));
    return buf;
}

// Reports the first NUL byte and the first invalid UTF-8 sequence of a line.
void check_encoding(const Line& line, bool& nul_seen, bool& utf8_seen,
                    std::vector<Diagnostic>& errors) {
    std::string_view s = line.text;
    for (size_t i = 0; i < s.size() && !(nul_seen && utf8_seen);) {
        if (s[i] == '\0' && !nul_seen) {
            nul_seen = true;
            errors.push_back({{line.number, col_of(i)}, "NUL byte in the source file"});
        }
        size_t n = utf8_length(s, i);
        if (n == 0) {
            if (!utf8_seen) {
                utf8_seen = true;
                errors.push_back(
                    {{line.number, col_of(i)}, "invalid UTF-8 (byte " + hex_byte(s[i]) + ")"});
            }
            n = 1;
        }
        i += n;
    }
}

// Scans a number: digits, an optional fraction, an optional exponent.
size_t scan_number(std::string_view s, size_t i) {
    while (i < s.size() && is_digit(s[i]))
        ++i;
    if (i + 1 < s.size() && s[i] == '.' && is_digit(s[i + 1])) {
        ++i;
        while (i < s.size() && is_digit(s[i]))
            ++i;
    }
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        size_t j = i + 1;
        if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
        if (j < s.size() && is_digit(s[j])) {
            i = j;
            while (i < s.size() && is_digit(s[i]))
                ++i;
        }
    }
    return i;
}

// Scans a string literal starting at the opening quote; fills `value`.
// Returns the offset after the closing quote (or the line's end).
size_t scan_string(std::string_view s, size_t i, std::string& value, bool& closed) {
    ++i;
    closed = false;
    while (i < s.size()) {
        char c = s[i++];
        if (c == '"') {
            closed = true;
            break;
        }
        if (c == '\\' && i < s.size()) {
            char e = s[i++];
            value += e == 'n' ? '\n' : e == 't' ? '\t' : e;
            continue;
        }
        value += c;
    }
    return i;
}

size_t punct_length(std::string_view s, size_t i) {
    static constexpr std::string_view two[] = {"==", "!=", "<=", ">=", "->", "**"};
    for (std::string_view t : two)
        if (s.substr(i, 2) == t) return 2;
    static constexpr std::string_view one = "()[],:.+-*/%<>=";
    return one.find(s[i]) != std::string_view::npos ? 1 : 0;
}

std::string describe_char(std::string_view s, size_t i) {
    size_t n = utf8_length(s, i);
    unsigned char b = static_cast<unsigned char>(s[i]);
    if (n == 0 || (n == 1 && (b < 0x20 || b == 0x7F))) return "byte " + hex_byte(s[i]);
    return "character '" + std::string(s.substr(i, n)) + "'";
}

} // namespace

std::vector<Line> split_lines(const SourceFile& file, std::vector<Diagnostic>& errors) {
    std::vector<Line> lines;
    bool nul_seen = false, utf8_seen = false;
    int count = file.line_count();
    lines.reserve(static_cast<size_t>(count));
    for (int n = 1; n <= count; ++n) {
        Line l;
        l.number = n;
        l.text = file.line(n);
        l.header = l.text.substr(0, 2) == "##";
        size_t i = 0;
        while (i < l.text.size() && (l.text[i] == ' ' || l.text[i] == '\t')) {
            l.indent = l.text[i] == '\t' ? (l.indent / 4 + 1) * 4 : l.indent + 1;
            ++i;
        }
        l.body = i;
        l.blank = true;
        for (size_t k = i; k < l.text.size() && l.blank; ++k)
            l.blank = is_space(l.text[k]);
        check_encoding(l, nul_seen, utf8_seen, errors);
        lines.push_back(l);
    }
    return lines;
}

std::string valid_utf8(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size();) {
        size_t n = utf8_length(s, i);
        if (n == 0) {
            out += "\\x" + hex_byte(s[i]).substr(2);
            ++i;
            continue;
        }
        out.append(s, i, n);
        i += n;
    }
    return out;
}

void check_indent(const Line& line, std::vector<Diagnostic>& errors) {
    size_t tab = line.text.substr(0, line.body).find('\t');
    if (tab != std::string_view::npos)
        errors.push_back({{line.number, col_of(tab)}, "tab in indentation; indent with 4 spaces"});
}

std::vector<Token> tokenize(const Line& line, size_t from, std::vector<Diagnostic>& errors) {
    std::string_view s = line.text;
    std::vector<Token> out;
    size_t end_of_last = from; // where the End token goes
    bool stray_reported = false;
    size_t i = from;
    while (i < s.size()) {
        char c = s[i];
        if (is_space(c)) {
            ++i;
            continue;
        }
        if (c == '#') break; // a comment runs to the end of the line
        Token t;
        t.pos = {line.number, col_of(i)};
        size_t start = i;
        if (is_word_start(c)) {
            while (i < s.size() && is_word_char(s[i]))
                ++i;
            t.kind = Tok::Word;
        } else if (is_digit(c)) {
            i = scan_number(s, i);
            t.kind = Tok::Number;
        } else if (c == '"') {
            bool closed = false;
            i = scan_string(s, i, t.value, closed);
            t.kind = Tok::String;
            if (!closed) errors.push_back({t.pos, "unterminated string literal"});
        } else if (size_t n = punct_length(s, i); n > 0) {
            i += n;
            t.kind = Tok::Punct;
        } else {
            // Report the first stray character of a line only: binary input
            // would otherwise produce one error per byte.
            if (!stray_reported) errors.push_back({t.pos, "unexpected " + describe_char(s, i)});
            stray_reported = true;
            size_t len = utf8_length(s, i);
            i += len == 0 ? 1 : len;
            continue;
        }
        t.text = s.substr(start, i - start);
        end_of_last = i;
        out.push_back(std::move(t));
    }
    Token end;
    end.kind = Tok::End;
    end.pos = {line.number, col_of(end_of_last)};
    out.push_back(std::move(end));
    return out;
}

} // namespace solbench::lex
