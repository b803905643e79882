// The raiser's driver and statements: parameters become tensors and axes,
// each statement updates the symbolic state.
#include "raise/raiser.h"

#include "frontend/elem_dtype.h"

#include "raise/raise.h"

#include <functional>
#include <stdexcept>

namespace solbench::raise {

std::optional<ir::DType> element_dtype(ast::ElemType t) {
    return to_dtype(t); // frontend/elem_dtype.h: one table for every stage
}

namespace {} // namespace

// Every name a block assigns with `Set`, at any depth.
void assigned_names(const ast::Block& block, std::map<std::string, SourcePos>& out) {
    for (const ast::Stmt& s : block)
        assigned_names_of(s, out);
}

void assigned_names_of(const ast::Stmt& s, std::map<std::string, SourcePos>& out) {
    std::visit(
        [&](const auto& n) {
            using T = std::decay_t<decltype(n)>;
            if constexpr (std::is_same_v<T, ast::SetVar>) out.emplace(n.name, s.pos);
            if constexpr (std::is_same_v<T, ast::ForEach> || std::is_same_v<T, ast::ForRange> ||
                          std::is_same_v<T, ast::While>)
                assigned_names(n.body, out);
            if constexpr (std::is_same_v<T, ast::If>) {
                for (const auto& b : n.branches)
                    assigned_names(b.body, out);
                if (n.otherwise) assigned_names(*n.otherwise, out);
            }
        },
        s.node);
}

bool ir_reads_data(const ir::Expr& e) {
    if (e->op == ir::Op::Load || e->op == ir::Op::Reduce || e->op == ir::Op::Scalar) return true;
    for (const auto& a : e->args)
        if (ir_reads_data(a)) return true;
    return false;
}

bool contains_loop(const ast::Block& block) {
    for (const ast::Stmt& s : block) {
        bool found = std::visit(
            [&](const auto& n) {
                using T = std::decay_t<decltype(n)>;
                if constexpr (std::is_same_v<T, ast::ForEach> || std::is_same_v<T, ast::ForRange> ||
                              std::is_same_v<T, ast::While>)
                    return true;
                else if constexpr (std::is_same_v<T, ast::If>) {
                    for (const auto& b : n.branches)
                        if (contains_loop(b.body)) return true;
                    return n.otherwise && contains_loop(*n.otherwise);
                } else
                    return false;
            },
            s.node);
        if (found) return true;
    }
    return false;
}

Raiser::Raiser(const ast::Program& program, const ast::Function& op, std::string file,
               const TypeFacts& facts)
    : program_(program), facts_(facts), op_(op), file_(std::move(file)) {}

void Raiser::refuse(SourcePos pos, Rule rule, const std::string& message) const {
    throw Refused{refusal(pos, rule, message)};
}

ir::OpIR Raiser::run() {
    check_calls_acyclic();
    bind_params();
    exec_block(op_.body);
    if (deferred_) throw Refused{*deferred_};
    return assemble();
}

// Recursion cannot be inlined into a kernel: refuse any cycle among the
// functions the op reaches, at the call that closes it.
void Raiser::check_calls_acyclic() {
    std::map<std::string, const ast::Function*> by_name;
    for (const ast::Function& f : program_.functions)
        by_name.emplace(f.name, &f);
    std::vector<std::string> stack;
    std::set<std::string> done;
    std::function<void(const ast::Function&)> visit_fn;
    std::function<void(const ast::Expr&, SourcePos)> visit_expr = [&](const ast::Expr& e,
                                                                      SourcePos stmt) {
        std::visit(
            [&](const auto& n) {
                using T = std::decay_t<decltype(n)>;
                if constexpr (std::is_same_v<T, ast::Call>) {
                    for (const auto& a : n.args)
                        visit_expr(*a, stmt);
                    auto it = by_name.find(n.callee);
                    if (it == by_name.end()) return;
                    if (std::find(stack.begin(), stack.end(), n.callee) != stack.end())
                        refuse(stmt, Rule::Recursion,
                               "'" + n.callee + "' calls itself" +
                                   (stack.back() == n.callee ? ""
                                                             : " through '" + stack.back() + "'") +
                                   "; a recursive helper cannot be inlined into a kernel");
                    visit_fn(*it->second);
                } else if constexpr (std::is_same_v<T, ast::ItemOf>) {
                    visit_expr(*n.index, stmt);
                    visit_expr(*n.seq, stmt);
                } else if constexpr (std::is_same_v<T, ast::Slice>) {
                    visit_expr(*n.from, stmt);
                    visit_expr(*n.to, stmt);
                    visit_expr(*n.seq, stmt);
                } else if constexpr (std::is_same_v<T, ast::LengthOf> ||
                                     std::is_same_v<T, ast::CopyOf> ||
                                     std::is_same_v<T, ast::Unary>) {
                    if constexpr (std::is_same_v<T, ast::LengthOf>)
                        visit_expr(*n.seq, stmt);
                    else
                        visit_expr(*n.operand, stmt);
                } else if constexpr (std::is_same_v<T, ast::Cast>) {
                    visit_expr(*n.operand, stmt);
                } else if constexpr (std::is_same_v<T, ast::Binary>) {
                    visit_expr(*n.lhs, stmt);
                    visit_expr(*n.rhs, stmt);
                }
            },
            e.node);
    };
    std::function<void(const ast::Block&)> visit_block = [&](const ast::Block& b) {
        for (const ast::Stmt& s : b) {
            std::visit(
                [&](const auto& n) {
                    using T = std::decay_t<decltype(n)>;
                    auto ex = [&](const ast::ExprPtr& p) {
                        if (p) visit_expr(*p, s.pos);
                    };
                    if constexpr (std::is_same_v<T, ast::Let> || std::is_same_v<T, ast::SetVar>)
                        ex(n.value);
                    else if constexpr (std::is_same_v<T, ast::SetItem>) {
                        ex(n.seq);
                        ex(n.index);
                        ex(n.value);
                    } else if constexpr (std::is_same_v<T, ast::Push>) {
                        ex(n.value);
                        ex(n.seq);
                    } else if constexpr (std::is_same_v<T, ast::ForEach>) {
                        ex(n.seq);
                        visit_block(n.body);
                    } else if constexpr (std::is_same_v<T, ast::ForRange>) {
                        ex(n.from);
                        ex(n.to);
                        visit_block(n.body);
                    } else if constexpr (std::is_same_v<T, ast::While>) {
                        ex(n.cond);
                        visit_block(n.body);
                    } else if constexpr (std::is_same_v<T, ast::If>) {
                        for (const auto& br : n.branches) {
                            ex(br.cond);
                            visit_block(br.body);
                        }
                        if (n.otherwise) visit_block(*n.otherwise);
                    } else if constexpr (std::is_same_v<T, ast::Return>) {
                        ex(n.value);
                    } else if constexpr (std::is_same_v<T, ast::Check>) {
                        ex(n.cond);
                    }
                },
                s.node);
        }
    };
    visit_fn = [&](const ast::Function& f) {
        if (done.count(f.name)) return;
        stack.push_back(f.name);
        visit_block(f.body);
        stack.pop_back();
        done.insert(f.name);
    };
    visit_fn(op_);
}

void Raiser::bind_params() {
    scopes_.emplace_back();
    int ir_input = 0;
    for (const ast::Param& p : op_.params) {
        if (p.type.elem == ast::ElemType::Text)
            refuse(p.pos, Rule::NonTensorValue,
                   "parameter '" + p.name + "' is Text; solgen raises tensor ops only");
        if (p.type.rank == 0 && p.type.elem == ast::ElemType::Int && !p.is_output) {
            // An Int parameter is an axis (a size), named after the parameter.
            int axis = new_axis(p.name, true);
            size_params_.emplace_back(p.name, axis);
            declare(p.name, IntVal{Poly::atom({Atom::Axis, axis})}, false);
            continue;
        }
        TensorParam t;
        t.param = &p;
        t.dtype = *element_dtype(p.type.elem);
        if (p.type.rank == 0) {
            if (p.is_output)
                refuse(p.pos, Rule::OutputShape, "output '" + p.name + "' must be a sequence");
            input_index_[&p] = ir_input++;
            tensors_.push_back(t);
            declare(p.name, NumVal{ir::scalar(input_index_[&p]), std::nullopt}, false);
            continue;
        }
        for (int d = 0; d < p.type.rank; ++d)
            t.dims.push_back(new_axis());
        if (!p.is_output) input_index_[&p] = ir_input++;
        tensors_.push_back(t);
        declare(p.name, ViewVal{static_cast<int>(tensors_.size()) - 1, {}, {}, std::nullopt},
                p.is_output);
    }
}

void Raiser::exec_block(const ast::Block& block) {
    for (const ast::Stmt& s : block)
        exec(s);
}

void Raiser::exec(const ast::Stmt& s) {
    std::visit(
        [&](const auto& n) {
            using T = std::decay_t<decltype(n)>;
            if constexpr (std::is_same_v<T, ast::Let>)
                exec_let(s, n);
            else if constexpr (std::is_same_v<T, ast::SetVar>)
                exec_set(s, n);
            else if constexpr (std::is_same_v<T, ast::SetItem>)
                exec_set_item(s, n);
            else if constexpr (std::is_same_v<T, ast::Push>)
                exec_push(s, n);
            else if constexpr (std::is_same_v<T, ast::If>)
                exec_if(s, n);
            else if constexpr (std::is_same_v<T, ast::Check>)
                exec_check(s, n);
            else if constexpr (std::is_same_v<T, ast::While>)
                exec_while(s, n);
            else if constexpr (std::is_same_v<T, ast::Return>)
                exec_return(s, n);
            else if constexpr (std::is_same_v<T, ast::ForEach>) {
                Value over = eval(*n.seq);
                if (!std::holds_alternative<ViewVal>(over) && !std::holds_alternative<SeqVal>(over))
                    refuse(s.pos, Rule::LoopForm, "a for-each loop needs a sequence");
                LoopSpec spec;
                spec.pos = s.pos;
                spec.body = &n.body;
                spec.body_end = n.body.size();
                spec.lo = Poly::constant(1);
                spec.hi = length_of(over, s.pos).p;
                spec.var = n.var;
                if (auto* local = std::get_if<SeqVal>(&over))
                    spec.over_local = *local;
                else
                    spec.over = std::get<ViewVal>(over);
                run_loop(spec);
            } else if constexpr (std::is_same_v<T, ast::ForRange>) {
                LoopSpec spec;
                spec.pos = s.pos;
                spec.body = &n.body;
                spec.body_end = n.body.size();
                spec.lo = to_int(eval(*n.from), n.from->pos).p;
                spec.hi = to_int(eval(*n.to), n.to->pos).p;
                spec.var = n.var;
                run_loop(spec);
            }
        },
        s.node);
}

void Raiser::exec_let(const ast::Stmt& s, const ast::Let& let) {
    Value v = eval(*let.value);
    if (std::holds_alternative<TextVal>(v) || (let.type && let.type->elem == ast::ElemType::Text))
        refuse(s.pos, Rule::NonTensorValue,
               "'" + let.name + "' is Text; solgen raises tensor ops only");
    if (let.type) v = round_to_declared(std::move(v), *let.type, s.pos);
    if (facts_.real_int_literals.count(&let))
        if (auto* i = std::get_if<IntVal>(&v); i && i->p.constant_value())
            v = NumVal{ir::constant(static_cast<double>(*i->p.constant_value())), std::nullopt};
    if (auto* seq = std::get_if<SeqVal>(&v))
        locals_[static_cast<size_t>(seq->local)].depth = loop_stack_.size();
    declare(let.name, std::move(v), let.is_mutable);
}

void Raiser::exec_set(const ast::Stmt& s, const ast::SetVar& set) {
    Binding* b = lookup(set.name);
    if (!b) refuse(s.pos, Rule::Unsupported, "unknown name '" + set.name + "'");
    // Loops entered since the variable was declared decide what the update means.
    for (size_t i = b->depth; i < loop_stack_.size(); ++i)
        if (loop_at(i).kind == LoopKind::Row &&
            !(row_sum_ && row_sum_->loop == loop_at(i).id &&
              std::find(row_sum_->totals.begin(), row_sum_->totals.end(), set.name) !=
                  row_sum_->totals.end()))
            refuse(s.pos, Rule::CrossRow,
                   "'" + set.name +
                       "' lives outside the loop over rows and is updated inside it, so one row's "
                       "result depends on other rows");
    Value v = eval(*set.value);
    // An Int literal stored into a Real variable is that Real (`Set s to 0.` resetting a
    // sum declared `0.0`), as the checker and the interpreter read it.
    if (auto* i = std::get_if<IntVal>(&v); i && std::holds_alternative<NumVal>(b->value))
        if (auto k = i->p.constant_value())
            v = NumVal{ir::constant(static_cast<double>(*k)), std::nullopt};
    if (auto* n = std::get_if<NumVal>(&v)) {
        if (n->taint && b->depth < loop_stack_.size()) throw Refused{*n->taint};
    }
    if (std::holds_alternative<IntVal>(b->value) && std::holds_alternative<NumVal>(v) &&
        b->depth < loop_stack_.size())
        refuse(s.pos, Rule::ValueKind,
               "'" + set.name + "' is an Int counter updated with a real value inside a loop");
    b->value = std::move(v);
}

void Raiser::exec_check(const ast::Stmt& s, const ast::Check& check) {
    const auto* bin = std::get_if<ast::Binary>(&check.cond->node);
    if (!bin || bin->op != ast::BinaryOp::Eq) return; // other contracts say nothing about shapes
    // `length of x equals a * b * c`: a flat x is row-major [a, b, c].
    if (const auto* len = std::get_if<ast::LengthOf>(&bin->lhs->node)) {
        if (const auto* name = std::get_if<ast::NameRef>(&len->seq->node)) {
            Binding* b = lookup(name->name);
            if (b)
                if (auto* view = std::get_if<ViewVal>(&b->value);
                    view && view->prefix.empty() &&
                    tensors_[static_cast<size_t>(view->tensor)].param->type.rank == 1) {
                    std::vector<const ast::Expr*> factors;
                    std::function<void(const ast::Expr&)> flatten = [&](const ast::Expr& e) {
                        const auto* m = std::get_if<ast::Binary>(&e.node);
                        if (m && m->op == ast::BinaryOp::Mul) {
                            flatten(*m->lhs);
                            flatten(*m->rhs);
                        } else {
                            factors.push_back(&e);
                        }
                    };
                    flatten(*bin->rhs);
                    std::vector<int> dims;
                    for (const ast::Expr* f : factors) {
                        Poly p = canon(to_int(eval(*f), f->pos).p);
                        auto a = p.single_atom();
                        if (a && a->kind == Atom::Axis) {
                            dims.push_back(a->id);
                        } else if (auto k = p.constant_value(); k && *k > 0) {
                            int ax = new_axis();
                            axes_[static_cast<size_t>(ax)].value = *k;
                            dims.push_back(ax);
                        } else {
                            refuse(f->pos, Rule::SizeArithmetic,
                                   "a length contract's factors must be axes or constants");
                        }
                    }
                    TensorParam& t = tensors_[static_cast<size_t>(view->tensor)];
                    if (t.flat && t.dims != dims)
                        refuse(s.pos, Rule::SizeArithmetic,
                               "a second, different length contract for '" + name->name + "'");
                    t.dims = dims;
                    t.flat = dims.size() > 1;
                    return;
                }
        }
    }
    Value lhs = eval(*bin->lhs);
    Value rhs = eval(*bin->rhs);
    auto* li = std::get_if<IntVal>(&lhs);
    auto* ri = std::get_if<IntVal>(&rhs);
    if ((li && std::holds_alternative<NumVal>(rhs) && !li->p.is_constant()) ||
        (ri && std::holds_alternative<NumVal>(lhs) && !ri->p.is_constant()))
        refuse(s.pos, Rule::SizeArithmetic, "a size can only equal a whole number");
    if (!li || !ri) return;
    Poly a = canon(li->p), b = canon(ri->p);
    auto pin = [&](const Poly& axis, const Poly& value) {
        auto at = axis.single_atom();
        auto k = value.constant_value();
        if (!at || at->kind != Atom::Axis || !k) return false;
        if (*k <= 0 || *k > (int64_t{1} << 40))
            refuse(s.pos, Rule::SizeArithmetic,
                   "constant axis value " + std::to_string(*k) + " is out of range");
        auto& pinned = axes_[static_cast<size_t>(at->id)].value;
        if (pinned && *pinned != *k)
            refuse(s.pos, Rule::SizeArithmetic,
                   "this size is already pinned to " + std::to_string(*pinned) +
                       "; it cannot also be " + std::to_string(*k));
        pinned = *k;
        return true;
    };
    if (pin(a, b) || pin(b, a)) return;
    if (auto aa = a.single_atom(); aa && aa->kind == Atom::Axis) unify_dim(aa->id, b, s.pos);
}

void Raiser::exec_return(const ast::Stmt& s, const ast::Return& ret) {
    if (!loop_stack_.empty())
        refuse(s.pos, Rule::LoopForm, "a Return inside a loop; return after the loops");
    if (ret.value) returned_ = eval(*ret.value);
}

// `If` inside the op: both branches run on copies of the state and the
// variables they set become selects. Pushes and stores must not be conditional.
void Raiser::exec_if(const ast::Stmt& s, const ast::If& node) {
    std::function<void(size_t)> branch_from = [&](size_t i) {
        if (i == node.branches.size()) {
            if (node.otherwise) {
                scopes_.emplace_back();
                exec_block(*node.otherwise);
                scopes_.pop_back();
            }
            return;
        }
        const ast::IfBranch& br = node.branches[i];
        Value c = eval(*br.cond);
        if (auto* iv = std::get_if<IntVal>(&c)) {
            // Int conditions fold (sizes and counters are known).
            auto k = canon(iv->p).constant_value();
            if (!k) refuse(br.pos, Rule::SizeArithmetic, "a condition on a symbolic size");
            if (*k) {
                scopes_.emplace_back();
                exec_block(br.body);
                scopes_.pop_back();
            } else {
                branch_from(i + 1);
            }
            return;
        }
        NumVal cond = to_num(c, br.pos);
        if (cond.e->op == ir::Op::Const) {
            scopes_.emplace_back();
            if (cond.e->value != 0) exec_block(br.body);
            scopes_.pop_back();
            if (cond.e->value == 0) branch_from(i + 1);
            return;
        }
        if (cond.taint) throw Refused{refusal(br.pos, *cond.taint->rule, cond.taint->message)};
        auto saved_scopes = scopes_;
        auto saved_locals = locals_;
        auto saved_tensors = tensors_;
        auto split = column_split(*br.cond);
        if (split) column_ranges_.push_back(split->first);
        scopes_.emplace_back();
        exec_block(br.body);
        scopes_.pop_back();
        if (split) column_ranges_.back() = split->second;
        auto then_scopes = scopes_;
        auto then_locals = locals_;
        auto then_tensors = tensors_;
        scopes_ = saved_scopes;
        locals_ = saved_locals;
        tensors_ = saved_tensors;
        branch_from(i + 1);
        if (split) column_ranges_.pop_back();
        // A Push or Set item in each branch (r2 §4) is one write of select(cond, then, else);
        // in one branch only it would leave the element unwritten.
        auto merge = [&](const std::optional<Content>& before, const std::optional<Content>& then,
                         std::optional<Content>& other, const char* what) {
            bool in_then = then && !before, in_other = other && !before;
            if (!in_then && !in_other) return;
            if (in_then != in_other)
                refuse(s.pos, Rule::StorePattern,
                       std::string("a ") + what + " in one branch of a data-dependent If only");
            if (then->row_loops != other->row_loops || then->col_loop != other->col_loop)
                refuse(s.pos, Rule::StorePattern,
                       std::string("the branches of a data-dependent If ") + what +
                           " into different places");
            other->value = ir::select(cond.e, then->value, other->value);
            other->pos = then->pos;
        };
        for (size_t k = 0; k < saved_locals.size(); ++k)
            merge(saved_locals[k].content, then_locals[k].content, locals_[k].content, "Push");
        for (size_t k = 0; k < tensors_.size(); ++k)
            merge(saved_tensors[k].stored, then_tensors[k].stored, tensors_[k].stored, "store");
        // What the first branch read counts as read (restoring the state for the other
        // branches must not forget it: an input read only there was classified unread).
        for (size_t k = 0; k < tensors_.size(); ++k) {
            const auto& then_read = then_tensors[k].column_read;
            auto& read = tensors_[k].column_read;
            if (then_read && read && *then_read != *read)
                refuse(s.pos, Rule::ColumnIndex,
                       "'" + tensors_[k].param->name +
                           "' is read both along the columns and once per row");
            if (then_read) read = then_read;
            const auto& then_dim = then_tensors[k].column_dim;
            auto& dim = tensors_[k].column_dim;
            if (then_dim && dim && *then_dim != *dim)
                refuse(s.pos, Rule::ColumnIndex,
                       "'" + tensors_[k].param->name + "' is read along two different axes");
            if (then_dim) dim = then_dim;
            tensors_[k].read_at_column |= then_tensors[k].read_at_column;
        }
        // Merge: a variable the branches disagree on becomes select(cond, then, else).
        for (size_t d = 0; d < scopes_.size(); ++d)
            for (auto& [name, b] : scopes_[d]) {
                const Binding& t = then_scopes[d].at(name);
                auto* tv = std::get_if<NumVal>(&t.value);
                auto* ev = std::get_if<NumVal>(&b.value);
                if (tv && ev) {
                    if (tv->e != ev->e) {
                        NumVal merged{ir::select(cond.e, tv->e, ev->e),
                                      tv->taint ? tv->taint : ev->taint};
                        b.value = merged;
                    }
                } else if (t.value.index() != b.value.index()) {
                    refuse(br.pos, Rule::ValueKind,
                           "'" + name + "' has a different kind of value in each branch");
                } else if (auto* ti = std::get_if<IntVal>(&t.value)) {
                    // An Int chosen by the data (an argmax) can only be used as data.
                    if (!(ti->p == std::get<IntVal>(b.value).p))
                        b.value =
                            NumVal{ir::constant(0),
                                   refusal(br.pos, Rule::DataDependentIndex,
                                           "'" + name +
                                               "' is chosen by a data-dependent "
                                               "condition, so an index made from it depends on "
                                               "the data")};
                }
            }
    };
    branch_from(0);
}

void Raiser::exec_while(const ast::Stmt& s, const ast::While& node) {
    // Counted form: `While c cmp bound:` ... `Set c to c + 1.` as the last statement.
    const auto* cmp = std::get_if<ast::Binary>(&node.cond->node);
    const auto* counter = cmp ? std::get_if<ast::NameRef>(&cmp->lhs->node) : nullptr;
    auto data_loop = [&](const std::string& why) { refuse(s.pos, Rule::DataDependentLoop, why); };
    // A condition that reads tensor data is a data-dependent trip count.
    auto reads_data = [&](const Value& v) {
        const auto* n = std::get_if<NumVal>(&v);
        return n && ir_reads_data(n->e);
    };
    if (cmp && cmp->op != ast::BinaryOp::And && cmp->op != ast::BinaryOp::Or) {
        if (reads_data(eval(*cmp->lhs)) || reads_data(eval(*cmp->rhs)))
            data_loop("this While loop's trip count depends on tensor data");
    } else if (reads_data(eval(*node.cond))) {
        data_loop("this While loop's trip count depends on tensor data");
    }
    if (!cmp || !counter || !(cmp->op == ast::BinaryOp::Lt || cmp->op == ast::BinaryOp::Le))
        refuse(s.pos, Rule::LoopForm,
               "a While loop must count: `While i is less than N:` or `While i is at most N:`");
    Binding* b = lookup(counter->name);
    if (!b || !std::holds_alternative<IntVal>(b->value) || !b->is_mutable)
        refuse(s.pos, Rule::LoopForm, "a While loop's counter must be a mutable Int");
    if (node.body.empty()) data_loop("this While loop never steps its counter");
    const ast::Stmt& last = node.body.back();
    const auto* step = std::get_if<ast::SetVar>(&last.node);
    bool steps_by_one = false;
    if (step && step->name == counter->name)
        if (const auto* add = std::get_if<ast::Binary>(&step->value->node);
            add && add->op == ast::BinaryOp::Add)
            if (const auto* l = std::get_if<ast::NameRef>(&add->lhs->node);
                l && l->name == counter->name)
                if (const auto* k = std::get_if<ast::NumberLit>(&add->rhs->node);
                    k && k->is_int && k->int_value == 1)
                    steps_by_one = true;
    if (!steps_by_one)
        data_loop("a While loop must end with `Set " + counter->name + " to " + counter->name +
                  " + 1.`");
    for (size_t i = 0; i + 1 < node.body.size(); ++i) {
        std::map<std::string, SourcePos> names;
        assigned_names_of(node.body[i], names);
        if (auto it = names.find(counter->name); it != names.end())
            data_loop("the While loop's counter '" + counter->name +
                      "' is changed inside the body, not only stepped at its end");
    }
    Poly bound = to_int(eval(*cmp->rhs), cmp->rhs->pos).p;
    LoopSpec spec;
    spec.pos = s.pos;
    spec.body = &node.body;
    spec.body_end = node.body.size() - 1;
    spec.lo = std::get<IntVal>(b->value).p;
    spec.hi = cmp->op == ast::BinaryOp::Lt ? bound - Poly::constant(1) : bound;
    spec.counter = counter->name;
    run_loop(spec);
}

Binding* Raiser::lookup(const std::string& name) {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
        auto f = it->find(name);
        if (f != it->end()) return &f->second;
    }
    return nullptr;
}

void Raiser::declare(const std::string& name, Value v, bool is_mutable) {
    scopes_.back()[name] = Binding{std::move(v), is_mutable, loop_stack_.size()};
}

const LoopInfo* Raiser::innermost(LoopKind k) const {
    for (auto it = loop_stack_.rbegin(); it != loop_stack_.rend(); ++it)
        if (all_loops_[static_cast<size_t>(*it)].kind == k)
            return &all_loops_[static_cast<size_t>(*it)];
    return nullptr;
}

LoopInfo* Raiser::column_context() {
    for (auto it = loop_stack_.rbegin(); it != loop_stack_.rend(); ++it) {
        LoopInfo& loop = all_loops_[static_cast<size_t>(*it)];
        if (loop.kind == LoopKind::Row) continue;
        // A part of a merged row: its head is the loop over the columns.
        return loop.head ? &all_loops_[static_cast<size_t>(*loop.head)] : &loop;
    }
    return nullptr;
}

const LoopInfo* Raiser::loop_by_id(int id) const {
    return id >= 0 && id < static_cast<int>(all_loops_.size())
               ? &all_loops_[static_cast<size_t>(id)]
               : nullptr;
}

std::vector<int> Raiser::current_row_loops() const {
    std::vector<int> ids;
    for (int id : loop_stack_)
        if (all_loops_[static_cast<size_t>(id)].kind == LoopKind::Row) ids.push_back(id);
    return ids;
}

} // namespace solbench::raise

namespace solbench {

Raised raise_op(const ast::Program& program, const ast::Function& op, const std::string& file,
                const TypeFacts& facts) {
    try {
        try {
            raise::Raiser r(program, op, file, facts);
            return r.run();
        } catch (const raise::RaiseAgainMerged& again) {
            raise::Raiser r(program, op, file, facts);
            r.merged_heads_ = again.heads;
            return r.run();
        }
    } catch (const raise::Refused& r) {
        return Failure{file, {r.refusal}};
    } catch (const std::overflow_error&) {
        return Failure{file,
                       {refusal(op.pos, Rule::SizeArithmetic,
                                "the op's sizes or indices overflow 64-bit integers")}};
    }
}

} // namespace solbench
