// SPDX-License-Identifier: Apache-2.0
#pragma once
// Connections between ports.
//
//   connect(a.out, b.in);                       // zero delay: same tag
//   after<int> link{*this, "link", a.out, b.in, 1ms};  // LF `a.out -> b.in after 1 ms`
//
// A zero-delay connection is a dependency: assembly orders the writer of
// a.out before the readers of b.in. An `after` is not: it is an action in
// disguise (the value reappears d later, or one microstep later for d = 0),
// which is how a feedback loop is made legal. An input has one upstream;
// a second connection is a declaration error reported by assemble().
#include <weft/reactor/detail/action_base.hpp>
#include <weft/reactor/detail/value_store.hpp>
#include <weft/reactor/port.hpp>

namespace weft::reactors {

namespace detail {
inline void link_ports(port_node& up, port_node& down) noexcept {
    // Programs exchange values through actions and channels, never ports.
    if (check_links_across_environments && up.owner_->env_ != down.owner_->env_) [[unlikely]] {
        across_environments(*up.owner_->env_, *down.owner_->env_, "port", down.name_,
                            "connected to a port of another environment");
        return;
    }
    if (down.upstream_) {
        up.owner_->env_->declaration_error(
            error{errc::invalid, "port", down.name_, 1, "has two upstream connections"});
        return;
    }
    down.upstream_ = &up;
    down.next_down_ = up.first_down_;
    up.first_down_ = &down;
}
}  // namespace detail

/// Connects `from` to `to` with zero delay: output -> input of a sibling,
/// input -> input of a contained reactor, output of a contained reactor ->
/// output. Call while declaring (constructors), before assemble().
template <class T>
void connect(detail::typed_port<T>& from, detail::typed_port<T>& to) noexcept {
    detail::link_ports(from, to);
}

/// A connection with a logical delay (LF `after`). Declare it as a member
/// of the reactor that contains both ends. `Slots` values may be in flight.
template <class T, std::size_t Slots = 4>
class after : public detail::action_base {
public:
    after(detail::place where, const char* name, detail::typed_port<T>& from,
          detail::typed_port<T>& to, duration delay) noexcept
        : action_base(duration{0}, duration{0}, spacing_policy::defer), delay_(delay) {
        detail::init_element(*this, where, name, detail::element_kind::delay);
        detail::init_element(in_, where, name, detail::element_kind::input);
        detail::init_element(out_, where, name, detail::element_kind::output);
        fire_ = &on_fire;
        discard_ = &on_discard;
        in_.on_set_ = &on_set;
        in_.self = this;
        detail::link_ports(from, in_);
        detail::link_ports(out_, to);
        if (delay.count() < 0)  // LF forbids it; it would deliver before the delay
            owner_->env_->declaration_error(error{errc::invalid, "after", name, 0, "negative delay"});
    }
    after(const after&) = delete;
    after& operator=(const after&) = delete;

    duration delay() const noexcept { return delay_; }

private:
    struct entry_port : detail::typed_port<T> {
        after* self = nullptr;
    };
    // A value arrived upstream: queue it d later (guarded: may run on a worker).
    static void on_set(detail::port_node* p) noexcept {
        auto* a = static_cast<after*>(static_cast<entry_port*>(p)->self);
        basic_environment& env = *a->owner_->env_;
        basic_environment::guard g{env};
        const T& v = a->in_.get();
        // Set again in the same tag: the event sent already takes the new
        // value (one message per source tag, the last one, as LF's delay
        // reaction sends). From another tag, an event that lands on a tag
        // already taken (sources at two microsteps of one time, d > 0)
        // goes to the next microstep (apply_spacing), as LF's does.
        if (a->sent_stamp_ == env.stamp()) {
            a->store_.replace(a->last_slot_, v);
            return;
        }
        tag at = delay_tag(env.current_tag(), a->delay_);
        std::uint16_t merge = 0;
        (void)a->apply_spacing(at, merge);  // no spacing: post, never merged
        std::uint16_t slot = a->store_.put(v);
        if (slot == detail::value_store<T, Slots>::none) {
            env.fail(error{errc::full, "after", a->name_, Slots, "values in flight"});
            return;
        }
        if (!a->commit(at, slot)) {
            a->store_.discard(slot);
            return;
        }
        a->sent_stamp_ = env.stamp();
    }
    static void on_fire(detail::element* e, std::uint16_t slot) noexcept {
        auto* a = static_cast<after*>(e);
        a->store_.take(slot);
        a->fired(a->owner_->env_->current_tag());
        a->out_.value_ = a->store_.current();
        a->owner_->env_->set_port(a->out_);
    }
    static void on_discard(detail::element* e, std::uint16_t slot) noexcept {
        static_cast<after*>(e)->store_.discard(slot);
    }

    duration delay_;
    std::uint64_t sent_stamp_ = 0;  // the tag (environment stamp) of the last event sent
    entry_port in_;
    detail::typed_port<T> out_;
    detail::value_store<T, Slots> store_;
};

}  // namespace weft::reactors
