// SPDX-License-Identifier: Apache-2.0
#pragma once
// reaction: a body with declared dependencies.
//
//   reaction r{*this, "name",
//              on(trigger...),          // runs when any of these is present
//              reads(source...),        // may read these, never triggered by them
//              writes(effect...),       // may set these ports / schedule these actions
//              [this] { ... },          // the body (captures `this` only)
//              deadline(1ms, [this] { ... })};  // optional
//
// on() is required; reads() and writes() are optional and may come in any
// order before the body. Declaration order within a reactor is execution
// order within a tag (assembly adds that dependency).
#include <weft/reactor/deadline.hpp>
#include <weft/reactor/detail/runtime.hpp>
#include <weft/reactor/reactor.hpp>

#include <concepts>
#include <cstddef>
#include <type_traits>

namespace weft::reactors {

/// A list of elements with one role; built by on(), reads(), writes().
template <std::size_t N>
struct dep_list {
    detail::element* items[N == 0 ? 1 : N];
    detail::role kind;
};

namespace detail {
template <class T> struct is_dep_list : std::false_type {};
template <std::size_t N> struct is_dep_list<dep_list<N>> : std::true_type {};
template <class T>
concept reaction_arg_body = !is_dep_list<std::decay_t<T>>::value &&
                            !std::is_same_v<std::decay_t<T>, deadline_spec> &&
                            std::invocable<std::decay_t<T>&>;
}  // namespace detail

/// Triggers of a reaction (ports, timers, actions, startup, shutdown, mode resets).
template <class... E>
dep_list<sizeof...(E)> on(E&... e) noexcept { return {{static_cast<detail::element*>(&e)...}, detail::role::trigger}; }
/// Sources: read but do not trigger.
template <class... E>
dep_list<sizeof...(E)> reads(E&... e) noexcept { return {{static_cast<detail::element*>(&e)...}, detail::role::source}; }
/// Effects: ports the reaction sets and actions it schedules.
template <class... E>
dep_list<sizeof...(E)> writes(E&... e) noexcept { return {{static_cast<detail::element*>(&e)...}, detail::role::effect}; }

namespace detail {
// The parts of declaring a reaction that do not depend on its argument
// types, out of line: a program has one copy of them instead of one per
// reaction signature and per dependency count (static construction is
// the bulk of a small program's reactor code on a board).

/// Chains `n` dependencies of role `kind` into the reaction's link slots
/// (room for `capacity`); too many is a declaration error.
[[gnu::noinline]] inline void add_links(reaction_node& r, link* slots, std::size_t capacity,
                                        element* const* items, std::size_t n, role kind) noexcept {
    for (std::size_t i = 0; i < n; ++i) {
        if (r.link_count_ == capacity) {
            r.owner_->env_->declaration_error(error{errc::full, "reaction", r.name_, capacity,
                                                    "too many dependencies"});
            return;
        }
        link& l = slots[r.link_count_++];
        l.target = items[i];
        l.owner = &r;
        l.kind = kind;
        l.ready_word = &ready_sink;  // until assembly: marks change nothing
        l.ready_bit = 0;
        link*& head = kind == role::effect ? l.target->writers_ : l.target->readers_;
        l.next = head;
        head = &l;
    }
}

/// Names the reaction and points it at its link slots (before the arguments).
inline void begin_reaction(reaction_node& r, place where, const char* name,
                           link* slots) noexcept {
    r.name_ = name;
    r.owner_ = where.owner;
    r.mode_ = where.mode;
    r.links_ = slots;
}

/// A deadline below zero: a declaration error naming the reaction. Out of
/// line and cold: programs with deadlines carry one copy of it.
[[gnu::noinline, gnu::cold]] inline void negative_deadline(reaction_node& r) noexcept {
    r.owner_->env_->declaration_error(error{errc::invalid, "reaction", r.name_, 0, "negative deadline"});
}

/// Appends the reaction to its reactor's and its environment's lists.
[[gnu::noinline]] inline void end_reaction(reaction_node& r) noexcept {
    reactor_node& o = *r.owner_;
    if (o.last_reaction_) o.last_reaction_->next_in_reactor_ = &r; else o.first_reaction_ = &r;
    o.last_reaction_ = &r;
    o.env_->register_reaction(r);
}
}  // namespace detail

/// A reaction with room for `Links` declared dependencies in total.
template <std::size_t Links>
class basic_reaction : public detail::reaction_node {
public:
    template <class... Args>
    basic_reaction(detail::place where, const char* name, Args&&... args) noexcept {
        // At compile time: a run-time check cost a string and a fatal path
        // in every program, for a mistake the compiler can see.
        static_assert((0 + ... + int(detail::reaction_arg_body<Args>)) == 1,
                      "a weft reaction needs exactly one body among its arguments (a lambda "
                      "capturing `this`, beside on(...), reads(...), writes(...), deadline(d, handler))");
        detail::begin_reaction(*this, where, name, links_storage_);
        (absorb(static_cast<Args&&>(args)), ...);
        detail::end_reaction(*this);
    }
    basic_reaction(const basic_reaction&) = delete;
    basic_reaction& operator=(const basic_reaction&) = delete;

    const char* name() const noexcept { return name_; }
    /// The deadline, or a negative duration if none.
    duration deadline_bound() const noexcept { return duration{deadline_}; }

private:
    template <std::size_t N>
    void absorb(const dep_list<N>& d) noexcept {
        static_assert(N <= Links, "too many dependencies for this reaction: use basic_reaction<N>");
        detail::add_links(*this, links_storage_, Links, d.items, N, d.kind);
    }
    void absorb(deadline_spec d) noexcept {
        owner_->env_->enable_checked_bodies();
        owner_->env_->enable_deadline_inference();
        // Refused like any negative delay (timers, actions, `after`): cut
        // to 0 in silence, it would make a typo an always-missed deadline.
        if (d.bound.count() < 0) detail::negative_deadline(*this);
        deadline_ = d.bound.count() < 0 ? 0 : d.bound.count();
        handler_ = d.handler;
    }
    template <detail::reaction_arg_body F>
    void absorb(F&& f) noexcept { body_ = detail::callback(static_cast<F&&>(f)); }

    detail::link links_storage_[Links];  // the first link_count_ are in use
};

/// The usual reaction: up to 8 dependencies.
using reaction = basic_reaction<8>;

}  // namespace weft::reactors
