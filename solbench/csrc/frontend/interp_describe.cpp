// Renders expressions back into LOGOS-like text for diagnostics.
#include "frontend/interp_describe.h"

#include "frontend/interp_value.h"

namespace solbench::interp {

namespace {

// The textual depth is capped so a pathological expression gives a short message.
constexpr int kMaxDepth = 8;

const char* op_text(ast::BinaryOp op) {
    using B = ast::BinaryOp;
    switch (op) {
    case B::Add:
        return "+";
    case B::Sub:
        return "-";
    case B::Mul:
        return "*";
    case B::Div:
        return "/";
    case B::Mod:
        return "%";
    case B::Eq:
        return "equals";
    case B::Ne:
        return "!=";
    case B::Lt:
        return "<";
    case B::Gt:
        return ">";
    case B::Le:
        return "<=";
    case B::Ge:
        return ">=";
    case B::And:
        return "and";
    case B::Or:
        return "or";
    case B::Concat:
        return "combined with";
    }
    return "?";
}

std::string text(const ast::Expr& e, int depth);

// A primary operand keeps its own spelling; a compound one is parenthesized.
std::string operand(const ast::ExprPtr& e, int depth) {
    if (!e) return "?";
    bool compound = std::holds_alternative<ast::Binary>(e->node) ||
                    std::holds_alternative<ast::Unary>(e->node) ||
                    std::holds_alternative<ast::Cast>(e->node);
    std::string s = text(*e, depth);
    return compound ? "(" + s + ")" : s;
}

struct Render {
    int depth;
    std::string operator()(const ast::NumberLit& n) const {
        return n.text.empty() ? std::to_string(n.value) : n.text;
    }
    std::string operator()(const ast::BoolLit& b) const { return b.value ? "true" : "false"; }
    std::string operator()(const ast::StringLit& s) const { return "\"" + s.value + "\""; }
    std::string operator()(const ast::NameRef& n) const { return n.name; }
    std::string operator()(const ast::ItemOf& i) const {
        return "item " + operand(i.index, depth) + " of " + operand(i.seq, depth);
    }
    std::string operator()(const ast::LengthOf& l) const {
        return "length of " + operand(l.seq, depth);
    }
    std::string operator()(const ast::Slice& s) const {
        return "items " + operand(s.from, depth) + " through " + operand(s.to, depth) + " of " +
               operand(s.seq, depth);
    }
    std::string operator()(const ast::NewSeq& n) const {
        return "a new " + type_name(n.type.elem, n.type.rank);
    }
    std::string operator()(const ast::Call& c) const {
        std::string s = c.callee + "(";
        for (size_t k = 0; k < c.args.size(); ++k)
            s += (k ? ", " : "") + (c.args[k] ? text(*c.args[k], depth) : "?");
        return s + ")";
    }
    std::string operator()(const ast::Cast& c) const {
        return operand(c.operand, depth) + " as " + elem_name(c.to);
    }
    std::string operator()(const ast::CopyOf& c) const {
        return "copy of " + operand(c.operand, depth);
    }
    std::string operator()(const ast::Unary& u) const {
        return (u.op == ast::UnaryOp::Neg ? "-" : "not ") + operand(u.operand, depth);
    }
    std::string operator()(const ast::Binary& b) const {
        return operand(b.lhs, depth) + " " + op_text(b.op) + " " + operand(b.rhs, depth);
    }
};

std::string text(const ast::Expr& e, int depth) {
    if (depth >= kMaxDepth) return "...";
    return std::visit(Render{depth + 1}, e.node);
}

} // namespace

std::string describe(const ast::Expr& e) {
    return clip_words(text(e, 0));
}

std::string clip_words(std::string_view message) {
    constexpr size_t kLong = 60, kKept = 40;
    auto word_char = [](char c) {
        return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
               (c >= 'A' && c <= 'Z') || static_cast<unsigned char>(c) >= 0x80;
    };
    std::string out;
    size_t i = 0;
    while (i < message.size()) {
        size_t j = i;
        while (j < message.size() && word_char(message[j]))
            ++j;
        if (j == i) {
            out += message[i++];
            continue;
        }
        std::string_view w = message.substr(i, j - i);
        out += w.size() > kLong ? std::string(w.substr(0, kKept)) + "..." : std::string(w);
        i = j;
    }
    return out;
}

} // namespace solbench::interp
