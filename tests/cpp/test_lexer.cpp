#include "frontend/lexer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace solbench;
using namespace solbench::lex;

namespace {

// Tokenizes the first line of `text` from its first non-blank character.
struct Lexed {
    SourceFile file;
    std::vector<Line> lines;
    std::vector<Token> toks;
    std::vector<Diagnostic> errors;
    explicit Lexed(std::string text) : file("t.lg", std::move(text)) {
        lines = split_lines(file, errors);
        toks = tokenize(lines.at(0), lines.at(0).body, errors);
    }
    std::vector<std::string> texts() const {
        std::vector<std::string> out;
        for (const Token& t : toks)
            if (t.kind != Tok::End) out.emplace_back(t.text);
        return out;
    }
};

using Strings = std::vector<std::string>;

} // namespace

TEST(Lexer, WordsNumbersAndPunctuation) {
    Lexed l("    Let x be item (i + 1) of xs * 2.5.");
    EXPECT_EQ(l.texts(), (Strings{"Let", "x", "be", "item", "(", "i", "+", "1", ")", "of", "xs",
                                  "*", "2.5", "."}));
    EXPECT_TRUE(l.errors.empty());
    EXPECT_EQ(l.toks[0].kind, Tok::Word);
    EXPECT_EQ(l.toks[7].kind, Tok::Number);
    EXPECT_EQ(l.toks[12].kind, Tok::Number);
    EXPECT_EQ(l.toks.back().kind, Tok::End);
}

TEST(Lexer, NumberForms) {
    Lexed l("1e-5 2.5E+3 1. 1.0. 0.00001 4096 3e x");
    // `1.` is the integer 1 and a period; `3e` is 3 followed by the word e.
    EXPECT_EQ(l.texts(),
              (Strings{"1e-5", "2.5E+3", "1", ".", "1.0", ".", "0.00001", "4096", "3", "e", "x"}));
}

TEST(Lexer, TwoCharacterOperators) {
    Lexed l("a == b != c <= d >= e -> f < g > h");
    EXPECT_EQ(l.texts(), (Strings{"a", "==", "b", "!=", "c", "<=", "d", ">=", "e", "->", "f", "<",
                                  "g", ">", "h"}));
}

TEST(Lexer, CommentsEndTheLineButNotInsideStrings) {
    Lexed l(R"(Return "a # b" combined with x. # a comment "with quotes")");
    EXPECT_EQ(l.texts(), (Strings{"Return", "\"a # b\"", "combined", "with", "x", "."}));
    EXPECT_EQ(l.toks[1].kind, Tok::String);
    EXPECT_EQ(l.toks[1].value, "a # b");
}

TEST(Lexer, StringEscapes) {
    Lexed l(R"("say \"hi\"\n")");
    ASSERT_EQ(l.toks.size(), 2u);
    EXPECT_EQ(l.toks[0].value, "say \"hi\"\n");
}

TEST(Lexer, UnterminatedString) {
    Lexed l("Return \"open");
    ASSERT_EQ(l.errors.size(), 1u);
    EXPECT_EQ(l.errors[0].message, "unterminated string literal");
    EXPECT_EQ(l.errors[0].pos, (SourcePos{1, 8}));
}

TEST(Lexer, PositionsAreOneBasedByteColumns) {
    Lexed l("    Set x to 1.");
    EXPECT_EQ(l.toks[0].pos, (SourcePos{1, 5}));
    EXPECT_EQ(l.toks[1].pos, (SourcePos{1, 9}));
    EXPECT_EQ(l.toks[4].pos, (SourcePos{1, 15}));
}

TEST(Lexer, EndTokenSitsJustAfterTheLastToken) {
    Lexed l("    Let y be 2   # trailing comment");
    EXPECT_EQ(l.toks.back().kind, Tok::End);
    EXPECT_EQ(l.toks.back().pos, (SourcePos{1, 15}));
}

TEST(Lexer, StrayCharacterReportedOncePerLine) {
    Lexed l("Let x be 1 @ 2 $ 3.");
    ASSERT_EQ(l.errors.size(), 1u);
    EXPECT_EQ(l.errors[0].message, "unexpected character '@'");
    EXPECT_EQ(l.errors[0].pos, (SourcePos{1, 12}));
    EXPECT_EQ(l.texts(), (Strings{"Let", "x", "be", "1", "2", "3", "."}));
}

TEST(Lexer, NonAsciiCharacterIsNamed) {
    Lexed l("Let \xC3\xA9 be 1.");
    ASSERT_EQ(l.errors.size(), 1u);
    EXPECT_EQ(l.errors[0].message, "unexpected character '\xC3\xA9'");
}

TEST(Lexer, InvalidUtf8ReportedOnceWithPosition) {
    Lexed l("ok line\nab\xFF\xFE cd\n\xC0\x80\n");
    ASSERT_GE(l.errors.size(), 1u);
    EXPECT_EQ(l.errors[0].message, "invalid UTF-8 (byte 0xFF)");
    EXPECT_EQ(l.errors[0].pos, (SourcePos{2, 3}));
    int utf8_errors = 0;
    for (const Diagnostic& d : l.errors)
        utf8_errors += d.message.find("UTF-8") != std::string::npos;
    EXPECT_EQ(utf8_errors, 1);
}

TEST(Lexer, RejectsOverlongAndSurrogateEncodings) {
    for (std::string bad : {"\xC0\xAF", "\xE0\x80\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80"}) {
        Lexed l("x " + bad);
        ASSERT_FALSE(l.errors.empty()) << bad.size();
        EXPECT_NE(l.errors[0].message.find("invalid UTF-8"), std::string::npos);
    }
    Lexed ok("# caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
    EXPECT_TRUE(ok.errors.empty());
}

TEST(Lexer, NulByteReported) {
    Lexed l(std::string("abc\0def\n", 8));
    ASSERT_FALSE(l.errors.empty());
    EXPECT_EQ(l.errors[0].message, "NUL byte in the source file");
    EXPECT_EQ(l.errors[0].pos, (SourcePos{1, 4}));
}

TEST(Lexer, LineClassification) {
    SourceFile f("t.lg", "## To f:\n\n    \t x\n   \n# h1\n\ty\r\n");
    std::vector<Diagnostic> errors;
    std::vector<Line> lines = split_lines(f, errors);
    ASSERT_EQ(lines.size(), 6u);
    EXPECT_TRUE(lines[0].header);
    EXPECT_TRUE(lines[1].blank);
    EXPECT_FALSE(lines[2].blank);
    EXPECT_EQ(lines[2].indent, 9); // 4 spaces, a tab to 8, a space
    EXPECT_EQ(lines[2].body, 6u);
    EXPECT_TRUE(lines[3].blank);
    EXPECT_FALSE(lines[4].header);
    EXPECT_EQ(lines[5].text, "\ty");
    EXPECT_TRUE(errors.empty());
    check_indent(lines[2], errors);
    check_indent(lines[5], errors);
    ASSERT_EQ(errors.size(), 2u);
    EXPECT_EQ(errors[0].pos, (SourcePos{3, 5}));
    EXPECT_EQ(errors[1].pos, (SourcePos{6, 1}));
    EXPECT_NE(errors[0].message.find("tab"), std::string::npos);
}

TEST(Lexer, MegabyteLineOfGarbageIsLinear) {
    std::string line(1 << 20, '\x01');
    Lexed l(line);
    EXPECT_EQ(l.errors.size(), 1u);
    EXPECT_EQ(l.toks.size(), 1u);
}
