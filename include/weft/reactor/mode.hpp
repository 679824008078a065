// SPDX-License-Identifier: Apache-2.0
#pragma once
// Modes (LF modal reactors). A reactor with modes is in exactly one of
// them at a time; elements declared in a mode (reactions, timers, actions,
// nested reactors, reset_state) take part only while it is active.
//
//   struct parser : reactor {
//       mode read_sync{*this, "ReadSync", initial};
//       mode read_length{*this, "ReadLength"};
//       reaction find{read_sync, "find", on(byte), [this] { ... set_mode(read_length); }};
//   };
//
// Transitions are requested by a reaction and take effect at the end of
// the tag (every reaction of the tag sees the old mode):
//
//                 (1) set_mode(b, reset)
//     mode a ────────────────────────────────> mode b, as if new: nested modal
//       │                                       reactors back to their initial mode,
//       │                                       timers restart at t + offset, reset_state
//       │                                       restored, pending events of b dropped,
//       │                                       b.on_reset() present at (t, m + 1)
//       │         (2) set_mode(b, history)
//       └────────────────────────────────────> mode b as it was left: its suspended
//                                               events resume with their remaining
//                                               delay (first entry: as reset)
//     (3) leaving a: a's pending events are suspended with their remaining delay.
#include <weft/core/detail/bounded_text.hpp>
#include <weft/reactor/detail/mode_switch.hpp>
#include <weft/reactor/detail/runtime.hpp>
#include <weft/reactor/reactor.hpp>

#include <utility>

namespace weft::reactors {

namespace detail {
/// A reactor with two initial modes: a declaration error naming it (the
/// later one would win in silence, and the earlier one would still count
/// as entered, so a history transition would skip its reset).
[[gnu::noinline, gnu::cold]] inline void second_initial_mode(reactor_node& r) noexcept {
    r.env_->declaration_error(error{errc::invalid, "reactor", r.name_, 1, "has two initial modes"});
}
/// Stops the program: set_mode() with a mode of another reactor. Names
/// the mode and both reactors, without printf (boards do not link it).
[[noreturn, gnu::noinline, gnu::cold]] inline void foreign_mode(const reactor_node& caller,
                                                              const mode_node& m) noexcept {
    char text[128];
    weft::detail::bounded_text{text, sizeof text}
        .put("weft: reactor '")
        .put(caller.name_)
        .put("': set_mode() with mode '")
        .put(m.name_)
        .put("' of reactor '")
        .put(m.owner_->name_)
        .put("'");
    port::fatal(text);
}
}  // namespace detail

/// Marks a reactor's initial mode: `mode m{*this, "name", initial};`.
struct initial_t { explicit initial_t() = default; };
inline constexpr initial_t initial{};

/// A mode of the reactor that declares it.
class mode : public detail::mode_node {
public:
    mode(reactor& owner, const char* name) noexcept { init(owner, name); }
    mode(reactor& owner, const char* name, initial_t) noexcept {
        // Checked before init() links this mode: the reactor's current
        // mode is then still the first initial one, if any.
        if (owner.current_mode_) detail::second_initial_mode(owner);
        init(owner, name);
        initial_ = true;
        entered_ = true;
        // Active at startup unless it is nested in a mode that is not.
        started_ = !owner.mode_ || owner.mode_->started_;
        owner.current_mode_ = this;
    }
    mode(const mode&) = delete;
    mode& operator=(const mode&) = delete;

    /// Elements declared "in" a mode: `timer t{my_mode, "t", 0ms, 1ms};`.
    operator detail::place() noexcept { return {owner_, this}; }  // NOLINT: implicit

    const char* name() const noexcept { return name_; }
    /// Is this mode (and every mode around it) current?
    bool active() const noexcept { return detail::mode_active(this); }
    /// The reset trigger (LF `reaction(reset)`): present one microstep
    /// after a reset transition into this mode. Not at start for the
    /// initial mode (no transition led there): a reaction for every entry
    /// of it is `on(startup(), m.on_reset())`.
    detail::element& on_reset() noexcept { return reset_; }

private:
    void init(reactor& owner, const char* name) noexcept {
        owner.env_->enable_checked_bodies();
        owner.env_->enable_mode_suspension();
        name_ = name;
        owner_ = &owner;
        mode_node** p = &owner.first_mode_;
        while (*p) p = &(*p)->next_;
        *p = this;
        reset_trigger_ = &reset_;
        detail::init_element(reset_, detail::place{&owner, this}, name, detail::element_kind::reset);
        reset_.fire_ = [](detail::element* e, std::uint16_t) noexcept {
            e->owner_->env_->make_present(*e);
            if (e->mode_->startup_due_) e->owner_->env_->start_mode(*e->mode_);
        };
    }
    detail::element reset_;  // init_element in the constructor
};

inline void basic_environment::enable_mode_suspension() noexcept {
    suspend_inactive_ = [](basic_environment& env, detail::element& e, const tag& at, std::uint16_t slot) noexcept {
        return env.suspend_event(e, at, slot, *e.mode_);
    };
}

inline void reactor::set_mode(mode& m, transition t) noexcept {
    if (m.owner_ != this) [[unlikely]] detail::foreign_mode(*this, m);
    env_->request_mode(*this, m, t == transition::history);
}

/// A state variable restored to its initial value by a reset transition
/// into the mode that contains it (LF `reset state`). Declared in a mode,
/// or in a reactor nested in one. Not copyable.
template <class T>
class reset_state : detail::resettable {
public:
    reset_state(detail::place where, T initial_value) noexcept
        : value_(initial_value), initial_(std::move(initial_value)) {
        mode_ = where.mode;
        reset_ = [](detail::resettable* s) noexcept {
            auto* self = static_cast<reset_state*>(s);
            self->value_ = self->initial_;
        };
        where.owner->env_->register_resettable(*this);
    }
    reset_state(const reset_state&) = delete;
    reset_state& operator=(const reset_state&) = delete;

    T& get() noexcept { return value_; }
    const T& get() const noexcept { return value_; }
    reset_state& operator=(T v) noexcept { value_ = std::move(v); return *this; }
    operator const T&() const noexcept { return value_; }  // NOLINT: reads like the value

private:
    T value_;
    T initial_;
};

}  // namespace weft::reactors
