// SPDX-License-Identifier: Apache-2.0
#pragma once
// Mode transitions, applied at the end of a tag (numbers refer to the
// diagram in mode.hpp). Suspended events live in an array as large as the
// event queue, with their remaining delay in place of their tag.
#include <weft/reactor/detail/runtime.hpp>

namespace weft::reactors {

inline void basic_environment::request_mode(detail::reactor_node& r, detail::mode_node& m,
                                            bool history) noexcept {
    guard g{*this};
    apply_modes_ = [](basic_environment& env) noexcept { env.apply_mode_changes(); };
    bool queued = r.pending_mode_ != nullptr;
    r.pending_mode_ = &m;
    r.pending_history_ = history;
    if (queued) return;
    // Keep the list in declaration order: outer reactors switch first.
    detail::reactor_node** p = &pending_modes_;
    while (*p && (*p)->index_ < r.index_) p = &(*p)->next_pending_;
    r.next_pending_ = *p;
    *p = &r;
}

inline void basic_environment::apply_mode_changes() noexcept {
    while (detail::reactor_node* r = pending_modes_) {
        pending_modes_ = r->next_pending_;
        r->next_pending_ = nullptr;
        switch_mode(*r);
    }
}

inline void basic_environment::switch_mode(detail::reactor_node& r) noexcept {
    detail::mode_node* to = r.pending_mode_;
    bool history = r.pending_history_;
    r.pending_mode_ = nullptr;
    // An outer transition this tag may have deactivated r: it stays put.
    if (!to || !detail::mode_active(r.mode_)) return;
    detail::mode_node* from = r.current_mode_;
    if (from == to && history) return;
    suspend_events(*from);  // (3)
    r.current_mode_ = to;
    if (history && to->entered_) enter_history(*to);  // (2)
    else enter_reset(*to);                            // (1)
    to->entered_ = true;
}

inline void basic_environment::suspend_events(detail::mode_node& leaving) noexcept {
    queue_.extract_if([&](detail::event& ev) {
        if (!ev.target->mode_ || !detail::mode_within(ev.target->mode_, &leaving)) return false;
        (void)suspend_event(*ev.target, ev.at, ev.slot, leaving);
        return true;
    });
}

inline void basic_environment::enter_reset(detail::mode_node& m) noexcept {
    // Pending events of the mode (suspended when it was left) are dropped.
    std::size_t w = 0;
    for (std::size_t i = 0; i < suspended_count_; ++i) {
        detail::event& s = suspended_[i];
        if (detail::mode_within(s.target->mode_, &m)) {
            if (s.target->discard_) s.target->discard_(s.target, s.slot);
        } else {
            suspended_[w++] = s;
        }
    }
    suspended_count_ = w;
    // Nested modal reactors restart in their initial mode.
    for (detail::reactor_node* x = first_reactor_; x; x = x->next_global_) {
        if (!x->first_mode_ || !x->mode_ || !detail::mode_within(x->mode_, &m)) continue;
        for (detail::mode_node* k = x->first_mode_; k; k = k->next_) {
            if (k->initial_) x->current_mode_ = k;
            k->entered_ = k->initial_;
        }
        x->pending_mode_ = nullptr;
    }
    for (detail::resettable* s = resettables_; s; s = s->next_)
        if (s->mode_ && detail::mode_within(s->mode_, &m)) s->reset_(s);
    tag next = delay_tag(now_, duration{0});
    for (detail::element* e = first_element_; e; e = e->next_global_) {
        if (!e->mode_ || !detail::mode_within(e->mode_, &m) || !detail::mode_active(e->mode_)) continue;
        if (e->start_) e->start_(e);  // timers restart at now + offset
        if (e->kind_ != detail::element_kind::reset) continue;
        // A first entry runs the mode's startup reactions with its reset
        // reactions (LF), also for nested modes that become active now.
        detail::mode_node& em = *e->mode_;
        em.startup_due_ = !em.started_ && has_startup_reactions(em);
        em.started_ = true;
        if (e->readers_ || em.startup_due_) (void)post(*e, next, 0);
    }
}

inline bool basic_environment::has_startup_reactions(const detail::mode_node& m) const noexcept {
    for (const detail::link* l = startup_.readers_; l; l = l->next)
        if (l->kind == detail::role::trigger && l->owner->mode_ == &m) return true;
    return false;
}

inline void basic_environment::start_mode(detail::mode_node& m) noexcept {
    m.startup_due_ = false;
    for (detail::link* l = startup_.readers_; l; l = l->next)
        if (l->kind == detail::role::trigger && l->owner->mode_ == &m)
            detail::ready_set::mark(*l->ready_word, l->ready_bit, parallel_);
}

// LF: at the last tag, the shutdown reactions of every mode that was ever
// active run, whether or not it is active then.
inline bool basic_environment::runs_at_shutdown(const detail::reaction_node& r) const noexcept {
    if (!is_present(shutdown_) || !r.mode_->started_) return false;
    for (std::uint8_t i = 0; i < r.link_count_; ++i)
        if (r.links_[i].target == &shutdown_ && r.links_[i].kind == detail::role::trigger) return true;
    return false;
}

inline void basic_environment::enter_history(detail::mode_node& m) noexcept {
    (void)m;  // every suspended event that is active again resumes
    std::size_t w = 0;
    for (std::size_t i = 0; i < suspended_count_; ++i) {
        detail::event s = suspended_[i];
        if (!detail::mode_active(s.target->mode_)) { suspended_[w++] = s; continue; }
        tag at = s.at.time > 0 ? tag{later(now_.time, s.at.time), s.at.microstep} : delay_tag(now_, duration{0});
        // Events of one element that come back at one tag (two scheduled
        // for one tag while the mode was inactive, or suspended at
        // different tags with the same delay left) pile up in microsteps,
        // in the order they were suspended, as new ones do (apply_spacing):
        // both fired in one tag, the first value was lost.
        (void)post(*s.target, free_microstep(*s.target, at), s.slot);
    }
    suspended_count_ = w;
}

}  // namespace weft::reactors
