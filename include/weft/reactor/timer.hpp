// SPDX-License-Identifier: Apache-2.0
#pragma once
// timer(offset, period): present at logical times offset, offset + period,
// offset + 2 period, ... (microstep 0); period 0 means once. A timer keeps
// exactly one event queued, which is why a program driven only by timers
// has an event-queue bound known at assembly (one per timer).
//
// In a mode, a timer is suspended while the mode is inactive; a reset
// transition restarts it at (transition time + offset), a history
// transition resumes it with the delay that remained.
#include <weft/reactor/detail/runtime.hpp>
#include <weft/reactor/reactor.hpp>

namespace weft::reactors {

/// A periodic (or one-shot) trigger.
class timer : public detail::timer_node {
public:
    timer(detail::place where, const char* name, duration offset = duration{0},
          duration period = duration{0}) noexcept {
        offset_ = offset.count();
        period_ = period.count();
        detail::init_element(*this, where, name, detail::element_kind::timer);
        start_ = &on_start;
        if (offset_ < 0 || period_ < 0)  // logical time does not run backwards (LF forbids them too)
            owner_->env_->declaration_error(error{errc::invalid, "timer", name, 0, "negative offset or period"});
    }
    timer(const timer&) = delete;
    timer& operator=(const timer&) = delete;

    const char* name() const noexcept { return name_; }
    duration offset() const noexcept { return duration{offset_}; }
    duration period() const noexcept { return duration{period_}; }
    /// Present at the current tag?
    bool is_present() const noexcept { return owner_->env_->is_present(*this); }

private:
    // At start the first event is at (offset, 0), together with startup;
    // on a reset transition at tag t it is t + offset (next microstep if 0).
    static void on_start(detail::element* e) noexcept {
        auto* t = static_cast<timer*>(e);
        basic_environment& env = *t->owner_->env_;
        tag now = env.current_tag();
        tag first = env.stamp() == 1 ? tag{t->offset_, 0} : delay_tag(now, duration{t->offset_});
        (void)env.post(*t, first, 0);
    }
};

}  // namespace weft::reactors
