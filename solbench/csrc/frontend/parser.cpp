// Recursive-descent parser for the LOGOS subset of logos-ops.md.
//
// The file is read a line at a time: headers split it into blocks, a `## To`
// block's lines are tokenized and grouped into nested blocks by indentation,
// and each line holds one or more statements. A syntax error abandons the
// statement (an internal SyntaxError, caught per line) and parsing resumes at
// the next line, so one file reports several errors. Recursion is bounded
// (kMaxDepth) and expression trees are bounded in height (kMaxHeight), so no
// input can exhaust the stack here or in the stages that walk the AST.
#include "frontend/parser.h"

#include "frontend/interp_describe.h"
#include "frontend/lexer.h"
#include "frontend/outside_subset.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <new>
#include <set>
#include <span>
#include <utility>

namespace solbench {

namespace {

using namespace ast;
using lex::Tok;
using lex::Token;

constexpr int kMaxDepth = 256;   // nested blocks, or nested parentheses/operands
constexpr int kMaxHeight = 1000; // height of one expression tree
constexpr size_t kMaxErrors = 50;

// Abandons the statement being parsed; caught once per line.
struct SyntaxError {
    Diagnostic diag;
};

[[noreturn]] void fail(SourcePos pos, std::string message) {
    throw SyntaxError{{pos, std::move(message)}};
}

// ------------------------------------------------------------ words ----

bool word(const Token& t, std::string_view w) {
    return t.kind == Tok::Word && t.text == w;
}

// A statement keyword, written capitalized or not ("Let" / "let").
bool keyword(const Token& t, std::string_view w) {
    if (t.kind != Tok::Word || t.text.size() != w.size() || t.text.empty()) return false;
    char first = t.text[0];
    char lower = first >= 'A' && first <= 'Z' ? static_cast<char>(first - 'A' + 'a') : first;
    return lower == w[0] && t.text.substr(1) == w.substr(1);
}

// The first word of a statement of the subset.
bool statement_keyword(const Token& t) {
    for (std::string_view k : {"let", "set", "push", "repeat", "for", "while", "if", "return",
                               "check", "assert", "elif", "otherwise", "else"})
        if (keyword(t, k)) return true;
    return false;
}

// Words that cannot name a variable or parameter: they would read as operators.
bool reserved(std::string_view w) {
    static constexpr std::array<std::string_view, 26> kWords = {
        "of",     "and",  "or",    "not",   "is",      "as",     "be",       "to",     "in",
        "from",   "plus", "minus", "times", "divided", "equals", "combined", "modulo", "item",
        "length", "copy", "true",  "false", "new",     "that",   "into",     "with"};
    return std::find(kWords.begin(), kWords.end(), w) != kWords.end();
}

std::string quoted(std::string_view text) {
    constexpr size_t kShown = 40;
    if (text.size() > kShown) return "'" + std::string(text.substr(0, kShown)) + "...'";
    return "'" + std::string(text) + "'";
}

std::string describe(const Token& t) {
    return t.kind == Tok::End ? "the end of the line" : quoted(t.text);
}

// ------------------------------------------------------------ types ----

struct TypeName {
    std::string_view name;
    ElemType type;
};
constexpr std::array<TypeName, 16> kTypeNames = {{
    {"BFloat16", ElemType::BFloat16},
    {"Float16", ElemType::Float16},
    {"Float32", ElemType::Float32},
    {"Float64", ElemType::Float64},
    {"Real", ElemType::Real},
    {"Float", ElemType::Real},
    {"Int", ElemType::Int},
    {"Int32", ElemType::Int32},
    {"Int8", ElemType::Int8},
    {"Int16", ElemType::Int16},
    {"UInt8", ElemType::UInt8},
    {"Float8E4M3", ElemType::Float8E4M3},
    {"Float8E5M2", ElemType::Float8E5M2},
    {"Int64", ElemType::Int64},
    {"Bool", ElemType::Bool},
    {"Text", ElemType::Text},
}};

std::optional<ElemType> elem_type(std::string_view name) {
    for (const TypeName& t : kTypeNames)
        if (t.name == name) return t.type;
    return std::nullopt;
}

// Optimal-string-alignment distance (a transposition counts 1), capped at
// `limit + 1` so a megabyte-long name costs no more than a short one.
size_t edit_distance(std::string_view a, std::string_view b, size_t limit) {
    if (a.size() > b.size() + limit || b.size() > a.size() + limit) return limit + 1;
    std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
    for (size_t i = 0; i <= a.size(); ++i)
        d[i][0] = i;
    for (size_t j = 0; j <= b.size(); ++j)
        d[0][j] = j;
    for (size_t i = 1; i <= a.size(); ++i)
        for (size_t j = 1; j <= b.size(); ++j) {
            size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    return d[a.size()][b.size()];
}

std::string unknown_type_message(std::string_view name) {
    std::string msg = "unknown type " + quoted(name);
    size_t best = 3;
    std::string_view suggestion;
    for (const TypeName& t : kTypeNames) {
        size_t dist = edit_distance(name, t.name, 2);
        if (dist < best) best = dist, suggestion = t.name;
    }
    if (edit_distance(name, "Seq", 2) < best) suggestion = "Seq";
    if (!suggestion.empty()) msg += "; did you mean '" + std::string(suggestion) + "'?";
    return msg;
}

// ----------------------------------------------------------- numbers ----

NumberLit number_literal(const Token& t, std::vector<Diagnostic>& errors) {
    NumberLit lit;
    lit.text = std::string(t.text);
    lit.is_int =
        std::all_of(t.text.begin(), t.text.end(), [](char c) { return c >= '0' && c <= '9'; });
    const char* first = t.text.data();
    const char* last = first + t.text.size();
    auto [ptr, ec] = std::from_chars(first, last, lit.value);
    if (ec == std::errc::result_out_of_range) {
        lit.value = std::numeric_limits<double>::infinity();
        if (!lit.is_int) errors.push_back({t.pos, "number " + quoted(t.text) + " is out of range"});
    }
    if (lit.is_int) {
        constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
        for (char c : t.text) {
            int64_t digit = c - '0';
            if (lit.int_value > (kMax - digit) / 10) {
                lit.int_value = kMax;
                lit.overflow = true;
                break;
            }
            lit.int_value = lit.int_value * 10 + digit;
        }
    }
    return lit;
}

// ------------------------------------------------------------ cursor ----

// The tokens of one line; reading past the end keeps returning the End token.
class Cursor {
  public:
    Cursor() = default;
    explicit Cursor(const std::vector<Token>* toks) : toks_(toks) {}
    const Token& peek(size_t k = 0) const { return (*toks_)[std::min(i_ + k, toks_->size() - 1)]; }
    const Token& next() {
        const Token& t = peek();
        if (i_ + 1 < toks_->size()) ++i_;
        return t;
    }
    bool at_end() const { return peek().kind == Tok::End; }
    // Whether `t` (the next token) touches the token before it: `p.x`, not `p. x`.
    bool adjacent_to_previous(const Token& t) const {
        size_t k = static_cast<size_t>(&t - toks_->data());
        if (k == 0) return false;
        const Token& before = (*toks_)[k - 1];
        return before.pos.line == t.pos.line &&
               before.pos.col + static_cast<int>(before.text.size()) == t.pos.col;
    }
    // The line from token `t` (one this cursor returned) to its end.
    std::span<const Token> rest_from(const Token& t) const {
        size_t k = static_cast<size_t>(&t - toks_->data());
        return std::span<const Token>(*toks_).subspan(k);
    }

  private:
    const std::vector<Token>* toks_ = nullptr;
    size_t i_ = 0;
};

struct CodeLine {
    const lex::Line* line;
    std::vector<Token> toks;
    bool lex_error = false; // a stray byte or an unterminated string: already reported
    int indent() const { return line->indent; }
};

// An expression being built, with what the height and position rules need.
struct P {
    ExprPtr e;
    int height = 1;
    SourcePos start; // the first token, counting an opening parenthesis
};

// ------------------------------------------------------------ parser ----

class Parser {
  public:
    Parser(const SourceFile& file, std::string op_name)
        : file_(file), op_name_(std::move(op_name)) {}
    ParseResult run();

  private:
    // errors
    void report(Diagnostic d);
    void report_all(std::vector<Diagnostic>& ds);

    // file structure
    struct BlockSpan {
        size_t header, end;
        std::string_view kind;
    };
    struct ToBlock;
    size_t block_end(size_t header) const;
    std::vector<BlockSpan> block_spans() const;
    std::vector<ToBlock> scan_to_blocks(const std::vector<BlockSpan>& spans) const;
    std::vector<bool> reached_from(const std::vector<ToBlock>& blocks, size_t op) const;
    std::optional<size_t> choose_op(const std::vector<ToBlock>& blocks);
    void parse_note(size_t begin, size_t end);
    void parse_function(size_t header, size_t end);
    void parse_header(Cursor& c, Function& f);
    void parse_param_group(Cursor& c, Function& f, bool outputs);
    Type parse_type(Cursor& c);

    // blocks and statements
    Block parse_block(int indent, int depth);
    void parse_line(Block& out, int indent, int depth);
    void skip_deeper(int indent);
    void recover_block(int indent, int depth);
    Block parse_body(int indent, int depth);
    Stmt parse_statement(int indent, int depth);
    Stmt parse_let(SourcePos pos);
    Stmt parse_set(SourcePos pos);
    Stmt parse_push(SourcePos pos);
    Stmt parse_for(SourcePos pos, int indent, int depth);
    Stmt parse_if(SourcePos pos, int indent, int depth);
    void end_statement();
    void expect_colon(std::string_view what);
    std::string expect_name(std::string_view after);

    // expressions
    P expr();
    P or_expr();
    P and_expr();
    P not_expr();
    P comparison();
    std::optional<BinaryOp> comparison_op();
    P additive();
    P multiplicative();
    P power();
    P unary();
    P cast();
    P operand();
    P primary();
    P item_of(const Token& t);
    P length_of(const Token& t);
    P slice(const Token& t);
    P new_seq(const Token& t);
    P call(const Token& t);
    P binary(BinaryOp op, P lhs, P rhs);
    template <class Node> P node(SourcePos start, int height, Node n);

    // Bounds recursion: one per nested parenthesis / operand / unary.
    struct Nest {
        Parser& p;
        Nest(Parser& parser, SourcePos pos) : p(parser) {
            if (++p.nesting_ > kMaxDepth) {
                --p.nesting_;
                fail(pos, "expression nested too deeply (more than " + std::to_string(kMaxDepth) +
                              " levels)");
            }
        }
        ~Nest() { --p.nesting_; }
        Nest(const Nest&) = delete;
        Nest& operator=(const Nest&) = delete;
    };

    const SourceFile& file_;
    std::string op_name_;
    std::vector<lex::Line> lines_;
    std::vector<Diagnostic> errors_;
    bool stopped_ = false;
    Program program_;
    std::vector<CodeLine> code_; // the current function's lines of code
    size_t at_ = 0;              // the next line of code_ to parse
    Cursor cur_;                 // the line being parsed
    int nesting_ = 0;
};

// ------------------------------------------------------------ errors ----

void Parser::report(Diagnostic d) {
    if (stopped_) return;
    // One error per place: a second one there is a consequence of the first
    // (an unterminated string, then the type it swallowed).
    for (const Diagnostic& e : errors_)
        if (d.pos.valid() && e.pos == d.pos) return;
    if (errors_.size() >= kMaxErrors) {
        errors_.push_back({d.pos, "too many errors; stopping here"});
        stopped_ = true;
        return;
    }
    errors_.push_back(std::move(d));
}

void Parser::report_all(std::vector<Diagnostic>& ds) {
    for (Diagnostic& d : ds)
        report(std::move(d));
    ds.clear();
}

// ------------------------------------------------------ file structure ----

bool is_fence(const lex::Line& l) {
    if (l.indent > 3) return false;
    std::string_view rest = l.text.substr(l.body);
    return rest.substr(0, 3) == "```" || rest.substr(0, 3) == "~~~";
}

// The kind of a `##` header: its first word ("To", "Note", "Main", ...).
std::string_view header_kind(const lex::Line& l) {
    std::string_view s = l.text.substr(2);
    size_t b = s.find_first_not_of(" \t");
    if (b == std::string_view::npos) return {};
    size_t e = b;
    while (e < s.size() && ((s[e] >= 'a' && s[e] <= 'z') || (s[e] >= 'A' && s[e] <= 'Z')))
        ++e;
    return s.substr(b, e - b);
}

// The line after the last line of the block that `header` opens.
size_t Parser::block_end(size_t header) const {
    bool fenced = false;
    size_t i = header + 1;
    for (; i < lines_.size(); ++i) {
        if (is_fence(lines_[i])) fenced = !fenced;
        if (!fenced && lines_[i].header) break;
    }
    return i;
}

// A `## To` block as the first pass sees it: its name and the names it calls,
// read from its tokens alone, so a body in any LOGOS (not only the op subset)
// can be skipped without being parsed.
struct Parser::ToBlock {
    size_t header = 0, end = 0; // line indices: the header, one past the last line
    std::string name;
    SourcePos pos;
    bool native = false;            // `## To native NAME ...` or `... is native "path"`: bodyless
    std::vector<std::string> calls; // every `NAME(` and `Call NAME` in the body
};

// Every `##` block of the file: its header line, one past its last line, and
// its kind (the header's first word). A `##` inside a fence opens nothing.
std::vector<Parser::BlockSpan> Parser::block_spans() const {
    std::vector<BlockSpan> spans;
    bool fenced = false;
    for (size_t i = 0; i < lines_.size();) {
        const lex::Line& l = lines_[i];
        if (is_fence(l)) fenced = !fenced;
        if (fenced || !l.header) {
            ++i;
            continue;
        }
        size_t end = block_end(i);
        spans.push_back({i, end, header_kind(l)});
        i = end;
    }
    return spans;
}

std::vector<Parser::ToBlock> Parser::scan_to_blocks(const std::vector<BlockSpan>& spans) const {
    std::vector<ToBlock> blocks;
    std::vector<Diagnostic> ignored; // the real parse reports them, for blocks it reads
    for (const auto& [i, end, kind] : spans) {
        const lex::Line& l = lines_[i];
        if (kind == "To" || kind == "to") {
            ToBlock b;
            b.header = i;
            b.end = end;
            b.pos = {l.number, 1};
            std::vector<Token> toks = lex::tokenize(l, 2, ignored);
            size_t k = 1; // after `To`
            if (word(toks[k], "native") && toks[k + 1].kind == Tok::Word) b.native = true, ++k;
            if (toks[k].kind == Tok::Word) b.name = std::string(toks[k].text);
            // `## To f (...) -> T is native "path".`: a foreign function with a path.
            for (size_t t = k; t + 1 < toks.size(); ++t)
                b.native = b.native || (word(toks[t], "is") && word(toks[t + 1], "native"));
            for (size_t j = i + 1; j < end && !b.native; ++j) {
                std::vector<Token> body = lex::tokenize(lines_[j], lines_[j].body, ignored);
                for (size_t t = 0; t + 1 < body.size(); ++t) {
                    bool call = body[t].kind == Tok::Word && body[t + 1].punct("(");
                    bool named = keyword(body[t], "call") && body[t + 1].kind == Tok::Word;
                    if (call) b.calls.emplace_back(body[t].text);
                    if (named) b.calls.emplace_back(body[t + 1].text);
                }
            }
            blocks.push_back(std::move(b));
        }
    }
    return blocks;
}

// Which blocks the op reaches through calls (itself included). Every block of
// a reached name is reached, so a duplicate definition is still reported.
std::vector<bool> Parser::reached_from(const std::vector<ToBlock>& blocks, size_t op) const {
    std::map<std::string_view, std::vector<size_t>> by_name;
    for (size_t k = 0; k < blocks.size(); ++k)
        if (!blocks[k].native) by_name[blocks[k].name].push_back(k);
    std::vector<bool> reached(blocks.size(), false);
    std::vector<size_t> work;
    auto reach = [&](std::string_view name) {
        auto it = by_name.find(name);
        if (it == by_name.end()) return;
        for (size_t k : it->second)
            if (!reached[k]) reached[k] = true, work.push_back(k);
        by_name.erase(it);
    };
    reach(blocks[op].name);
    while (!work.empty()) {
        size_t b = work.back();
        work.pop_back();
        for (const std::string& callee : blocks[b].calls)
            reach(callee);
    }
    return reached;
}

// The op: the block `--op` names, or the last block no other block calls
// (logos-ops.md §1, r2). None when the file has no `## To` block or the name
// is not there (reported).
std::optional<size_t> Parser::choose_op(const std::vector<ToBlock>& blocks) {
    std::vector<size_t> functions;
    for (size_t k = 0; k < blocks.size(); ++k)
        if (!blocks[k].native) functions.push_back(k);
    if (!op_name_.empty()) {
        for (size_t k : functions)
            if (blocks[k].name == op_name_) return k;
        std::string msg = "no `## To " + op_name_ + "` block in this file";
        for (const ToBlock& b : blocks)
            if (b.native && b.name == op_name_)
                msg = "`" + op_name_ +
                      "` is a `## To native` declaration (a foreign function), "
                      "not an op";
        std::string names;
        for (size_t k : functions)
            names += (names.empty() ? "" : ", ") + blocks[k].name;
        if (!names.empty()) msg += "; its `## To` blocks are: " + names;
        report({{}, msg});
        return std::nullopt;
    }
    if (functions.empty()) return std::nullopt;
    std::set<std::string_view> called; // by some other block
    for (size_t k : functions)
        for (const std::string& c : blocks[k].calls)
            if (c != blocks[k].name) called.insert(c);
    std::vector<size_t> uncalled;
    for (size_t k : functions)
        if (!called.count(blocks[k].name)) uncalled.push_back(k);
    if (uncalled.empty()) return functions.back(); // every block is called: a cycle, refused later
    for (size_t k = 0; k + 1 < uncalled.size() && k < 8; ++k)
        program_.other_candidates.push_back(blocks[uncalled[k]].name);
    return uncalled.back();
}

ParseResult Parser::run() {
    lines_ = lex::split_lines(file_, errors_);
    std::vector<BlockSpan> spans = block_spans();
    std::vector<ToBlock> blocks = scan_to_blocks(spans);
    std::optional<size_t> op = choose_op(blocks);
    std::vector<bool> reached =
        op ? reached_from(blocks, *op) : std::vector<bool>(blocks.size(), false);
    if (op) program_.op = blocks[*op].name;
    for (size_t k = 0; k < blocks.size() && !stopped_; ++k) {
        if (reached[k])
            parse_function(blocks[k].header, blocks[k].end);
        else
            program_.skipped.push_back({blocks[k].name, blocks[k].pos, blocks[k].native});
    }
    for (const auto& [header, end, kind] : spans)
        if (kind == "Note" || kind == "note") parse_note(header + 1, end);
    // Source order; the "too many errors" note, when there is one, stays last.
    auto sorted_end = stopped_ ? errors_.end() - 1 : errors_.end();
    std::stable_sort(errors_.begin(), sorted_end, [](const Diagnostic& a, const Diagnostic& b) {
        return std::pair(a.pos.line, a.pos.col) < std::pair(b.pos.line, b.pos.col);
    });
    // Messages quote tokens; a file with invalid UTF-8 must not make them invalid too.
    for (Diagnostic& d : errors_)
        d.message = lex::valid_utf8(d.message);
    return ParseResult{std::move(program_), std::move(errors_)};
}

// Paragraphs of the note, each reflowed to one line, joined by blank lines.
void Parser::parse_note(size_t begin, size_t end) {
    std::string& note = program_.note;
    bool fenced = false, in_paragraph = false;
    for (size_t i = begin; i < end; ++i) {
        const lex::Line& l = lines_[i];
        if (is_fence(l)) fenced = !fenced;
        if (fenced || is_fence(l)) continue;
        if (l.blank) {
            in_paragraph = false;
            continue;
        }
        std::string_view text = l.text.substr(l.body);
        while (!text.empty() && (text.back() == ' ' || text.back() == '\t'))
            text.remove_suffix(1);
        if (!note.empty()) note += in_paragraph ? " " : "\n\n";
        note += text;
        in_paragraph = true;
    }
}

void Parser::parse_function(size_t header, size_t end) {
    Function f;
    f.pos = {lines_[header].number, 1};
    std::vector<Diagnostic> lex_errors;
    std::vector<Token> header_toks = lex::tokenize(lines_[header], 2, lex_errors);
    bool header_lex_error = !lex_errors.empty();
    report_all(lex_errors);
    Cursor c(&header_toks);
    try {
        parse_header(c, f);
    } catch (const SyntaxError& e) {
        if (!header_lex_error) report(e.diag);
    }

    // Fence markers are skipped but the lines between them are still code:
    // a function's body is never silently ignored.
    code_.clear();
    for (size_t i = header + 1; i < end; ++i) {
        const lex::Line& l = lines_[i];
        if (is_fence(l) || l.blank) continue;
        lex::check_indent(l, lex_errors);
        size_t before = lex_errors.size();
        CodeLine cl{&l, lex::tokenize(l, l.body, lex_errors), false};
        cl.lex_error = lex_errors.size() > before;
        report_all(lex_errors);
        if (cl.toks.size() > 1) code_.push_back(std::move(cl)); // not only a comment
    }

    at_ = 0;
    bool misindented = false;
    while (at_ < code_.size() && !stopped_) {
        int indent = code_[at_].indent();
        if (indent != 4 && !misindented) {
            report({code_[at_].toks.front().pos, "the function body must be indented by 4 spaces"});
            misindented = true;
        }
        Block b = parse_block(indent, 1);
        for (Stmt& s : b)
            f.body.push_back(std::move(s));
    }
    program_.functions.push_back(std::move(f));
}

// `To NAME (p: T) and (q: T) into (out: T) -> R:`
void Parser::parse_header(Cursor& c, Function& f) {
    c.next(); // `To`
    const Token& name = c.next();
    if (name.kind != Tok::Word) fail(name.pos, "expected the function's name after 'To'");
    f.name = std::string(name.text);
    bool outputs = false, after_group = false;
    for (;;) {
        const Token& t = c.peek();
        if (t.punct("(")) {
            parse_param_group(c, f, outputs);
            after_group = true;
        } else if (word(t, "into")) {
            c.next();
            outputs = true;
            if (!c.peek().punct("(")) fail(c.peek().pos, "expected '(' after 'into'");
        } else if (after_group &&
                   (t.punct(",") || word(t, "and") || word(t, "from") || word(t, "with") ||
                    word(t, "by") || word(t, "to") || word(t, "of") || word(t, "on"))) {
            c.next();
            if (!c.peek().punct("(") && !word(c.peek(), "into"))
                fail(c.peek().pos, "expected '(' after " + quoted(t.text));
        } else {
            break;
        }
    }
    if (c.peek().punct("->")) {
        c.next();
        f.returns = parse_type(c);
    }
    if (!c.peek().punct(":"))
        fail(c.peek().pos, "expected ':' at the end of the header, found " + describe(c.peek()));
    c.next();
    if (!c.at_end()) fail(c.peek().pos, "unexpected " + describe(c.peek()) + " after the header");
}

// `(p: T)` or `(p: T, q: T)`
void Parser::parse_param_group(Cursor& c, Function& f, bool outputs) {
    c.next(); // `(`
    for (;;) {
        const Token& name = c.next();
        if (name.kind != Tok::Word) fail(name.pos, "expected a parameter name");
        if (reserved(name.text)) fail(name.pos, quoted(name.text) + " is a keyword, not a name");
        if (!c.peek().punct(":")) fail(c.peek().pos, "expected ':' after the parameter name");
        c.next();
        Param p;
        p.name = std::string(name.text);
        p.pos = name.pos;
        // r2: `(out: mutable Seq of ...)` is real LOGOS's output parameter.
        bool is_mutable = word(c.peek(), "mutable") || word(c.peek(), "mut");
        if (is_mutable) c.next();
        p.type = parse_type(c);
        p.is_output = outputs || is_mutable;
        f.params.push_back(std::move(p));
        if (!c.peek().punct(",")) break;
        c.next();
    }
    if (!c.peek().punct(")")) fail(c.peek().pos, "expected ')' after the parameter's type");
    c.next();
}

// `Seq of Seq of E`. An unknown element name is reported without abandoning
// the statement, so the rest of the line is still checked.
Type Parser::parse_type(Cursor& c) {
    Type t;
    t.pos = c.peek().pos;
    while (word(c.peek(), "Seq")) {
        c.next();
        if (!word(c.peek(), "of")) fail(c.peek().pos, "expected 'of' after 'Seq'");
        c.next();
        ++t.rank;
    }
    if (t.rank > 4) report({t.pos, "a Seq nests at most 4 deep"});
    const Token& e = c.peek();
    if (e.kind != Tok::Word) fail(e.pos, "expected a type, found " + describe(e));
    c.next();
    if (std::optional<ElemType> et = elem_type(e.text))
        t.elem = *et;
    else
        report({e.pos, unknown_type_message(e.text)});
    return t;
}

// ------------------------------------------------------------ blocks ----

Block Parser::parse_block(int indent, int depth) {
    Block b;
    while (at_ < code_.size() && !stopped_) {
        const CodeLine& cl = code_[at_];
        if (cl.indent() < indent) break;
        if (cl.indent() > indent) {
            report({cl.toks.front().pos, "unexpected indentation"});
            skip_deeper(indent);
            continue;
        }
        parse_line(b, indent, depth);
    }
    return b;
}

void Parser::skip_deeper(int indent) {
    while (at_ < code_.size() && code_[at_].indent() > indent)
        ++at_;
}

// The statements of one line (usually one). A failed statement drops the rest
// of its line; the block under it is still parsed, for its own errors.
void Parser::parse_line(Block& out, int indent, int depth) {
    const size_t line = at_;
    cur_ = Cursor(&code_[at_].toks);
    ++at_;
    try {
        // Several statements may share a line, but a statement with a block
        // (`Repeat ...:`) ends it: the cursor then belongs to the block's lines.
        do {
            out.push_back(parse_statement(indent, depth));
        } while (at_ == line + 1 && !cur_.at_end());
    } catch (const SyntaxError& e) {
        // On a line the lexer already faulted, the syntax error is its echo.
        if (!code_[line].lex_error) report(e.diag);
        recover_block(indent, depth);
        // A broken `If` header still owns its `elif` / `Otherwise` lines:
        // they are not reported again as orphans, only their blocks are read.
        if (keyword(code_[line].toks.front(), "if"))
            while (at_ < code_.size() && code_[at_].indent() == indent &&
                   (keyword(code_[at_].toks.front(), "elif") ||
                    keyword(code_[at_].toks.front(), "otherwise") ||
                    keyword(code_[at_].toks.front(), "else"))) {
                ++at_;
                recover_block(indent, depth);
            }
    }
}

// After a line that failed: the block under it is still parsed, for its own errors.
void Parser::recover_block(int indent, int depth) {
    if (at_ >= code_.size() || code_[at_].indent() <= indent) return;
    if (depth >= kMaxDepth)
        skip_deeper(indent);
    else
        (void)parse_block(code_[at_].indent(), depth + 1);
}

// The indented block after a line ending in ':'.
Block Parser::parse_body(int indent, int depth) {
    SourcePos colon_end = cur_.peek().pos;
    if (at_ >= code_.size() || code_[at_].indent() <= indent) {
        report({colon_end, "expected an indented block after ':'"});
        return {};
    }
    const CodeLine& first = code_[at_];
    if (depth >= kMaxDepth) {
        report({first.toks.front().pos,
                "blocks nested too deeply (more than " + std::to_string(kMaxDepth) + " levels)"});
        skip_deeper(indent);
        return {};
    }
    if (first.indent() != indent + 4)
        report({first.toks.front().pos, "a block must be indented 4 spaces more than its header"});
    return parse_block(first.indent(), depth + 1);
}

// -------------------------------------------------------- statements ----

Stmt Parser::parse_statement(int indent, int depth) {
    const Token& t = cur_.next();
    SourcePos pos = t.pos;
    if (keyword(t, "let")) return parse_let(pos);
    if (keyword(t, "set")) return parse_set(pos);
    if (keyword(t, "push")) return parse_push(pos);
    if (keyword(t, "repeat")) {
        if (!keyword(cur_.peek(), "for")) fail(cur_.peek().pos, "expected 'for' after 'Repeat'");
        cur_.next();
        return parse_for(pos, indent, depth);
    }
    if (keyword(t, "for")) return parse_for(pos, indent, depth);
    if (keyword(t, "while")) {
        P cond = expr();
        expect_colon("'While' condition");
        return Stmt{pos, While{std::move(cond.e), parse_body(indent, depth)}};
    }
    if (keyword(t, "if")) return parse_if(pos, indent, depth);
    if (keyword(t, "return")) {
        ExprPtr value;
        if (!cur_.peek().punct(".")) value = expr().e;
        end_statement();
        return Stmt{pos, Return{std::move(value)}};
    }
    if (keyword(t, "check") || keyword(t, "assert")) {
        if (!word(cur_.peek(), "that"))
            fail(cur_.peek().pos, "expected 'that' after " + quoted(t.text));
        cur_.next();
        P cond = expr();
        end_statement();
        return Stmt{pos, Check{std::move(cond.e), keyword(t, "assert")}};
    }
    if (keyword(t, "elif") || keyword(t, "otherwise") || keyword(t, "else"))
        fail(pos, quoted(t.text) + " without a matching 'If'");
    if (t.kind == Tok::End) fail(pos, "expected a statement");
    if (auto outside = outside_subset_statement(cur_.rest_from(t))) fail(pos, *outside);
    fail(pos, "expected a statement (Let, Set, Push, Repeat, While, If, Return, Check), found " +
                  describe(t));
}

void Parser::end_statement() {
    if (!cur_.peek().punct(".")) fail(cur_.peek().pos, "expected '.' at the end of the statement");
    cur_.next();
}

void Parser::expect_colon(std::string_view what) {
    if (!cur_.peek().punct(":"))
        fail(cur_.peek().pos, "expected ':' after the " + std::string(what));
    cur_.next();
    if (!cur_.at_end())
        fail(cur_.peek().pos, "expected the end of the line after ':' (the block goes below)");
}

std::string Parser::expect_name(std::string_view after) {
    const Token& t = cur_.next();
    if (t.kind != Tok::Word) fail(t.pos, "expected a name after '" + std::string(after) + "'");
    if (reserved(t.text)) fail(t.pos, quoted(t.text) + " is a keyword, not a name");
    return std::string(t.text);
}

// `Let [mutable|mut] x [: T] be e.`
Stmt Parser::parse_let(SourcePos pos) {
    Let let;
    if (word(cur_.peek(), "mutable") || word(cur_.peek(), "mut")) {
        cur_.next();
        let.is_mutable = true;
    }
    let.name = expect_name("Let");
    if (cur_.peek().punct(":")) {
        cur_.next();
        let.type = parse_type(cur_);
    }
    if (!word(cur_.peek(), "be"))
        fail(cur_.peek().pos, "expected 'be' after 'Let " + let.name + "'");
    cur_.next();
    let.value = expr().e;
    end_statement();
    return Stmt{pos, std::move(let)};
}

// `Set x to e.` / `Set item i of xs to e.` / `Set xs[i] to e.`
Stmt Parser::parse_set(SourcePos pos) {
    P target = operand();
    if (!word(cur_.peek(), "to")) fail(cur_.peek().pos, "expected 'to' after 'Set ...'");
    cur_.next();
    ExprPtr value = expr().e;
    end_statement();
    if (auto* name = std::get_if<NameRef>(&target.e->node))
        return Stmt{pos, SetVar{name->name, std::move(value)}};
    if (auto* item = std::get_if<ItemOf>(&target.e->node))
        return Stmt{pos, SetItem{std::move(item->seq), std::move(item->index), std::move(value)}};
    fail(target.start, "can only set a name or an item of a sequence");
}

// `Push e to xs.`
Stmt Parser::parse_push(SourcePos pos) {
    ExprPtr value = expr().e;
    if (!word(cur_.peek(), "to")) fail(cur_.peek().pos, "expected 'to' after 'Push ...'");
    cur_.next();
    ExprPtr seq = operand().e;
    end_statement();
    return Stmt{pos, Push{std::move(value), std::move(seq)}};
}

// `for x in xs:` / `for i from a to b:` (after `Repeat` when present)
Stmt Parser::parse_for(SourcePos pos, int indent, int depth) {
    SourcePos var_pos = cur_.peek().pos;
    std::string var = expect_name("for");
    if (word(cur_.peek(), "in")) {
        cur_.next();
        ExprPtr seq = expr().e;
        expect_colon("loop header");
        return Stmt{pos, ForEach{var, var_pos, std::move(seq), parse_body(indent, depth)}};
    }
    if (!word(cur_.peek(), "from"))
        fail(cur_.peek().pos, "expected 'in' or 'from' after 'for " + var + "'");
    cur_.next();
    ExprPtr from = expr().e;
    if (!word(cur_.peek(), "to")) fail(cur_.peek().pos, "expected 'to' after 'from ...'");
    cur_.next();
    ExprPtr to = expr().e;
    expect_colon("loop header");
    return Stmt{pos,
                ForRange{var, var_pos, std::move(from), std::move(to), parse_body(indent, depth)}};
}

// `If c:` then, on lines of the same indentation, `elif c:` / `Otherwise if c:`
// / `Else if c:` and a final `Otherwise:` / `Else:`.
Stmt Parser::parse_if(SourcePos pos, int indent, int depth) {
    If stmt;
    SourcePos branch_pos = pos;
    for (;;) {
        P cond = expr();
        expect_colon("'If' condition");
        stmt.branches.push_back(IfBranch{branch_pos, std::move(cond.e), parse_body(indent, depth)});
        if (at_ >= code_.size() || code_[at_].indent() != indent) break;
        const Token& t = code_[at_].toks.front();
        bool elif = keyword(t, "elif");
        bool other = keyword(t, "otherwise") || keyword(t, "else");
        if (!elif && !other) break;
        cur_ = Cursor(&code_[at_].toks);
        ++at_;
        branch_pos = cur_.next().pos;
        if (other && keyword(cur_.peek(), "if")) {
            cur_.next();
            continue;
        }
        if (elif) continue;
        expect_colon("'Otherwise'");
        stmt.otherwise = parse_body(indent, depth);
        break;
    }
    return Stmt{pos, std::move(stmt)};
}

// ------------------------------------------------------- expressions ----

template <class Node> P Parser::node(SourcePos start, int height, Node n) {
    if (height > kMaxHeight)
        fail(start,
             "expression too deeply nested (more than " + std::to_string(kMaxHeight) + " levels)");
    P p;
    p.e = std::make_unique<Expr>(Expr{start, std::move(n)});
    p.height = height;
    p.start = start;
    return p;
}

P Parser::binary(BinaryOp op, P lhs, P rhs) {
    int h = std::max(lhs.height, rhs.height) + 1;
    SourcePos start = lhs.start;
    return node(start, h, Binary{op, std::move(lhs.e), std::move(rhs.e)});
}

P Parser::expr() {
    Nest guard(*this, cur_.peek().pos);
    return or_expr();
}

P Parser::or_expr() {
    P lhs = and_expr();
    while (word(cur_.peek(), "or")) {
        cur_.next();
        lhs = binary(BinaryOp::Or, std::move(lhs), and_expr());
    }
    return lhs;
}

P Parser::and_expr() {
    P lhs = not_expr();
    while (word(cur_.peek(), "and")) {
        cur_.next();
        lhs = binary(BinaryOp::And, std::move(lhs), not_expr());
    }
    return lhs;
}

P Parser::not_expr() {
    if (!word(cur_.peek(), "not")) return comparison();
    SourcePos pos = cur_.next().pos;
    Nest guard(*this, pos);
    P operand_ = not_expr();
    return node(pos, operand_.height + 1, Unary{UnaryOp::Not, std::move(operand_.e)});
}

P Parser::comparison() {
    P lhs = additive();
    for (;;) {
        // r2: `x is between a and b` is `a <= x and x <= b`.
        if (word(cur_.peek(), "is") && word(cur_.peek(1), "between")) {
            cur_.next();
            cur_.next();
            P low = additive();
            if (!word(cur_.peek(), "and"))
                fail(cur_.peek().pos,
                     "expected 'and' in 'is between ... and ...', found " + describe(cur_.peek()));
            cur_.next();
            P high = additive();
            P x_again{clone(*lhs.e), lhs.height, lhs.start};
            P above = binary(BinaryOp::Le, std::move(low), std::move(lhs));
            P below = binary(BinaryOp::Le, std::move(x_again), std::move(high));
            lhs = binary(BinaryOp::And, std::move(above), std::move(below));
            continue;
        }
        std::optional<BinaryOp> op = comparison_op();
        if (!op) return lhs;
        lhs = binary(*op, std::move(lhs), additive());
    }
}

// Consumes a comparison operator, symbolic or English, if one comes next.
std::optional<BinaryOp> Parser::comparison_op() {
    const Token& t = cur_.peek();
    if (t.kind == Tok::Punct) {
        static constexpr std::pair<std::string_view, BinaryOp> kOps[] = {
            {"==", BinaryOp::Eq}, {"!=", BinaryOp::Ne}, {"<", BinaryOp::Lt},
            {">", BinaryOp::Gt},  {"<=", BinaryOp::Le}, {">=", BinaryOp::Ge}};
        for (auto [sym, op] : kOps) {
            if (t.text != sym) continue;
            cur_.next();
            return op;
        }
        return std::nullopt;
    }
    if (word(t, "equals")) {
        cur_.next();
        return BinaryOp::Eq;
    }
    if (word(t, "does") && word(cur_.peek(1), "not") && word(cur_.peek(2), "equal")) {
        for (int i = 0; i < 3; ++i)
            cur_.next();
        return BinaryOp::Ne;
    }
    if (!word(t, "is")) return std::nullopt;
    cur_.next();
    // Consumes the words `ws` if they come next, all of them or none.
    auto take = [&](std::initializer_list<std::string_view> ws) {
        size_t k = 0;
        for (std::string_view w : ws)
            if (!word(cur_.peek(k++), w)) return false;
        for (size_t i = 0; i < ws.size(); ++i)
            cur_.next();
        return true;
    };
    if (take({"equal", "to"})) return BinaryOp::Eq;
    if (take({"not", "equal", "to"})) return BinaryOp::Ne;
    if (take({"not"})) return BinaryOp::Ne;
    if (take({"less", "than", "or", "equal", "to"})) return BinaryOp::Le;
    if (take({"greater", "than", "or", "equal", "to"})) return BinaryOp::Ge;
    if (take({"less", "than"}) || take({"below"})) return BinaryOp::Lt;
    if (take({"greater", "than"}) || take({"more", "than"}) || take({"above"})) return BinaryOp::Gt;
    if (take({"at", "most"})) return BinaryOp::Le;
    if (take({"at", "least"})) return BinaryOp::Ge;
    return BinaryOp::Eq; // plain `x is y`
}

P Parser::additive() {
    P lhs = multiplicative();
    for (;;) {
        const Token& t = cur_.peek();
        std::optional<BinaryOp> op;
        if (t.punct("+") || word(t, "plus")) op = BinaryOp::Add;
        if (t.punct("-") || word(t, "minus")) op = BinaryOp::Sub;
        if (word(t, "combined") && word(cur_.peek(1), "with")) {
            cur_.next();
            op = BinaryOp::Concat;
        }
        if (!op) return lhs;
        cur_.next();
        lhs = binary(*op, std::move(lhs), multiplicative());
    }
}

P Parser::multiplicative() {
    P lhs = power();
    for (;;) {
        const Token& t = cur_.peek();
        std::optional<BinaryOp> op;
        if (t.punct("*") || word(t, "times")) op = BinaryOp::Mul;
        if (t.punct("/")) op = BinaryOp::Div;
        if (t.punct("%") || word(t, "modulo")) op = BinaryOp::Mod;
        if (word(t, "divided")) {
            if (!word(cur_.peek(1), "by")) fail(cur_.peek(1).pos, "expected 'by' after 'divided'");
            cur_.next();
            op = BinaryOp::Div;
        }
        if (!op) return lhs;
        cur_.next();
        lhs = binary(*op, std::move(lhs), power());
    }
}

// `a ** b` and `a to the power of b` (r2): pow(a, b), right-associative, its
// operands bound tighter only by unary minus (logos-ops.md §5).
P Parser::power() {
    P base = unary();
    bool star = cur_.peek().punct("**");
    bool words = word(cur_.peek(), "to") && word(cur_.peek(1), "the") &&
                 word(cur_.peek(2), "power") && word(cur_.peek(3), "of");
    if (!star && !words) return base;
    for (int k = 0; k < (star ? 1 : 4); ++k)
        cur_.next();
    Nest guard(*this, base.start);
    P exponent = power();
    SourcePos start = base.start;
    int h = std::max(base.height, exponent.height) + 1;
    Call c{"pow", {}};
    c.args.push_back(std::move(base.e));
    c.args.push_back(std::move(exponent.e));
    return node(start, h, std::move(c));
}

P Parser::unary() {
    if (!cur_.peek().punct("-")) return cast();
    SourcePos pos = cur_.next().pos;
    Nest guard(*this, pos);
    P operand_ = unary();
    return node(pos, operand_.height + 1, Unary{UnaryOp::Neg, std::move(operand_.e)});
}

// `operand as T`, possibly repeated.
P Parser::cast() {
    P p = operand();
    while (word(cur_.peek(), "as")) {
        cur_.next();
        Type t = parse_type(cur_);
        if (t.rank > 0) fail(t.pos, "a cast takes an element type, not a sequence");
        SourcePos start = p.start;
        p = node(start, p.height + 1, Cast{std::move(p.e), t.elem});
    }
    return p;
}

// A primary followed by any number of `[i]` indexings.
P Parser::operand() {
    P p = primary();
    // `row.f()`: LOGOS's method-call syntax (UFCS), which would otherwise read
    // as the end of the statement followed by a stray call.
    // `p.x` (no spaces): a struct field.
    const Token &dot = cur_.peek(), &field = cur_.peek(1);
    if (dot.punct(".") && field.kind == Tok::Word && !cur_.peek(2).punct("(") &&
        field.pos.col == dot.pos.col + 1 && cur_.adjacent_to_previous(dot) &&
        !statement_keyword(field))
        fail(dot.pos, "field access (`" + interp::describe(*p.e) + "." + std::string(field.text) +
                          "`) is LOGOS, but not in solgen's op subset: an op's values are numbers "
                          "and tensors, not structs");
    if (cur_.peek().punct(".") && cur_.peek(1).kind == Tok::Word && cur_.peek(2).punct("(")) {
        std::string f(cur_.peek(1).text), self = interp::describe(*p.e);
        bool more = !cur_.peek(3).punct(")");
        fail(cur_.peek().pos, "UFCS calls (`" + self + "." + f + (more ? "(...)" : "()") +
                                  "`) are LOGOS, but not in "
                                  "solgen's op subset: write " +
                                  f + "(" + self + (more ? ", ...)" : ")"));
    }
    while (cur_.peek().punct("[")) {
        cur_.next();
        P index = expr();
        if (!cur_.peek().punct("]")) fail(cur_.peek().pos, "expected ']' after the index");
        cur_.next();
        SourcePos start = p.start;
        int h = std::max(p.height, index.height) + 1;
        p = node(start, h, ItemOf{std::move(index.e), std::move(p.e)});
    }
    return p;
}

P Parser::primary() {
    const Token& t = cur_.peek();
    if (t.kind == Tok::Number) {
        cur_.next();
        std::vector<Diagnostic> range_errors;
        NumberLit lit = number_literal(t, range_errors);
        if (!range_errors.empty()) fail(range_errors.front().pos, range_errors.front().message);
        return node(t.pos, 1, std::move(lit));
    }
    if (t.kind == Tok::String) {
        cur_.next();
        return node(t.pos, 1, StringLit{t.value});
    }
    if (word(t, "true") || word(t, "True") || word(t, "false") || word(t, "False")) {
        cur_.next();
        return node(t.pos, 1, BoolLit{t.text[0] == 't' || t.text[0] == 'T'});
    }
    if (t.punct("(")) {
        cur_.next();
        P inner = expr();
        if (!cur_.peek().punct(")"))
            fail(cur_.peek().pos, "expected ')', found " + describe(cur_.peek()));
        cur_.next();
        inner.start = t.pos;
        return inner;
    }
    if (word(t, "item")) return item_of(cur_.next());
    if (word(t, "items") && !cur_.peek(1).punct(".") && !cur_.peek(1).punct(")") &&
        cur_.peek(1).kind != Tok::End)
        return slice(cur_.next());
    if (word(t, "the") && word(cur_.peek(1), "length") &&
        (word(cur_.peek(2), "of") || cur_.peek(2).punct("("))) {
        cur_.next(); // r2: `the length of xs`
        return length_of(cur_.next());
    }
    if (word(t, "length") && (word(cur_.peek(1), "of") || cur_.peek(1).punct("(")))
        return length_of(cur_.next());
    if (word(t, "copy") && word(cur_.peek(1), "of")) {
        cur_.next();
        cur_.next();
        Nest guard(*this, t.pos);
        P operand_ = operand();
        return node(t.pos, operand_.height + 1, CopyOf{std::move(operand_.e)});
    }
    if ((word(t, "a") && word(cur_.peek(1), "new")) || word(t, "new")) return new_seq(cur_.next());
    if (t.kind == Tok::Word && cur_.peek(1).punct("(")) return call(cur_.next());
    if (t.kind == Tok::Word && !reserved(t.text)) {
        cur_.next();
        return node(t.pos, 1, NameRef{std::string(t.text)});
    }
    if (t.punct("["))
        fail(t.pos, "list literals (`[1, 2, 3]`) are LOGOS, but not in solgen's op subset: an op "
                    "reads its tensors from its parameters");
    fail(t.pos, "expected an expression, found " + describe(t));
}

// `item I of S` (after `item`): both operands are primaries.
P Parser::item_of(const Token& t) {
    Nest guard(*this, t.pos);
    P index = operand();
    if (!word(cur_.peek(), "of")) fail(cur_.peek().pos, "expected 'of' after 'item ...'");
    cur_.next();
    P seq = operand();
    int h = std::max(index.height, seq.height) + 1;
    return node(t.pos, h, ItemOf{std::move(index.e), std::move(seq.e)});
}

// `length of S` or `length(S)` (after `length`).
P Parser::length_of(const Token& t) {
    Nest guard(*this, t.pos);
    P seq;
    if (cur_.next().punct("(")) {
        seq = expr();
        if (!cur_.peek().punct(")")) fail(cur_.peek().pos, "'length' takes one argument");
        cur_.next();
    } else {
        seq = operand();
    }
    return node(t.pos, seq.height + 1, LengthOf{std::move(seq.e)});
}

// `items A through B of S` (after `items`): the bounds are sums (`through` and
// `of` end them), the sequence a primary as for `item`.
P Parser::slice(const Token& t) {
    Nest guard(*this, t.pos);
    P from = additive(); // `items half + 1 through 2 * half of row` reads as written
    if (!word(cur_.peek(), "through"))
        fail(cur_.peek().pos, "expected 'through' after 'items ...'");
    cur_.next();
    P to = additive();
    if (!word(cur_.peek(), "of"))
        fail(cur_.peek().pos, "expected 'of' after 'items ... through ...'");
    cur_.next();
    P seq = operand();
    int h = std::max({from.height, to.height, seq.height}) + 1;
    return node(t.pos, h, Slice{std::move(from.e), std::move(to.e), std::move(seq.e)});
}

// `a new Seq of E [with capacity n]` (after `a`, or after a bare `new`).
P Parser::new_seq(const Token& t) {
    Nest guard(*this, t.pos);
    if (word(t, "a")) cur_.next(); // `new`
    if (!word(cur_.peek(), "Seq")) fail(cur_.peek().pos, "expected 'Seq of ...' after 'new'");
    NewSeq seq;
    seq.type = parse_type(cur_);
    int h = 1;
    if (word(cur_.peek(), "with") && word(cur_.peek(1), "capacity")) {
        cur_.next();
        cur_.next();
        P cap = operand();
        h = cap.height + 1;
        seq.capacity = std::move(cap.e);
    }
    return node(t.pos, h, std::move(seq));
}

// `f(a, b)` (after `f`).
P Parser::call(const Token& t) {
    cur_.next(); // `(`
    Call c;
    c.callee = std::string(t.text);
    int h = 1;
    if (!cur_.peek().punct(")")) {
        for (;;) {
            P arg = expr();
            h = std::max(h, arg.height + 1);
            c.args.push_back(std::move(arg.e));
            if (!cur_.peek().punct(",")) break;
            cur_.next();
        }
    }
    if (!cur_.peek().punct(")"))
        fail(cur_.peek().pos, "expected ',' or ')' in the call of " + quoted(t.text));
    cur_.next();
    return node(t.pos, h, std::move(c));
}

} // namespace

ParseResult parse(const SourceFile& file, const std::string& op_name) {
    try {
        return Parser(file, op_name).run();
    } catch (const std::bad_alloc&) {
        ParseResult r;
        r.errors.push_back({{1, 1}, "out of memory while parsing"});
        return r;
    }
}

} // namespace solbench
