// SPDX-License-Identifier: Apache-2.0
#pragma once
// reactor: the unit of composition. Derive from it and declare ports,
// timers, actions, state, modes, nested reactors and reactions as members,
// in the order they should be considered (reactions of one reactor run in
// declaration order within a tag):
//
//   struct blink : weft::reactors::reactor {
//       using reactor::reactor;
//       timer tick{*this, "tick", 0ms, 500ms};
//       output<bool> led{*this, "led"};
//       bool on_ = false;
//       reaction toggle{*this, "toggle", on(tick), writes(led), [this] { led.set(on_ = !on_); }};
//   };
//
// Reactors are static objects (globals, or members of other reactors);
// they must outlive the environment's run and must not move.
#include <weft/reactor/detail/runtime.hpp>

namespace weft::reactors {

class mode;

/// Which kind of mode transition (LF `reset` / `history`).
enum class transition : std::uint8_t {
    reset,   ///< re-initialise the target mode: timers, reset state, nested modes
    history  ///< resume the target mode where it was left (remaining delays kept)
};

/// Where a reactor or element is declared: a reactor (`*this`) or a mode.
/// Take one in your reactor's constructor to make it nestable.
using place = detail::place;

/// Base class of every reactor. Not copyable, not movable.
class reactor : public detail::reactor_node {
public:
    /// A top-level reactor of `env`.
    reactor(basic_environment& env, const char* name) noexcept {
        name_ = name;
        env_ = &env;
        env.register_reactor(*this);
    }
    /// A reactor nested in `where` (a reactor, or a mode of one).
    reactor(detail::place where, const char* name) noexcept {
        name_ = name;
        env_ = where.owner->env_;
        parent_ = where.owner;
        mode_ = where.mode;
        env_->register_reactor(*this);
    }
    reactor(const reactor&) = delete;
    reactor& operator=(const reactor&) = delete;

    /// Elements declared directly in this reactor are active whenever the
    /// reactor is (its enclosing mode, if any, is active).
    operator detail::place() noexcept { return {this, mode_}; }  // NOLINT: implicit

    const char* name() const noexcept { return name_; }
    basic_environment& env() const noexcept { return *env_; }
    /// The tag being processed.
    tag current_tag() const noexcept { return env_->current_tag(); }
    /// Logical time since start.
    duration logical_time() const noexcept { return env_->logical_time(); }
    /// Physical time since start.
    duration physical_time() const noexcept { return env_->physical_time(); }
    /// Stops the program at the next microstep (LF lf_request_stop).
    void request_stop() noexcept { env_->request_stop(); }
    /// The startup trigger: present at the first tag.
    detail::element& startup() noexcept { return env_->startup(); }
    /// The shutdown trigger: present at the last tag.
    detail::element& shutdown() noexcept { return env_->shutdown(); }
    /// From a reaction of this reactor: switch to `m` (a mode of this
    /// reactor) at the end of the current tag. Defined in mode.hpp.
    void set_mode(mode& m, transition t = transition::reset) noexcept;
};

}  // namespace weft::reactors
