// LOGOS lexer: the line structure of a literate .lg file and the tokens of
// one line of code.
//
// LOGOS is line-oriented (blocks nest by indentation, a statement ends on its
// line), so the lexer works a line at a time: split_lines() classifies every
// line (header, code/prose, blank) and measures its indentation, and
// tokenize() turns the code part of one line into tokens. Neither throws; a
// problem (a tab in indentation, a stray byte, an unterminated string) is
// appended to the caller's diagnostics and lexing goes on.
#pragma once

#include "frontend/source.h"

#include <string>
#include <string_view>
#include <vector>

namespace solbench::lex {

enum class Tok {
    Word,   // identifier or keyword: [A-Za-z_][A-Za-z0-9_]*
    Number, // 12, 1.5, 1e-5, 2.5E+3
    String, // "text" (value holds the contents)
    Punct,  // ( ) [ ] , : . + - * / % ** == != < > <= >= -> =
    End,    // end of the line
};

struct Token {
    Tok kind = Tok::End;
    std::string_view text; // as written (for String: with the quotes)
    SourcePos pos;
    std::string value; // String only: the contents, escapes resolved
    bool is(Tok k, std::string_view t) const { return kind == k && text == t; }
    bool punct(std::string_view t) const { return is(Tok::Punct, t); }
};

// One physical line of the file.
struct Line {
    int number = 0;        // 1-based
    std::string_view text; // without the newline (and a trailing '\r')
    bool header = false;   // begins with "##"
    bool blank = false;    // only whitespace
    int indent = 0;        // width of the leading whitespace (a tab counts to the next 4)
    size_t body = 0;       // byte offset of the first non-blank character
};

// Splits `file` into lines. Reports, once per file, the first NUL byte and the
// first invalid UTF-8 sequence (binary input is then mostly ignored as prose).
std::vector<Line> split_lines(const SourceFile& file, std::vector<Diagnostic>& errors);

// `s` with every byte that is not part of valid UTF-8 written as `\xNN`, so a
// diagnostic that quotes source text stays valid UTF-8 (JSON output needs it).
std::string valid_utf8(std::string_view s);

// Reports a tab inside a code line's indentation (tabs are refused).
void check_indent(const Line& line, std::vector<Diagnostic>& errors);

// The tokens of `line` from byte offset `from` to the end of the line (or of
// a `#` comment), always terminated by an End token positioned just after the
// last character that was read.
std::vector<Token> tokenize(const Line& line, size_t from, std::vector<Diagnostic>& errors);

} // namespace solbench::lex
