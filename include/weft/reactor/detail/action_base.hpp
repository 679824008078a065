// SPDX-License-Identifier: Apache-2.0
#pragma once
// What logical and physical actions share: minimum delay, minimum spacing
// and its policy, and the bookkeeping of the last scheduled event that the
// spacing policies need. Executor thread only (physical actions reach this
// from their drain, never from the interrupt).
#include <weft/reactor/detail/runtime.hpp>

namespace weft::reactors {

/// What happens to an event scheduled closer than min_spacing to the
/// previous one (LF's policies; defer is the default).
enum class spacing_policy : std::uint8_t {
    defer,    ///< move it to previous time + min_spacing
    drop,     ///< discard it
    replace,  ///< give its value to the previous event if still pending, else defer
    update    ///< cancel the previous event if still pending and keep this one, else defer
};

namespace detail {

class action_base : public element {
public:
    duration min_delay() const noexcept { return duration{min_delay_}; }
    duration min_spacing() const noexcept { return duration{min_spacing_}; }
    spacing_policy policy() const noexcept { return policy_; }
    /// Events dropped (spacing policy `drop`, a physical action's full
    /// buffer, or one scheduled after the program finished: one count for
    /// all; the last two are also reported as errors naming the action).
    /// Under the port's critical section, as the increments are: a
    /// physical action's are made on the scheduling thread.
    std::uint32_t dropped() const noexcept {
        port::critical_section cs;
        return dropped_;
    }

protected:
    action_base(duration min_delay, duration min_spacing, spacing_policy p) noexcept
        : min_delay_(min_delay.count()), min_spacing_(min_spacing.count()), policy_(p) {}

    /// Refuses a negative min delay or min spacing (LF forbids them; one
    /// would let an event land before the delay the action promises).
    /// Out of line: every action constructor calls it.
    [[gnu::noinline]] void check_delays(const char* kind) noexcept {
        if (min_delay_ < 0 || min_spacing_ < 0)
            owner_->env_->declaration_error(error{errc::invalid, kind, name_, 0, "negative min delay or min spacing"});
    }

    // How to treat a preliminary tag, after the spacing policy.
    enum class verdict : std::uint8_t { post, dropped, merged };

    /// Applies min spacing to `at`. `merged`: the value goes to the pending
    /// event `merge_slot` (replace policy, or same tag); `dropped`: nothing
    /// to do; `post`: queue at the (possibly deferred) `at`.
    verdict apply_spacing(tag& at, std::uint16_t& merge_slot) noexcept {
        basic_environment& env = *owner_->env_;
        if (min_spacing_ <= 0) {
            // Without a spacing, events of one action at one tag pile up in
            // superdense time: the new one takes the first free microstep
            // (LF's lf_schedule_trigger), so no value is lost. Only a tag up
            // to the latest one queued (last_, see commit) can be taken,
            // or one of an event resumed by a mode: otherwise no search.
            if (has_last_ && (at <= last_ || env.suspends_events())) at = env.free_microstep(*this, at);
            return verdict::post;
        }
        if (!has_last_ || at.time >= later(last_.time, min_spacing_)) return verdict::post;
        // Pending = still queued (not fired, not suspended by a mode).
        bool pending = last_pending_ && env.has_event(*this, last_, last_slot_);
        switch (policy_) {
            case spacing_policy::drop: {
                port::critical_section cs;  // physical_action::push counts too, on its own thread
                ++dropped_;
                return verdict::dropped;
            }
            case spacing_policy::replace:
                if (pending) { merge_slot = last_slot_; return verdict::merged; }
                break;
            case spacing_policy::update:
                if (pending) {
                    env.remove_event(*this, last_, last_slot_);
                    if (discard_) discard_(this, last_slot_);
                    if (at < last_) at = last_;
                    return verdict::post;
                }
                break;
            case spacing_policy::defer:
                break;
        }
        at = tag{later(last_.time, min_spacing_), 0};
        return verdict::post;
    }
    /// Queues the event and records it as the last one. False: the queue
    /// is full and the program stopped (basic_environment::post).
    bool commit(tag at, std::uint16_t slot) noexcept {
        if (!owner_->env_->post(*this, at, slot)) return false;
        // With a spacing, the last event scheduled (LF's last_tag); without
        // one, the latest tag ever queued (bounds the search for a free
        // microstep in apply_spacing).
        if (min_spacing_ > 0 || !has_last_ || last_ < at) last_ = at;
        last_slot_ = slot;
        has_last_ = true;
        last_pending_ = true;
        return true;
    }
    /// Called when an event of this action fires.
    void fired(tag at) noexcept { if (at == last_) last_pending_ = false; }

    std::int64_t min_delay_;
    std::int64_t min_spacing_;
    spacing_policy policy_;
    tag last_{};
    std::uint16_t last_slot_ = 0;
    bool has_last_ = false;
    bool last_pending_ = false;
    std::uint32_t dropped_ = 0;
};

}  // namespace detail
}  // namespace weft::reactors
