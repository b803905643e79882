// Names shared by the device kernels and the host binding.
#include "codegen/emit_names.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace solbench::codegen {

namespace {

bool reserved(const std::string& s) {
    static const std::set<std::string> words = {"row",      "rows",       "cols",
                                                "base",     "chunk",      "j",
                                                "c",        "i",          "stream",
                                                "status",   "scratch",    "smem",
                                                "m",        "run",        "first",
                                                "extent",   "body",       "value",
                                                "auto",     "int",        "float",
                                                "double",   "bool",       "char",
                                                "const",    "default",    "delete",
                                                "new",      "class",      "struct",
                                                "template", "typename",   "namespace",
                                                "operator", "this",       "return",
                                                "if",       "else",       "for",
                                                "while",    "do",         "switch",
                                                "case",     "break",      "continue",
                                                "union",    "unsigned",   "signed",
                                                "long",     "short",      "void",
                                                "static",   "extern",     "register",
                                                "volatile", "inline",     "private",
                                                "public",   "protected",  "virtual",
                                                "friend",   "try",        "catch",
                                                "throw",    "goto",       "sizeof",
                                                "typedef",  "enum",       "true",
                                                "false",    "nullptr",    "and",
                                                "or",       "not",        "xor",
                                                "std",      "at",         "torch",
                                                "stride",   "chunks",     "chunks_per_row",
                                                "config",   "vectorized", "p",
                                                "out",      "in",         "w"};
    if (words.count(s)) return true;
    // the printer's temporaries and accumulators: t0, v0, sum0, max0, min0
    for (const char* prefix : {"t", "v", "sum", "max", "min"}) {
        std::string p = prefix;
        if (s.size() > p.size() && s.rfind(p, 0) == 0 &&
            std::all_of(s.begin() + static_cast<long>(p.size()), s.end(),
                        [](char ch) { return ch >= '0' && ch <= '9'; }))
            return true;
    }
    return false;
}

} // namespace

std::string identifier(const std::string& name) {
    std::string s;
    for (char ch : name)
        s += (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_') ? ch : '_';
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) s = "_" + s;
    if (reserved(s)) s += "_";
    return s;
}

std::string constant_name(const std::string& axis) {
    std::string s = "k";
    bool upper = true;
    for (char ch : axis) {
        if (ch == '_') {
            upper = true;
            continue;
        }
        s += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(ch))) : ch;
        upper = false;
    }
    return s;
}

std::string join(const std::vector<std::string>& v, const std::string& sep) {
    std::string out;
    for (size_t i = 0; i < v.size(); ++i)
        out += (i ? sep : "") + v[i];
    return out;
}

std::string host_axis(const ir::OpIR& op, int axis) {
    const std::string& name = op.axes[static_cast<size_t>(axis)].name;
    return is_const(op, axis) ? constant_name(name) : identifier(name);
}

std::string host_dim(const ir::OpIR& op, const ir::Dim& d) {
    std::string a = host_axis(op, d.axis);
    return d.scale == 1 ? a : std::to_string(d.scale) + " * " + a;
}

ir::Dim row_dim(const ir::OpIR& op) {
    for (const ir::Tensor& t : op.outputs)
        if (t.role == ir::Role::Rows && !t.shape.empty()) return ir::column_dim(t);
    return ir::Dim{op.column_axis, 1};
}

} // namespace solbench::codegen
