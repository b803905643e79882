// The LOGOS abstract syntax tree, as the parser produces it.
//
// Plain value types: a node is a struct, a choice of nodes is a std::variant,
// children are owned through std::unique_ptr / std::vector. Every expression
// and statement carries the SourcePos of its first token so any stage can
// point at it. The grammar this mirrors is docs/logos-language.md.
#pragma once

#include "frontend/source.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace solbench::ast {

// ---------------------------------------------------------------- types ----

// Element types of logos-ops.md §3. Text is parsed so that a non-tensor op can
// be refused with a reason instead of failing as a syntax error.
enum class ElemType {
    BFloat16,
    Float16,
    Float32,
    Float64,
    Float8E4M3, // r2
    Float8E5M2, // r2
    Real,
    Int,
    Int8,  // r2
    Int16, // r2
    UInt8, // r2
    Int32,
    Int64,
    Bool,
    Text
};

// `Seq of Seq of E` is {E, rank 2}; a scalar `E` is {E, rank 0}.
struct Type {
    ElemType elem = ElemType::Real;
    int rank = 0;
    SourcePos pos;
    friend bool operator==(const Type& a, const Type& b) {
        return a.elem == b.elem && a.rank == b.rank;
    }
};

const char* to_string(ElemType t);    // the LOGOS spelling, e.g. "BFloat16"
std::string to_string(const Type& t); // e.g. "Seq of Seq of Float32"

// ---------------------------------------------------------- expressions ----

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

enum class BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod, // + - * / %   (plus minus times "divided by")
    Eq,
    Ne,
    Lt,
    Gt,
    Le,
    Ge, // == != < > <= >=   (equals, is less than, ...)
    And,
    Or,
    Concat, // "combined with" (Text only; refused later)
};
enum class UnaryOp { Neg, Not };

const char* to_string(BinaryOp op); // the symbol: "+", "==", "and", ...

struct NumberLit {
    double value = 0;
    bool is_int = false;   // written without '.', 'e' or 'E'
    int64_t int_value = 0; // valid when is_int (saturates; `overflow` says so)
    bool overflow = false;
    std::string text; // as written
};
struct BoolLit {
    bool value = false;
};
struct StringLit {
    std::string value;
};
struct NameRef {
    std::string name;
};
// `item i of xs` and `xs[i]`: 1-based element read.
struct ItemOf {
    ExprPtr index;
    ExprPtr seq;
};
// `length of xs` / `length(xs)` / `the length of xs`.
struct LengthOf {
    ExprPtr seq;
};
// `items a through b of xs`: the inclusive slice a..b of the first axis (r2).
struct Slice {
    ExprPtr from;
    ExprPtr to;
    ExprPtr seq;
};
// `a new Seq of E` (optionally `with capacity n`).
struct NewSeq {
    Type type;
    ExprPtr capacity; /* may be null */
};
// `f(a, b)`: a helper or a builtin (sqrt exp log tanh abs erf sigmoid max min pow).
struct Call {
    std::string callee;
    std::vector<ExprPtr> args;
};
// `e as T`.
struct Cast {
    ExprPtr operand;
    ElemType to = ElemType::Real;
};
// `copy of e` (LOGOS's value copy; only meaningful for sequences).
struct CopyOf {
    ExprPtr operand;
};
struct Unary {
    UnaryOp op = UnaryOp::Neg;
    ExprPtr operand;
};
struct Binary {
    BinaryOp op = BinaryOp::Add;
    ExprPtr lhs;
    ExprPtr rhs;
};

struct Expr {
    SourcePos pos;
    std::variant<NumberLit, BoolLit, StringLit, NameRef, ItemOf, LengthOf, Slice, NewSeq, Call,
                 Cast, CopyOf, Unary, Binary>
        node;
};

// A deep copy (the parser spells `x is between a and b` with x twice).
ExprPtr clone(const Expr& e);

// ----------------------------------------------------------- statements ----

struct Stmt;
using Block = std::vector<Stmt>;

// `Let x be e.` / `Let mutable x: T be e.`
struct Let {
    std::string name;
    bool is_mutable = false;
    std::optional<Type> type;
    ExprPtr value;
};
// `Set x to e.`
struct SetVar {
    std::string name;
    ExprPtr value;
};
// `Set item i of xs to e.` / `Set xs[i] to e.`
struct SetItem {
    ExprPtr seq;
    ExprPtr index;
    ExprPtr value;
};
// `Push e to xs.`
struct Push {
    ExprPtr value;
    ExprPtr seq;
};
// `Repeat for x in xs:` / `for x in xs:`
struct ForEach {
    std::string var;
    SourcePos var_pos;
    ExprPtr seq;
    Block body;
};
// `Repeat for i from a to b:` (inclusive)
struct ForRange {
    std::string var;
    SourcePos var_pos;
    ExprPtr from;
    ExprPtr to;
    Block body;
};
// `While c:`
struct While {
    ExprPtr cond;
    Block body;
};
// `If c:` / `elif c:` (also `Otherwise if`) / `Otherwise:`
struct IfBranch {
    SourcePos pos;
    ExprPtr cond;
    Block body;
};
struct If {
    std::vector<IfBranch> branches;
    std::optional<Block> otherwise;
};
// `Return e.` (value may be null for a bare `Return.`)
struct Return {
    ExprPtr value;
};
// `Check that c.` / `Assert that c.`
struct Check {
    ExprPtr cond;
    bool is_assert = false;
};

struct Stmt {
    SourcePos pos;
    std::variant<Let, SetVar, SetItem, Push, ForEach, ForRange, While, If, Return, Check> node;
};

// ------------------------------------------------------------ functions ----

struct Param {
    std::string name;
    Type type;
    SourcePos pos;
    bool is_output = false; // declared after `into`, or `mutable` (r2)
};

// A `## To` block.
struct Function {
    std::string name;
    SourcePos pos; // of the `##` header
    std::vector<Param> params;
    std::optional<Type> returns; // `-> R`
    Block body;
};

// A `## To` block the parser did not read: one the op never reaches, or a
// bodyless `## To native NAME (...) -> T` declaration (a foreign function).
struct SkippedBlock {
    std::string name;
    SourcePos pos; // of the `##` header
    bool native = false;
};

// A whole .lg file as solgen reads it: the op and the helpers it reaches
// (logos-ops.md §1, r2), the blocks it skipped, and the text of its `## Note`
// blocks (the op's description).
struct Program {
    std::vector<Function> functions; // the op and its helpers, in file order
    std::vector<SkippedBlock> skipped;
    std::string op; // the op's name; empty when the file has none
    // When the op was chosen by the default rule among several `## To`
    // blocks that no other block calls: the others, for a hint.
    std::vector<std::string> other_candidates;
    std::string note;

    // The function named `name`, or the op when name is empty.
    const Function* find(const std::string& name = "") const;
    // The skipped block named `name`, if any.
    const SkippedBlock* skipped_block(const std::string& name) const;
};

} // namespace solbench::ast
