#include "frontend/parser.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace solbench;
using namespace solbench::ast;

namespace {

std::string corpus(const std::string& rel) {
    std::ifstream in(std::string(SOLBENCH_SOURCE_DIR "/tests/corpus/") + rel, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

ParseResult parse_text(const std::string& text) {
    return parse(SourceFile("t.lg", text));
}

std::string errors_of(const ParseResult& r) {
    std::string out;
    for (const Diagnostic& d : r.errors)
        out += render_short("t.lg", d) + "\n";
    return out;
}

// A compact, fully parenthesized rendering of an expression.
std::string sexpr(const Expr& e);
std::string sexpr(const ExprPtr& e) {
    return e ? sexpr(*e) : "null";
}
std::string sexpr(const Expr& e) {
    struct V {
        std::string operator()(const NumberLit& n) const { return n.text; }
        std::string operator()(const BoolLit& b) const { return b.value ? "true" : "false"; }
        std::string operator()(const StringLit& s) const { return "\"" + s.value + "\""; }
        std::string operator()(const NameRef& n) const { return n.name; }
        std::string operator()(const ItemOf& i) const {
            return "(item " + sexpr(i.index) + " " + sexpr(i.seq) + ")";
        }
        std::string operator()(const LengthOf& l) const { return "(length " + sexpr(l.seq) + ")"; }
        std::string operator()(const Slice& l) const {
            return "(items " + sexpr(l.from) + " " + sexpr(l.to) + " " + sexpr(l.seq) + ")";
        }
        std::string operator()(const NewSeq& n) const {
            return "(new " + to_string(n.type) + (n.capacity ? " " + sexpr(n.capacity) : "") + ")";
        }
        std::string operator()(const Call& c) const {
            std::string out = "(" + c.callee;
            for (const ExprPtr& a : c.args)
                out += " " + sexpr(a);
            return out + ")";
        }
        std::string operator()(const Cast& c) const {
            return "(as " + sexpr(c.operand) + " " + to_string(c.to) + ")";
        }
        std::string operator()(const CopyOf& c) const { return "(copy " + sexpr(c.operand) + ")"; }
        std::string operator()(const Unary& u) const {
            return std::string(u.op == UnaryOp::Neg ? "(neg " : "(not ") + sexpr(u.operand) + ")";
        }
        std::string operator()(const Binary& b) const {
            return "(" + std::string(to_string(b.op)) + " " + sexpr(b.lhs) + " " + sexpr(b.rhs) +
                   ")";
        }
    };
    return std::visit(V{}, e.node);
}

// Parses `Return <expr>.` inside a function and renders the expression.
std::string expr_of(const std::string& expr) {
    ParseResult r = parse_text("## To f (x: Int) -> Int:\n    Return " + expr + ".\n");
    if (!r.ok()) return "ERROR: " + errors_of(r);
    const Stmt& s = r.program.functions.at(0).body.at(0);
    return sexpr(std::get<Return>(s.node).value);
}

const Function& only_function(const ParseResult& r) {
    EXPECT_EQ(r.program.functions.size(), 1u);
    return r.program.functions.at(0);
}

struct Expected {
    const char* file;
    const char* op;
    size_t inputs;
    size_t outputs; // `into` parameters
    bool returns;
    size_t functions;
};

} // namespace

// ------------------------------------------------------------ corpus ----

TEST(ParserCorpus, EveryAcceptedFileParses) {
    const Expected cases[] = {
        {"accept/fused_add_rmsnorm.lg", "fused_add_rmsnorm", 5, 1, false, 1},
        {"accept/geglu.lg", "geglu", 2, 0, true, 2},
        {"accept/l2_norm.lg", "l2_norm", 1, 0, true, 1},
        {"accept/layernorm.lg", "layernorm", 4, 0, true, 1},
        {"accept/log_softmax.lg", "log_softmax", 1, 0, true, 1},
        {"accept/post_norm_residual.lg", "post_norm_residual", 4, 0, true, 1},
        {"accept/rmsnorm.lg", "rmsnorm", 2, 0, true, 1},
        {"accept/rmsnorm_while.lg", "rmsnorm_flat", 4, 1, false, 1},
        {"accept/row_max.lg", "row_max", 1, 0, true, 1},
        {"accept/row_sum.lg", "row_sum", 1, 0, true, 1},
        {"accept/softcap_softmax.lg", "softcap_softmax", 1, 0, true, 2},
        {"accept/softmax.lg", "softmax", 1, 0, true, 1},
        {"accept/swiglu_packed.lg", "swiglu", 1, 0, true, 2},
    };
    for (const Expected& c : cases) {
        SCOPED_TRACE(c.file);
        std::string text = corpus(c.file);
        ASSERT_FALSE(text.empty());
        ParseResult r = parse(SourceFile(c.file, text));
        EXPECT_TRUE(r.ok()) << errors_of(r);
        EXPECT_EQ(r.program.functions.size(), c.functions);
        const Function* op = r.program.find();
        ASSERT_NE(op, nullptr);
        EXPECT_EQ(op->name, c.op);
        size_t outs = 0;
        for (const Param& p : op->params)
            outs += p.is_output;
        EXPECT_EQ(op->params.size() - outs, c.inputs);
        EXPECT_EQ(outs, c.outputs);
        EXPECT_EQ(op->returns.has_value(), c.returns);
        EXPECT_FALSE(op->body.empty());
    }
}

TEST(ParserCorpus, RefusedFilesOtherThanBadSyntaxParse) {
    for (const char* f : {"refuse/cumsum.lg", "refuse/data_loop.lg", "refuse/gather.lg",
                          "refuse/global_max_scale.lg", "refuse/matmul.lg", "refuse/recursion.lg",
                          "refuse/text_op.lg"}) {
        SCOPED_TRACE(f);
        ParseResult r = parse(SourceFile(f, corpus(f)));
        EXPECT_TRUE(r.ok()) << errors_of(r);
    }
}

TEST(ParserCorpus, BadSyntaxReportsUnknownTypeAndMissingPeriod) {
    std::string text = corpus("refuse/bad_syntax.lg");
    SourceFile file("bad_syntax.lg", text);
    ParseResult r = parse(file);
    ASSERT_EQ(r.errors.size(), 2u) << errors_of(r);
    int type_col = static_cast<int>(file.line(3).find("Flaot32")) + 1;
    EXPECT_EQ(r.errors[0].pos, (SourcePos{3, type_col}));
    EXPECT_EQ(r.errors[0].message, "unknown type 'Flaot32'; did you mean 'Float32'?");
    int end_col = static_cast<int>(file.line(4).size()) + 1;
    EXPECT_EQ(r.errors[1].pos, (SourcePos{4, end_col}));
    EXPECT_EQ(r.errors[1].message, "expected '.' at the end of the statement");
    // The statements after the error are still there.
    ASSERT_EQ(r.program.functions.size(), 1u);
    EXPECT_EQ(r.program.functions[0].body.size(), 2u);
}

TEST(ParserCorpus, RmsnormStructure) {
    ParseResult r = parse(SourceFile("rmsnorm.lg", corpus("accept/rmsnorm.lg")));
    ASSERT_TRUE(r.ok()) << errors_of(r);
    const Function& f = *r.program.find("rmsnorm");
    EXPECT_EQ(f.pos, (SourcePos{6, 1}));
    ASSERT_EQ(f.params.size(), 2u);
    EXPECT_EQ(f.params[0].name, "hidden_states");
    EXPECT_EQ(f.params[0].type, (Type{ElemType::BFloat16, 2, {}}));
    EXPECT_EQ(f.params[0].pos, (SourcePos{6, 16}));
    EXPECT_EQ(to_string(*f.returns), "Seq of Seq of BFloat16");
    ASSERT_EQ(f.body.size(), 4u);
    const auto& loop = std::get<ForEach>(f.body[2].node);
    EXPECT_EQ(loop.var, "row");
    EXPECT_EQ(f.body[2].pos, (SourcePos{9, 5}));
    EXPECT_EQ(loop.var_pos, (SourcePos{9, 16}));
    ASSERT_EQ(loop.body.size(), 6u);
    const auto& inner = std::get<ForRange>(loop.body[4].node);
    EXPECT_EQ(sexpr(inner.from), "1");
    EXPECT_EQ(sexpr(inner.to), "(length row)");
    const auto& push = std::get<Push>(inner.body.at(0).node);
    EXPECT_EQ(sexpr(push.value), "(* (* (item i row) inv_rms) (item i weight))");
    EXPECT_EQ(sexpr(push.seq), "normed");
    EXPECT_TRUE(r.program.note.empty());
}

// ------------------------------------------------------- expressions ----

TEST(ParserExpr, PrimaryOperandBinding) {
    EXPECT_EQ(expr_of("item i of row * w"), "(* (item i row) w)");
    EXPECT_EQ(expr_of("item s of item b of x"), "(item s (item b x))");
    EXPECT_EQ(expr_of("length of row / 2"), "(/ (length row) 2)");
    EXPECT_EQ(expr_of("a * b as BFloat16"), "(* a (as b BFloat16))");
    EXPECT_EQ(expr_of("(a * b) as BFloat16"), "(as (* a b) BFloat16)");
    EXPECT_EQ(expr_of("item (i + 1) of xs"), "(item (+ i 1) xs)");
    EXPECT_EQ(expr_of("length of item r of gate"), "(length (item r gate))");
    EXPECT_EQ(expr_of("copy of item (id + 1) of table"), "(copy (item (+ id 1) table))");
    EXPECT_EQ(expr_of("item i of xs as Float32"), "(as (item i xs) Float32)");
    EXPECT_EQ(expr_of("-x as Float16"), "(neg (as x Float16))");
    EXPECT_EQ(expr_of("length(xs) + 1"), "(+ (length xs) 1)");
    EXPECT_EQ(expr_of("xs[i] * ys[j][k]"), "(* (item i xs) (item k (item j ys)))");
}

TEST(ParserExpr, ArithmeticPrecedence) {
    EXPECT_EQ(expr_of("a + b * c"), "(+ a (* b c))");
    EXPECT_EQ(expr_of("a - b - c"), "(- (- a b) c)");
    EXPECT_EQ(expr_of("a / b % c"), "(% (/ a b) c)");
    EXPECT_EQ(expr_of("-a * b"), "(* (neg a) b)");
    EXPECT_EQ(expr_of("a * -b"), "(* a (neg b))");
    EXPECT_EQ(expr_of("1.0 / sqrt(x / n + 1e-5)"), "(/ 1.0 (sqrt (+ (/ x n) 1e-5)))");
}

TEST(ParserExpr, LogicalPrecedence) {
    EXPECT_EQ(expr_of("a < b and c >= d or e"), "(or (and (< a b) (>= c d)) e)");
    EXPECT_EQ(expr_of("not a == b"), "(not (== a b))");
    EXPECT_EQ(expr_of("not a and b"), "(and (not a) b)");
    EXPECT_EQ(expr_of("a or b and c"), "(or a (and b c))");
    EXPECT_EQ(expr_of("a + 1 <= b * 2"), "(<= (+ a 1) (* b 2))");
}

TEST(ParserExpr, EnglishOperators) {
    EXPECT_EQ(expr_of("a plus b times c"), "(+ a (* b c))");
    EXPECT_EQ(expr_of("a minus b divided by c"), "(- a (/ b c))");
    EXPECT_EQ(expr_of("a modulo b"), "(% a b)");
    EXPECT_EQ(expr_of("a equals b"), "(== a b)");
    EXPECT_EQ(expr_of("a is equal to b"), "(== a b)");
    EXPECT_EQ(expr_of("a is not equal to b"), "(!= a b)");
    EXPECT_EQ(expr_of("a is not b"), "(!= a b)");
    EXPECT_EQ(expr_of("a does not equal b"), "(!= a b)");
    EXPECT_EQ(expr_of("a is less than b"), "(< a b)");
    EXPECT_EQ(expr_of("a is greater than b"), "(> a b)");
    EXPECT_EQ(expr_of("a is at most b"), "(<= a b)");
    EXPECT_EQ(expr_of("a is at least b"), "(>= a b)");
    EXPECT_EQ(expr_of("a is less than or equal to b"), "(<= a b)");
    EXPECT_EQ(expr_of("a is greater than or equal to b"), "(>= a b)");
    EXPECT_EQ(expr_of("a is less than b or c"), "(or (< a b) c)");
    EXPECT_EQ(expr_of("a is b"), "(== a b)");
    EXPECT_EQ(expr_of("\"hi \" combined with name"), "(combined with \"hi \" name)");
    EXPECT_EQ(expr_of("length of x equals n * m"), "(== (length x) (* n m))");
}

TEST(ParserExpr, Literals) {
    ParseResult r = parse_text("## To f (x: Int) -> Int:\n    Return 99999999999999999999 + "
                               "42 + 2.5E+3 + 1e-5 + true + false.\n");
    ASSERT_TRUE(r.ok()) << errors_of(r);
    std::vector<const Expr*> leaves;
    const Expr* e = std::get<Return>(r.program.functions[0].body[0].node).value.get();
    while (auto* b = std::get_if<Binary>(&e->node)) {
        leaves.insert(leaves.begin(), b->rhs.get());
        e = b->lhs.get();
    }
    leaves.insert(leaves.begin(), e);
    ASSERT_EQ(leaves.size(), 6u);
    const auto& big = std::get<NumberLit>(leaves[0]->node);
    EXPECT_TRUE(big.is_int);
    EXPECT_TRUE(big.overflow);
    EXPECT_EQ(big.int_value, INT64_MAX);
    EXPECT_DOUBLE_EQ(big.value, 1e20);
    const auto& small = std::get<NumberLit>(leaves[1]->node);
    EXPECT_TRUE(small.is_int);
    EXPECT_FALSE(small.overflow);
    EXPECT_EQ(small.int_value, 42);
    const auto& sci = std::get<NumberLit>(leaves[2]->node);
    EXPECT_FALSE(sci.is_int);
    EXPECT_DOUBLE_EQ(sci.value, 2500.0);
    EXPECT_EQ(sci.text, "2.5E+3");
    EXPECT_DOUBLE_EQ(std::get<NumberLit>(leaves[3]->node).value, 1e-5);
    EXPECT_TRUE(std::get<BoolLit>(leaves[4]->node).value);
    EXPECT_FALSE(std::get<BoolLit>(leaves[5]->node).value);
    EXPECT_EQ(expr_of("9223372036854775807"), "9223372036854775807");
}

TEST(ParserExpr, NewSeqAndCalls) {
    EXPECT_EQ(expr_of("a new Seq of Seq of Float32"), "(new Seq of Seq of Float32)");
    EXPECT_EQ(expr_of("a new Seq of Int with capacity n * 2"), "(* (new Seq of Int n) 2)");
    EXPECT_EQ(expr_of("max(a, min(b, c))"), "(max a (min b c))");
    EXPECT_EQ(expr_of("f()"), "(f)");
    EXPECT_EQ(expr_of("pow(x, 2) as Float"), "(as (pow x 2) Real)");
}

TEST(ParserExpr, ExpressionErrors) {
    EXPECT_NE(expr_of("item i xs").find("expected 'of' after 'item ...'"), std::string::npos);
    EXPECT_NE(expr_of("(a + b").find("expected ')'"), std::string::npos);
    EXPECT_NE(expr_of("a divided b").find("expected 'by' after 'divided'"), std::string::npos);
    EXPECT_NE(expr_of("a +").find("expected an expression, found '.'"), std::string::npos);
    EXPECT_NE(expr_of("x as Seq of Int").find("a cast takes an element type"), std::string::npos);
    EXPECT_NE(expr_of("1e999").find("out of range"), std::string::npos);
    EXPECT_NE(expr_of("x as Flot32").find("unknown type 'Flot32'; did you mean"),
              std::string::npos);
}

TEST(ParserExpr, PositionsAreFirstTokens) {
    ParseResult r = parse_text("## To f (x: Int) -> Int:\n    Return (x + 1) * item 2 of y.\n");
    ASSERT_TRUE(r.ok()) << errors_of(r);
    const Stmt& s = r.program.functions[0].body[0];
    EXPECT_EQ(s.pos, (SourcePos{2, 5}));
    const Expr& e = *std::get<Return>(s.node).value;
    EXPECT_EQ(e.pos, (SourcePos{2, 12})); // the '('
    const auto& mul = std::get<Binary>(e.node);
    EXPECT_EQ(mul.lhs->pos, (SourcePos{2, 13})); // x + 1
    EXPECT_EQ(std::get<Binary>(mul.lhs->node).rhs->pos, (SourcePos{2, 17}));
    EXPECT_EQ(mul.rhs->pos, (SourcePos{2, 22})); // item
    EXPECT_EQ(std::get<ItemOf>(mul.rhs->node).seq->pos, (SourcePos{2, 32}));
}

// -------------------------------------------------------- statements ----

TEST(ParserStmt, EveryStatementForm) {
    const char* text = "## To f (xs: Seq of Float32) and (n: Int) into (out: Seq of Float32):\n"
                       "    Let a be 1.\n"
                       "    Let mutable b be 2.\n"
                       "    Let mut c: Float64 be 3.\n"
                       "    Let d: Seq of Int be a new Seq of Int.\n"
                       "    Set b to b + 1.\n"
                       "    Set item 1 of out to 2.0.\n"
                       "    Set out[2] to 3.0.\n"
                       "    Push 4 to d.\n"
                       "    Repeat for x in xs:\n"
                       "        Set b to x.\n"
                       "    for x in xs:\n"
                       "        Set b to x.\n"
                       "    Repeat for i from 1 to n:\n"
                       "        Set b to i.\n"
                       "    for i from 0 to n - 1:\n"
                       "        Set b to i.\n"
                       "    While b is less than n:\n"
                       "        Set b to b + 1.\n"
                       "    Check that n equals 4096.\n"
                       "    Assert that length of xs equals n.\n"
                       "    Return.\n";
    ParseResult r = parse_text(text);
    ASSERT_TRUE(r.ok()) << errors_of(r);
    const Block& b = only_function(r).body;
    ASSERT_EQ(b.size(), 16u);
    EXPECT_FALSE(std::get<Let>(b[0].node).is_mutable);
    EXPECT_TRUE(std::get<Let>(b[1].node).is_mutable);
    const auto& typed = std::get<Let>(b[2].node);
    EXPECT_TRUE(typed.is_mutable);
    EXPECT_EQ(typed.type, (Type{ElemType::Float64, 0, {}}));
    EXPECT_EQ(sexpr(std::get<Let>(b[3].node).value), "(new Seq of Int)");
    EXPECT_EQ(std::get<SetVar>(b[4].node).name, "b");
    const auto& set1 = std::get<SetItem>(b[5].node);
    EXPECT_EQ(sexpr(set1.seq) + " " + sexpr(set1.index) + " " + sexpr(set1.value), "out 1 2.0");
    const auto& set2 = std::get<SetItem>(b[6].node);
    EXPECT_EQ(sexpr(set2.seq) + " " + sexpr(set2.index), "out 2");
    EXPECT_EQ(sexpr(std::get<Push>(b[7].node).seq), "d");
    EXPECT_EQ(std::get<ForEach>(b[8].node).body.size(), 1u);
    EXPECT_EQ(std::get<ForEach>(b[9].node).var, "x");
    EXPECT_EQ(sexpr(std::get<ForRange>(b[11].node).to), "(- n 1)");
    EXPECT_EQ(sexpr(std::get<While>(b[12].node).cond), "(< b n)");
    EXPECT_FALSE(std::get<Check>(b[13].node).is_assert);
    EXPECT_TRUE(std::get<Check>(b[14].node).is_assert);
    EXPECT_EQ(b[14].pos, (SourcePos{21, 5}));
}

TEST(ParserStmt, ReturnWithoutValueAndTwoStatementsOnALine) {
    ParseResult r =
        parse_text("## To f (x: Int) -> Int:\n    Let a be 1. Let b be 2.\n    Return.\n");
    ASSERT_TRUE(r.ok()) << errors_of(r);
    const Block& b = only_function(r).body;
    ASSERT_EQ(b.size(), 3u);
    EXPECT_EQ(b[1].pos, (SourcePos{2, 17}));
    EXPECT_EQ(std::get<Return>(b[2].node).value, nullptr);
}

TEST(ParserStmt, IfElifOtherwiseChains) {
    const char* text = "## To f (x: Int) -> Int:\n"
                       "    If x > 1:\n"
                       "        Return 1.\n"
                       "    elif x > 2:\n"
                       "        Return 2.\n"
                       "    Otherwise if x > 3:\n"
                       "        Return 3.\n"
                       "    Else if x > 4:\n"
                       "        Return 4.\n"
                       "    Otherwise:\n"
                       "        Return 5.\n"
                       "    If x > 9:\n"
                       "        Return 9.\n"
                       "    Else:\n"
                       "        Return 8.\n"
                       "    Return 0.\n";
    ParseResult r = parse_text(text);
    ASSERT_TRUE(r.ok()) << errors_of(r);
    const Block& b = only_function(r).body;
    ASSERT_EQ(b.size(), 3u);
    const auto& chain = std::get<If>(b[0].node);
    ASSERT_EQ(chain.branches.size(), 4u);
    EXPECT_EQ(chain.branches[1].pos, (SourcePos{4, 5}));
    EXPECT_EQ(sexpr(chain.branches[3].cond), "(> x 4)");
    ASSERT_TRUE(chain.otherwise.has_value());
    EXPECT_EQ(sexpr(std::get<Return>(chain.otherwise->at(0).node).value), "5");
    const auto& second = std::get<If>(b[1].node);
    EXPECT_EQ(second.branches.size(), 1u);
    EXPECT_TRUE(second.otherwise.has_value());
}

TEST(ParserStmt, OtherwiseWithoutIfIsAnError) {
    ParseResult r = parse_text("## To f (x: Int) -> Int:\n    Otherwise:\n        Return 1.\n");
    ASSERT_EQ(r.errors.size(), 1u) << errors_of(r);
    EXPECT_EQ(r.errors[0].message, "'Otherwise' without a matching 'If'");
}

// ----------------------------------------------------------- headers ----

TEST(ParserHeader, EverySeparator) {
    const char* seps[] = {"and", ",", "from", "with", "by", "to", "of", "on"};
    for (const char* sep : seps) {
        SCOPED_TRACE(sep);
        std::string text =
            std::string("## To f (a: Int) ") + sep + " (b: Real) -> Real:\n    Return b.\n";
        ParseResult r = parse_text(text);
        ASSERT_TRUE(r.ok()) << errors_of(r);
        const Function& f = only_function(r);
        ASSERT_EQ(f.params.size(), 2u);
        EXPECT_EQ(f.params[1].name, "b");
        EXPECT_EQ(f.params[1].type.elem, ElemType::Real);
    }
}

TEST(ParserHeader, CommaGroupsOutputsAndTypes) {
    ParseResult r = parse_text(
        "## To g (p: Seq of Float16, q: Float) and (k: Int64) into (out: Seq of Seq of Seq of "
        "Seq of Bool) and (out2: Int32):\n    Return.\n");
    ASSERT_TRUE(r.ok()) << errors_of(r);
    const Function& f = only_function(r);
    ASSERT_EQ(f.params.size(), 5u);
    EXPECT_EQ(f.params[0].type, (Type{ElemType::Float16, 1, {}}));
    EXPECT_EQ(f.params[1].type, (Type{ElemType::Real, 0, {}}));
    EXPECT_FALSE(f.params[2].is_output);
    EXPECT_TRUE(f.params[3].is_output);
    EXPECT_TRUE(f.params[4].is_output);
    EXPECT_EQ(to_string(f.params[3].type), "Seq of Seq of Seq of Seq of Bool");
    EXPECT_EQ(f.params[1].pos, (SourcePos{1, 29}));
    EXPECT_FALSE(f.returns.has_value());
}

TEST(ParserHeader, NoParameters) {
    ParseResult r = parse_text("## To answer -> Int:\n    Return 42.\n");
    ASSERT_TRUE(r.ok()) << errors_of(r);
    EXPECT_EQ(only_function(r).params.size(), 0u);
}

TEST(ParserHeader, Errors) {
    auto first_error = [](const std::string& header) {
        ParseResult r = parse_text(header + "\n    Return 1.\n");
        return r.errors.empty() ? std::string("none") : r.errors[0].message;
    };
    EXPECT_EQ(first_error("## To f (x: Int) -> Int"),
              "expected ':' at the end of the header, found the end of the line");
    EXPECT_EQ(first_error("## To f (x Int) -> Int:"), "expected ':' after the parameter name");
    EXPECT_EQ(first_error("## To f (x: Seq of Seq of Seq of Seq of Seq of Int) -> Int:"),
              "a Seq nests at most 4 deep");
    EXPECT_EQ(first_error("## To f (x: Widget) -> Int:"), "unknown type 'Widget'");
    EXPECT_EQ(first_error("## To f (x: Seq Int) -> Int:"), "expected 'of' after 'Seq'");
    EXPECT_EQ(first_error("## To (x: Int) -> Int:"), "expected the function's name after 'To'");
    EXPECT_EQ(first_error("## To f (x: Int) and -> Int:"), "expected '(' after 'and'");
}

// ------------------------------------------------------ file structure ----

TEST(ParserFile, LiterateStructure) {
    const char* text = "# Title\n"
                       "Prose with ## inside and Let x be.\n"
                       "```\n"
                       "## To fenced (x: Int) -> Int:\n"
                       "    this is not code\n"
                       "```\n"
                       "## Note\n"
                       "First paragraph,\n"
                       "  continued.\n"
                       "\n"
                       "Second one.\n"
                       "## To helper (x: Real) -> Real:\n"
                       "    # a comment line\n"
                       "    Return x. # trailing comment\n"
                       "\n"
                       "## Main\n"
                       "Show 42 and whatever else.\n"
                       "## To op (y: Real) -> Real:\n"
                       "    Return helper(y).\n"
                       "### Details\n"
                       "anything at all.\n";
    ParseResult r = parse_text(text);
    ASSERT_TRUE(r.ok()) << errors_of(r);
    ASSERT_EQ(r.program.functions.size(), 2u);
    EXPECT_EQ(r.program.note, "First paragraph, continued.\n\nSecond one.");
    EXPECT_EQ(r.program.find()->name, "op");
    EXPECT_EQ(r.program.find("helper")->name, "helper");
    EXPECT_EQ(r.program.find("missing"), nullptr);
    EXPECT_EQ(r.program.functions[1].pos, (SourcePos{18, 1}));
}

TEST(ParserFile, FencedCodeInsideAFunctionIsStillCode) {
    ParseResult r = parse_text("## To f (x: Int) -> Int:\n```\n    Return x\n```\n");
    ASSERT_EQ(r.errors.size(), 1u) << errors_of(r);
    EXPECT_EQ(r.errors[0].pos, (SourcePos{3, 13}));
}

TEST(ParserFile, FindOnEmptyProgram) {
    Program p;
    EXPECT_EQ(p.find(), nullptr);
    EXPECT_EQ(p.find("x"), nullptr);
}

TEST(ParserFile, ToStringHelpers) {
    EXPECT_STREQ(to_string(ElemType::BFloat16), "BFloat16");
    EXPECT_STREQ(to_string(ElemType::Int64), "Int64");
    EXPECT_EQ(to_string(Type{ElemType::Float32, 2, {}}), "Seq of Seq of Float32");
    EXPECT_EQ(to_string(Type{ElemType::Text, 0, {}}), "Text");
    EXPECT_STREQ(to_string(BinaryOp::Ge), ">=");
    EXPECT_STREQ(to_string(BinaryOp::And), "and");
    EXPECT_STREQ(to_string(BinaryOp::Mod), "%");
}

// ------------------------------------------------------------ recovery ----

TEST(ParserRecovery, SeveralErrorsInOneFile) {
    const char* text = "## To f (x: Int) -> Int:\n"
                       "    Let a be 1\n"               // missing period
                       "    Set a 2.\n"                 // missing `to`
                       "    Frobnicate the widget.\n"   // not a statement
                       "    Repeat for i from 1 to x\n" // missing ':'
                       "        Let b be item i x.\n"   // inside the broken loop
                       "    Return a.\n";
    ParseResult r = parse_text(text);
    ASSERT_EQ(r.errors.size(), 5u) << errors_of(r);
    EXPECT_EQ(r.errors[0].pos, (SourcePos{2, 15}));
    EXPECT_EQ(r.errors[1].message, "expected 'to' after 'Set ...'");
    EXPECT_EQ(r.errors[1].pos, (SourcePos{3, 11}));
    EXPECT_EQ(r.errors[2].pos.line, 4);
    EXPECT_NE(r.errors[2].message.find("expected a statement"), std::string::npos);
    EXPECT_EQ(r.errors[3].message, "expected ':' after the loop header");
    EXPECT_EQ(r.errors[4].message, "expected 'of' after 'item ...'");
    EXPECT_EQ(r.errors[4].pos.line, 6);
    EXPECT_EQ(only_function(r).body.size(), 1u); // the Return survived
}

TEST(ParserRecovery, ErrorsInTwoFunctions) {
    ParseResult r = parse_text("## To f (x: Int) -> Int:\n    Return x +.\n"
                               "## To g (x: Int) -> Int:\n    Return f(x) x.\n");
    ASSERT_EQ(r.errors.size(), 2u) << errors_of(r);
    EXPECT_EQ(r.errors[0].pos.line, 2);
    EXPECT_EQ(r.errors[1].pos, (SourcePos{4, 17}));
    EXPECT_EQ(r.program.functions.size(), 2u);
}

TEST(ParserRecovery, IndentationErrors) {
    ParseResult r = parse_text("## To f (x: Int) -> Int:\n"
                               "    Let a be 1.\n"
                               "        Let b be 2.\n" // unexpected indentation
                               "    If x > 1:\n"
                               "    Return a.\n" // If without a body
                               "    While x < 1:\n"
                               "      Set a to 2.\n" // 2 spaces, not 4
                               "\tReturn 1.\n");
    std::string all = errors_of(r);
    EXPECT_NE(all.find("t.lg:3:9: error: unexpected indentation"), std::string::npos) << all;
    EXPECT_NE(all.find("t.lg:4:14: error: expected an indented block after ':'"), std::string::npos)
        << all;
    EXPECT_NE(all.find("t.lg:7:7: error: a block must be indented 4 spaces more"),
              std::string::npos)
        << all;
    EXPECT_NE(all.find("t.lg:8:1: error: tab in indentation"), std::string::npos) << all;
}

TEST(ParserRecovery, ErrorCountIsCapped) {
    std::string text = "## To f (x: Int) -> Int:\n";
    for (int i = 0; i < 500; ++i)
        text += "    Let a be\n";
    ParseResult r = parse_text(text);
    ASSERT_EQ(r.errors.size(), 51u);
    EXPECT_EQ(r.errors.back().message, "too many errors; stopping here");
}

// ------------------------------------------------------------ hostile ----

namespace {
// Parses `text` and checks it returned promptly; the result must be an error
// unless `ok` says otherwise.
ParseResult hostile(const std::string& text, bool ok = false) {
    auto t0 = std::chrono::steady_clock::now();
    ParseResult r = parse_text(text);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(s, 5.0);
    EXPECT_EQ(r.ok(), ok) << errors_of(r);
    return r;
}
std::string repeat(const std::string& s, size_t n) {
    std::string out;
    out.reserve(s.size() * n);
    for (size_t i = 0; i < n; ++i)
        out += s;
    return out;
}
} // namespace

TEST(ParserHostile, EmptyAndProseOnly) {
    EXPECT_TRUE(hostile("", true).program.functions.empty());
    EXPECT_TRUE(hostile("Just some prose.\n\nMore prose.", true).program.functions.empty());
    EXPECT_TRUE(hostile("\n\n\n", true).program.functions.empty());
}

TEST(ParserHostile, BinaryAndNul) {
    std::string bin;
    for (int i = 0; i < 100000; ++i)
        bin += static_cast<char>((i * 7919) % 256);
    hostile(bin);
    ParseResult r = hostile(std::string("## To f (x: Int) -> Int:\n    Return \0x.\n", 40));
    EXPECT_EQ(r.errors[0].message, "NUL byte in the source file");
    EXPECT_EQ(r.errors[0].pos, (SourcePos{2, 12}));
    hostile("## To f (x: Int) -> Int:\n    Return " + bin + "\n");
}

TEST(ParserHostile, InvalidUtf8NamesThePosition) {
    ParseResult r = hostile("## To f (x: Int) -> Int:\n    Return x. # caf\xE9\n");
    ASSERT_EQ(r.errors.size(), 1u);
    EXPECT_EQ(r.errors[0].pos, (SourcePos{2, 20}));
    EXPECT_NE(r.errors[0].message.find("invalid UTF-8"), std::string::npos);
}

TEST(ParserHostile, MegabyteLines) {
    hostile("## To f (x: Int) -> Int:\n    Return " + repeat("x + ", 250000) + "x.\n");
    hostile("## To f (x: Int) -> Int:\n    Return " + std::string(1 << 20, 'x') + ".\n", true);
    hostile(std::string(1 << 20, 'p') + "\n", true);
    hostile("## To " + std::string(1 << 20, '(') + "\n");
    hostile("## To f (x: " + std::string(1 << 20, 'T') + ") -> Int:\n    Return x.\n");
    hostile("## To f (x: Int) -> Int:\n    Return " + repeat("- ", 500000) + "x.\n");
    hostile("## To f (x: Int) -> Int:\n    Return " + repeat("item 1 of ", 200000) + "x.\n");
    hostile("## To f (x: Int) -> Int:\n    Return " + repeat("not ", 200000) + "x.\n");
    hostile("## To f (x: Int) -> Int:\n    Return x" + repeat("[1]", 200000) + ".\n");
    hostile("## To f (x: Int) -> Int:\n    Return x" + repeat(" as Int", 200000) + ".\n");
    hostile("## To f (x: Seq of Int) -> Int:\n    Return " + repeat("f(", 200000) + "x.\n");
}

TEST(ParserHostile, DeepParentheses) {
    ParseResult r = hostile("## To f (x: Int) -> Int:\n    Return " + std::string(10000, '(') +
                            "x" + std::string(10000, ')') + ".\n");
    ASSERT_EQ(r.errors.size(), 1u);
    EXPECT_NE(r.errors[0].message.find("nested too deeply"), std::string::npos);
    // Up to 255 levels are fine.
    hostile("## To f (x: Int) -> Int:\n    Return " + std::string(255, '(') + "x" +
                std::string(255, ')') + ".\n",
            true);
    hostile("## To f (x: Int) -> Int:\n    Return " + repeat("item 1 of ", 200) + "x.\n", true);
    // A long flat sum is a tall tree too: bounded, so that AST walkers cannot overflow.
    hostile("## To f (x: Int) -> Int:\n    Return " + repeat("x + ", 900) + "x.\n", true);
    hostile("## To f (x: Int) -> Int:\n    Return " + repeat("x + ", 1100) + "x.\n");
}

TEST(ParserHostile, DeepBlocks) {
    std::string text = "## To f (x: Int) -> Int:\n";
    for (int i = 1; i <= 1000; ++i)
        text += std::string(static_cast<size_t>(4 * i), ' ') + "If x:\n";
    text += std::string(4 * 1001, ' ') + "Return x.\n";
    ParseResult r = hostile(text);
    ASSERT_EQ(r.errors.size(), 1u) << errors_of(r);
    EXPECT_NE(r.errors[0].message.find("nested too deeply"), std::string::npos);
    // 100 levels are fine.
    std::string ok = "## To f (x: Int) -> Int:\n";
    for (int i = 1; i <= 100; ++i)
        ok += std::string(static_cast<size_t>(4 * i), ' ') + "If x:\n";
    ok += std::string(4 * 101, ' ') + "Return x.\n";
    hostile(ok, true);
}

TEST(ParserHostile, HugeLiterals) {
    ParseResult r =
        hostile("## To f (x: Int) -> Int:\n    Return " + std::string(1 << 20, '9') + ".\n", true);
    const auto& lit =
        std::get<NumberLit>(std::get<Return>(r.program.functions[0].body[0].node).value->node);
    EXPECT_TRUE(lit.overflow);
    EXPECT_TRUE(std::isinf(lit.value));
    hostile("## To f (x: Int) -> Int:\n    Return 0." + std::string(1 << 20, '1') + ".\n", true);
    hostile("## To f (x: Int) -> Int:\n    Return 1e" + std::string(100000, '9') + ".\n");
    hostile("## To f (x: Int) -> Int:\n    Return \"" + std::string(1 << 20, 's') + "\".\n", true);
}

TEST(ParserHostile, ManyLinesAndFunctions) {
    std::string text;
    for (int i = 0; i < 20000; ++i)
        text += "## To f" + std::to_string(i) + " (x: Int) -> Int:\n    Return x.\n";
    ParseResult r = hostile(text, true);
    EXPECT_EQ(r.program.functions.size(), 1u); // the op; no block calls another
    EXPECT_EQ(r.program.skipped.size(), 19999u);
    EXPECT_EQ(r.program.op, "f19999");
}

// ------------------------------------------------------ r2 forms ----

TEST(ParserR2, PowerForms) {
    EXPECT_EQ(expr_of("x ** 3"), "(pow x 3)");
    EXPECT_EQ(expr_of("x to the power of 3"), "(pow x 3)");
    // Right-associative, binding tighter than * and looser than unary minus.
    EXPECT_EQ(expr_of("2 ** 3 ** 2"), "(pow 2 (pow 3 2))");
    EXPECT_EQ(expr_of("2 * x ** 2"), "(* 2 (pow x 2))");
    EXPECT_EQ(expr_of("-x ** 2"), "(pow (neg x) 2)");
    EXPECT_EQ(expr_of("x ** -1"), "(pow x (neg 1))");
}

TEST(ParserR2, BetweenIsTwoComparisons) {
    EXPECT_EQ(expr_of("x is between 1 and x + 2"), "(and (<= 1 x) (<= x (+ x 2)))");
    EXPECT_EQ(expr_of("x is between 1 and 2 or x > 5"), "(or (and (<= 1 x) (<= x 2)) (> x 5))");
    EXPECT_NE(expr_of("x is between 1").find("expected 'and' in 'is between"), std::string::npos);
}

TEST(ParserR2, TheLengthOfAndSlices) {
    EXPECT_EQ(expr_of("the length of x"), "(length x)");
    EXPECT_EQ(expr_of("the length of x / 2"), "(/ (length x) 2)");
    EXPECT_EQ(expr_of("length of items 2 through x of y"), "(length (items 2 x y))");
    EXPECT_EQ(expr_of("item 1 of items x + 1 through 2 * x of y"),
              "(item 1 (items (+ x 1) (* 2 x) y))");
    EXPECT_NE(expr_of("items 1 to 2 of y").find("expected 'through'"), std::string::npos);
}

TEST(ParserR2, MutableParametersAreOutputs) {
    ParseResult r = parse_text("## To f (x: Seq of Float32) and (out: mutable Seq of Float32) and "
                               "(o2: mut Seq of Float32):\n    Set item 1 of out to 1.0.\n");
    ASSERT_TRUE(r.ok()) << errors_of(r);
    const Function& f = only_function(r);
    ASSERT_EQ(f.params.size(), 3u);
    EXPECT_FALSE(f.params[0].is_output);
    EXPECT_TRUE(f.params[1].is_output);
    EXPECT_TRUE(f.params[2].is_output);
    EXPECT_EQ(to_string(f.params[1].type), "Seq of Float32");
}

TEST(ParserR2, OutsideTheSubsetIsNamed) {
    struct C {
        const char* stmt;
        const char* says;
    } cases[] = {
        {"Show x.", "`Show` (printing) is LOGOS, but not in solgen's op subset"},
        {"show x.", "`Show` (printing)"},
        {"Call g with x.", "`Call` (a call statement)"},
        {"Break.", "`Break` (leaving a loop early)"},
        {"x += 1.", "`x +=` (a compound assignment)"},
        {"x = 1.", "`x =` (an equals-style binding)"},
        {"mut y = 1.", "`mut y =` (an equals-style binding)"},
        {"g(x).", "`g(...)` (a call as a statement)"},
        {"Let y be x.g().", "UFCS calls (`x.g()`) are LOGOS"},
        {"Let y be x.g(1).", "write g(x, ...)"},
        {"Let y be x.field.", "field access (`x.field`)"},
        {"Let y be [1, 2].", "list literals"},
    };
    for (const C& c : cases) {
        ParseResult r = parse_text(std::string("## To f (x: Int) -> Int:\n    ") + c.stmt +
                                   "\n    Return x.\n");
        ASSERT_EQ(r.errors.size(), 1u) << c.stmt << "\n" << errors_of(r);
        EXPECT_NE(r.errors[0].message.find(c.says), std::string::npos)
            << c.stmt << ": " << r.errors[0].message;
        EXPECT_EQ(r.errors[0].pos.line, 2) << c.stmt;
    }
    // Two statements on one line are not a field access.
    EXPECT_TRUE(parse_text("## To f (x: Int) -> Int:\n    Let y be x.Return y.\n").ok());
}

TEST(ParserR2, OneErrorPerFault) {
    // The last line of a nested block, re-read by the outer line: reported once.
    ParseResult a = parse_text("## To f (x: Seq of Real) -> Real:\n"
                               "    Repeat for v in x:\n"
                               "        Let y be v +.\n"
                               "    Return 1.0.\n");
    EXPECT_EQ(a.errors.size(), 1u) << errors_of(a);
    // A broken If header keeps its Otherwise: no "without a matching 'If'".
    ParseResult b = parse_text("## To f (x: Real) -> Real:\n"
                               "    If x is between 1.0:\n"
                               "        Return 1.0.\n"
                               "    Otherwise:\n"
                               "        Return 2.0.\n");
    ASSERT_EQ(b.errors.size(), 1u) << errors_of(b);
    EXPECT_EQ(b.errors[0].pos.line, 2);
    // A stray byte is the fault; the syntax error it causes is not reported.
    ParseResult c = parse_text("## To f (x: Real) -> Real:\n    Let a$b be x.\n    Return a.\n");
    ASSERT_EQ(c.errors.size(), 1u) << errors_of(c);
    EXPECT_NE(c.errors[0].message.find("unexpected character '$'"), std::string::npos);
}

// ------------------------------------------------------ whole files ----

TEST(ParserWholeFile, TheOpIsTheLastBlockNoOtherCalls) {
    ParseResult r = parse_text("## To op (x: Real) -> Real:\n    Return helper(x).\n"
                               "## To helper (x: Real) -> Real:\n    Return x.\n");
    ASSERT_TRUE(r.ok()) << errors_of(r);
    EXPECT_EQ(r.program.op, "op");
    EXPECT_EQ(r.program.find()->name, "op");
    EXPECT_EQ(r.program.functions.size(), 2u);
    EXPECT_TRUE(r.program.other_candidates.empty());
}

TEST(ParserWholeFile, UncalledBlocksAreSkippedUnread) {
    ParseResult r = parse_text("## To native args () -> Seq of Text\n"
                               "## To fetch (u: Text) -> Text is native \"reqwest::get\".\n"
                               "## To printer (x: Real):\n    Show x.\n    Inspect x:\n"
                               "## Main\nShow 1.\n"
                               "## To op (x: Real) -> Real:\n    Return x.\n");
    ASSERT_TRUE(r.ok()) << errors_of(r);
    EXPECT_EQ(r.program.op, "op");
    ASSERT_EQ(r.program.functions.size(), 1u);
    ASSERT_EQ(r.program.skipped.size(), 3u);
    EXPECT_TRUE(r.program.skipped_block("args")->native);
    EXPECT_TRUE(r.program.skipped_block("fetch")->native);
    EXPECT_FALSE(r.program.skipped_block("printer")->native);
    EXPECT_EQ(r.program.other_candidates, std::vector<std::string>{"printer"});
}

TEST(ParserWholeFile, OpByNameReadsOnlyWhatItReaches) {
    const char* text = "## To op (x: Real) -> Real:\n    Return a(x).\n"
                       "## To a (x: Real) -> Real:\n    Return b(x).\n"
                       "## To b (x: Real) -> Real:\n    Return x.\n"
                       "## To broken (x: Real) -> Real:\n    Frobnicate.\n";
    ParseResult r = parse(SourceFile("t.lg", text), "op");
    ASSERT_TRUE(r.ok()) << errors_of(r);
    EXPECT_EQ(r.program.functions.size(), 3u);
    EXPECT_NE(r.program.find("b"), nullptr);
    EXPECT_EQ(r.program.find("broken"), nullptr);
    // Without --op, `broken` is the last uncalled block, and its body is read.
    EXPECT_FALSE(parse(SourceFile("t.lg", text)).ok());
    ParseResult missing = parse(SourceFile("t.lg", text), "nope");
    ASSERT_EQ(missing.errors.size(), 1u);
    EXPECT_EQ(missing.errors[0].message,
              "no `## To nope` block in this file; its `## To` blocks are: op, a, b, broken");
}

TEST(ParserWholeFile, CallsFoundInAnyLogos) {
    // `Call g with ...` and UFCS count as calls, so `g` is not taken as the op.
    ParseResult r = parse_text("## To op (x: Real) -> Real:\n    Return x.\n"
                               "## To g (x: Real) -> Real:\n    Return x.\n"
                               "## To h (x: Real):\n    Call g with x.\n    Show x.g().\n");
    EXPECT_EQ(r.program.op, "h");
    EXPECT_EQ(r.program.other_candidates, std::vector<std::string>{"op"});
}

TEST(ParserWholeFile, DuplicateNamesAreStillReported) {
    ParseResult r = parse_text("## To op (x: Real) -> Real:\n    Return x.\n"
                               "## To op (x: Real) -> Real:\n    Return x + 1.0.\n");
    EXPECT_EQ(r.program.functions.size(), 2u); // both read; the checker names the duplicate
}
