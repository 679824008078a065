// SPDX-License-Identifier: Apache-2.0
#pragma once
// Assembly: from the declared objects to a schedule.
//
//  1. resolve each port to its origin (the port whose value it shows);
//  2. the dependency graph over reactions: r -> s if s follows r in the
//     same reactor, or r writes a port whose zero-delay downstream s reads;
//  3. Kahn's algorithm assigns levels (longest path from a source); nodes
//     left over lie on or behind a cycle, which is reported by names;
//  4. deadlines are inferred upstream (a reaction inherits the tightest
//     deadline of anything it feeds), as in LF's C runtime;
//  5. reactions are ranked by (level, inferred deadline, declaration):
//     the ready set pops them in this order, which is level by level with
//     earliest deadline first inside a level;
//  6. the hot tables: each rank's body and level packed in rank order;
//     each origin port with a single reader gets that reader's mark.
// Everything uses the storage the environment already has; nothing allocates.
#include <weft/core/detail/bounded_text.hpp>
#include <weft/reactor/detail/runtime.hpp>

#include <cstddef>
#include <type_traits>

namespace weft::reactors {

namespace detail {
// The graph walk exists once, behind a function pointer: assembly walks
// successors for four purposes, and a template per lambda (each with its
// own copy of the recursive port walk) cost ~500 B of flash on a board.
struct successor_visit {
    void (*fn)(successor_visit& self, reaction_node& s) noexcept;
    reaction_node* from = nullptr;
};

// `self`: the port the reaction writes itself. It may also read it
// (reads(out): it sees what it wrote, no ordering is involved), but not
// be triggered by it: on(out) with writes(out) would have the reaction
// trigger itself, which LF forbids (a reaction cannot be triggered by its
// own reactor's output), so that link is an edge to itself, reported as
// a cycle ("app.r -> app.r"). Anywhere further down, reaching the writer
// again is a zero-delay loop back to it: a cycle too.
inline void visit_port_readers(port_node& p, successor_visit& v, bool self) noexcept {
    for (link* l = p.readers_; l; l = l->next)
        if (!self || l->owner != v.from || l->kind == role::trigger) v.fn(v, *l->owner);
    for (port_node* d = p.first_down_; d; d = d->next_down_)
        if (!d->on_set_) visit_port_readers(*d, v, false);  // `after` ends the zero-delay path
}

inline void visit_successors(reaction_node& r, successor_visit& v) noexcept {
    v.from = &r;
    if (r.next_in_reactor_) v.fn(v, *r.next_in_reactor_);
    for (std::uint8_t i = 0; i < r.link_count_; ++i) {
        link& l = r.links_[i];
        auto k = l.target->kind_;
        if (l.kind != role::effect) continue;
        if (k != element_kind::input && k != element_kind::output) continue;
        visit_port_readers(static_cast<port_node&>(*l.target), v, true);
    }
}
}  // namespace detail

template <class F>
void basic_environment::for_each_successor(detail::reaction_node& r, F&& f) noexcept {
    using fn_t = std::remove_reference_t<F>;
    struct visit : detail::successor_visit {
        fn_t* f;
    };
    visit v{};
    v.fn = [](detail::successor_visit& b, detail::reaction_node& s) noexcept { (*static_cast<visit&>(b).f)(s); };
    v.f = &f;
    detail::visit_successors(r, v);
}

inline status basic_environment::assemble() noexcept {
    status s = assembled_ ? status{} : assemble_graph();  // one status, no copy
    if (s) assembled_ = true;
    return s;
}

// A reaction of this program linked to an element of another program, or
// an element of this one read by a reaction of another: a declaration
// error of both (detail::across_environments). Checked here, once every
// object exists (a reaction may write an element declared after it), and
// before the graph walks, which would follow such a link into the other
// program. Connections are checked when made (connect(), `after`).
inline void basic_environment::check_foreign_links() noexcept {
    const char* what = "depends on an element of another environment";
    for (auto* r = first_reaction_; r; r = r->next_global_)
        for (std::uint8_t i = 0; i < r->link_count_; ++i) {
            detail::element* t = r->links_[i].target;
            detail::reactor_node* o = t->owner_;
            if (o && o->env_ != this) [[unlikely]]
                detail::across_environments(*this, *o->env_, "reaction", r->name_, what);
            // Startup and shutdown belong to the environment, not to a
            // reactor: another program's are known by not being ours, and
            // that program reports the link from its own side (below).
            if (!o && t != &startup_ && t != &shutdown_) [[unlikely]]
                declaration_error(error{errc::invalid, "reaction", r->name_, 0, what});
        }
    auto check_readers = [&](detail::element& e) {
        for (detail::link* l = e.readers_; l; l = l->next)
            if (l->owner->owner_->env_ != this) [[unlikely]]
                detail::across_environments(*this, *l->owner->owner_->env_, "reaction", l->owner->name_, what);
    };
    for (detail::element* e = first_element_; e; e = e->next_global_) check_readers(*e);
    check_readers(startup_);
    check_readers(shutdown_);
}

inline status basic_environment::assemble_graph() noexcept {
    if constexpr (detail::check_links_across_environments) check_foreign_links();
    if (decl_error_) return decl_error_;
    if (reaction_count_ > max_reactions_)
        return error{errc::full, "environment", cfg_.name, max_reactions_, "too many reactions"};
    for (detail::reactor_node* r = first_reactor_; r; r = r->next_global_)
        if (r->first_mode_ && !r->current_mode_)
            return error{errc::invalid, "reactor", r->name_, 0, "has modes but no initial mode"};
    std::size_t timers = 0;
    bool timer_only = true;
    for (detail::element* e = first_element_; e; e = e->next_global_) {
        auto k = e->kind_;
        if (k == detail::element_kind::input || k == detail::element_kind::output) {
            auto* p = static_cast<detail::port_node*>(e);
            detail::port_node* o = p;
            while (o->upstream_) o = o->upstream_;
            p->origin_ = o;
        }
        if (k == detail::element_kind::timer) ++timers;
        if (k == detail::element_kind::logical_action || k == detail::element_kind::physical_action ||
            k == detail::element_kind::delay || k == detail::element_kind::reset)
            timer_only = false;
    }
    if (timer_only && timers > queue_.capacity())
        return error{errc::overflow, "environment", cfg_.name, queue_.capacity(),
                     "event queue has fewer slots than timers"};

    // (3) Kahn: by_rank_ doubles as the FIFO of the topological order.
    const std::uint32_t n = reaction_count_;
    for (auto* r = first_reaction_; r; r = r->next_global_) { r->pending_preds_ = 0; r->level_ = 0; }
    for (auto* r = first_reaction_; r; r = r->next_global_)
        for_each_successor(*r, [](detail::reaction_node& s) { ++s.pending_preds_; });
    std::uint32_t tail = 0;
    for (auto* r = first_reaction_; r; r = r->next_global_)
        if (r->pending_preds_ == 0) by_rank_[tail++] = r;
    for (std::uint32_t head = 0; head < tail; ++head) {
        detail::reaction_node* r = by_rank_[head];
        for_each_successor(*r, [&](detail::reaction_node& s) {
            if (s.level_ < r->level_ + 1) s.level_ = r->level_ + 1;
            if (--s.pending_preds_ == 0) by_rank_[tail++] = &s;
        });
    }
    if (tail != n) {
        report_cycle();
        return error{errc::cycle, "environment", cfg_.name, 0, cycle_text_};
    }
    // (4) only with deadlines (else every inferred deadline stays "none").
    if (infer_deadlines_) infer_deadlines_(*this);
    // (5) insertion sort: assembly runs once and n is small.
    auto before = [](const detail::reaction_node* a, const detail::reaction_node* b) {
        if (a->level_ != b->level_) return a->level_ < b->level_;
        if (a->inferred_deadline_ != b->inferred_deadline_) return a->inferred_deadline_ < b->inferred_deadline_;
        return a->index_ < b->index_;
    };
    for (std::uint32_t i = 1; i < n; ++i) {
        detail::reaction_node* x = by_rank_[i];
        std::uint32_t j = i;
        for (; j > 0 && before(x, by_rank_[j - 1]); --j) by_rank_[j] = by_rank_[j - 1];
        by_rank_[j] = x;
    }
    levels_ = 0;
    for (std::uint32_t i = 0; i < n; ++i) {
        by_rank_[i]->rank_ = i;
        if (by_rank_[i]->level_ + 1 > levels_) levels_ = by_rank_[i]->level_ + 1;
    }
    // (6) the tables the scheduler loop reads instead of the graph. The
    // ready words start uninitialised: each reaction's word is zeroed here,
    // and the set scans no further than the last one.
    ready_.limit(detail::ready_set::words_for(n));
    for (auto* r = first_reaction_; r; r = r->next_global_) {
        *ready_.word_of(r->rank_) = 0;
        for (std::uint8_t i = 0; i < r->link_count_; ++i) {
            detail::link& l = r->links_[i];
            l.ready_word = ready_.word_of(r->rank_);
            l.ready_bit = l.kind == detail::role::trigger ? detail::ready_set::bit_of(r->rank_) : 0;
        }
        detail::rank_entry& h = hot_[r->rank_];
        // A reaction with a mode or a deadline gets a body that runs the
        // checks first, so the loop itself never branches on them.
        // (checked_body_ is set whenever a mode or a deadline exists.)
        if (r->mode_ || r->deadline_ >= 0) checked_body_(*this, h, *r);
        else h.body = r->body_;
        h.level = r->level_;
    }
    for (detail::element* e = first_element_; e; e = e->next_global_) {
        if (e->kind_ != detail::element_kind::input && e->kind_ != detail::element_kind::output) continue;
        auto* p = static_cast<detail::port_node*>(e);
        if (!p->upstream_) plan_set(*p);
    }
    return {};
}

// Assembly step (4), reached through infer_deadlines_, which the first
// deadline installs: programs without deadlines do not link it.
inline void basic_environment::infer_deadlines() noexcept {
    // Reverse topological order (by_rank_ holds Kahn's order here):
    // successors are final before r.
    for (std::uint32_t i = reaction_count_; i-- > 0;) {
        detail::reaction_node* r = by_rank_[i];
        std::int64_t d = r->deadline_ >= 0 ? r->deadline_ : INT64_MAX;
        for_each_successor(*r, [&](detail::reaction_node& s) {
            if (s.inferred_deadline_ < d) d = s.inferred_deadline_;
        });
        r->inferred_deadline_ = d;
    }
}

// Each input has one upstream, so the zero-delay connections from an
// origin form a tree. When that tree holds exactly one trigger link and no
// `after` (whose value arrives later), setting the origin is one mark
// through the link's word and bit, copied into the port.
inline void basic_environment::plan_set(detail::port_node& origin) noexcept {
    // 1 per trigger link, 2 per `after`: exactly 1 is the one-mark case.
    unsigned weight = 0;
    auto collect = [&](auto& self, detail::port_node& p) -> void {
        for (detail::link* l = p.readers_; l; l = l->next)
            if (l->kind == detail::role::trigger) {
                origin.mark_word_ = l->ready_word;
                origin.mark_bit_ = l->ready_bit;
                ++weight;
            }
        for (detail::port_node* d = p.first_down_; d; d = d->next_down_) {
            if (d->on_set_) weight += 2;
            else self(self, *d);
        }
    };
    collect(collect, origin);
    origin.set_slow_ = weight != 1;
}

// Every reaction left by Kahn has an unprocessed predecessor, so walking
// predecessors from any of them must revisit a node: that loop is a cycle.
// The walk uses rank_ as a visit stamp and by_rank_ (free now) as the path.
inline void basic_environment::report_cycle() noexcept {
    // One pass records each left reaction's first predecessor (in
    // declaration order) in batch_ (free until the program runs), indexed
    // by declaration: the walk is then a pointer chase.
    detail::reaction_node* x = nullptr;
    for (auto* r = first_reaction_; r; r = r->next_global_) {
        r->rank_ = 0;
        batch_[r->index_] = nullptr;
        if (!x && r->pending_preds_ > 0) x = r;
    }
    for (auto* y = first_reaction_; y; y = y->next_global_)
        if (y->pending_preds_ > 0)
            for_each_successor(*y, [this, y](detail::reaction_node& s) {
                if (!batch_[s.index_]) batch_[s.index_] = y;
            });
    // x is set (Kahn left a reaction), and a left reaction's predecessor
    // is left too (it never released it).
    std::uint32_t len = 0;
    while (!x->rank_) {
        x->rank_ = ++len;
        by_rank_[len - 1] = x;
        x = batch_[x->index_];
    }
    // Path v0 <- v1 <- ... <- v(len-1) <- x, with x = v(x->rank_ - 1):
    // print the cycle in dependency order from x, i.e. x, then v(len-1)
    // down to v(x->rank_ - 1) = x. Appended by hand, not with snprintf: on
    // a board that would link a printf and its 64-bit division (~1.7 KB)
    // into every reactor program for a message that only a wrong program
    // ever produces.
    weft::detail::bounded_text text{cycle_text_, sizeof cycle_text_};
    text.put("causality cycle:");
    const char* sep = " ";
    for (std::uint32_t i = len + 1; i-- >= x->rank_;) {
        const detail::reaction_node* r = i == len ? x : by_rank_[i];
        text.put(sep).put(r->owner_->name_).put(".").put(r->name_);
        sep = " -> ";
    }
    // Full: the cycle was cut (or fits exactly); say so rather than end
    // in the middle of a name.
    if (text.full()) text.mark_cut();
}

inline result<std::size_t> basic_environment::event_queue_bound() noexcept {
    status s = assemble();
    if (!s) return s.err();
    std::size_t timers = 0;
    for (detail::element* e = first_element_; e; e = e->next_global_) {
        auto k = e->kind_;
        if (k == detail::element_kind::logical_action || k == detail::element_kind::physical_action ||
            k == detail::element_kind::delay || k == detail::element_kind::reset)
            return error{errc::invalid, "environment", cfg_.name, 0,
                         "no static event-queue bound: program schedules actions"};
        if (k == detail::element_kind::timer) ++timers;
    }
    return timers;
}

}  // namespace weft::reactors
