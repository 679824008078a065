// SPDX-License-Identifier: Apache-2.0
#pragma once
// Actions: events a reactor schedules for itself.
//
// logical_action<T, Slots>(min_delay, min_spacing, policy): schedule(v, d)
// from a reaction puts an event at current logical time + min_delay + d
// (one microstep later if that sum is zero).
//
// physical_action<T, Slots>(min_delay, min_spacing, policy): schedule(v, d)
// may be called from an interrupt, a foreign thread or a task; the event's
// time is the physical time of the call + min_delay + d. The call only
// appends to a bounded buffer (Slots entries) and wakes the scheduler,
// which tags the event and applies min spacing on its own thread.
//
// Slots is the number of values that may be pending at once (and, for
// physical actions, the size of the interrupt buffer). Running out stops
// the program with an error naming the action and the limit.
#include <weft/port/port.hpp>
#include <weft/reactor/detail/action_base.hpp>
#include <weft/reactor/detail/value_store.hpp>
#include <weft/reactor/reactor.hpp>

#include <type_traits>
#include <utility>

namespace weft::reactors {

namespace detail {
// The executor-thread part shared by both kinds: spacing, slots, queue.
template <class T, std::size_t Slots>
class action_core : public action_base {
public:
    bool is_present() const noexcept { return owner_->env_->is_present(*this); }
    /// The value of the event present at this tag.
    template <class U = T>
    requires(!std::is_void_v<U>)
    const U& get() const noexcept { return store_.current(); }

protected:
    action_core(place where, const char* name, element_kind k, duration d, duration s,
                spacing_policy p) noexcept
        : action_base(d, s, p) {
        init_element(*this, where, name, k);
        fire_ = &on_fire;
        discard_ = &on_discard;
        check_delays(kind_name(k));
    }
    // Schedules at preliminary tag `at`; `args` is the value (none for void).
    template <class... V>
    status place_event(tag at, V&&... value) noexcept {
        std::uint16_t merge = 0;
        switch (apply_spacing(at, merge)) {
            case verdict::dropped: return {};
            case verdict::merged:
                if constexpr (sizeof...(V) > 0) store_.replace(merge, std::forward<V>(value)...);
                return {};
            case verdict::post: break;
        }
        std::uint16_t slot = store_.put(std::forward<V>(value)...);
        if (slot == value_store<T, Slots>::none) return slots_full();
        if (commit(at, slot)) return {};
        store_.discard(slot);
        return owner_->env_->overflow_error(*this, at);
    }
    // Every value slot holds an event: the program stops with this error,
    // naming the action by its kind as every other message does (a
    // physical action's drain reaches this too: "physical action 'p'").
    [[gnu::cold, gnu::noinline]] error slots_full() noexcept {
        error e{errc::full, detail::kind_name(kind_), name_, Slots, "value slots full"};
        owner_->env_->fail(e);
        return e;
    }

private:
    static void on_fire(element* e, std::uint16_t slot) noexcept {
        auto* a = static_cast<action_core*>(e);
        a->store_.take(slot);
        a->fired(a->owner_->env_->current_tag());
        a->owner_->env_->make_present(*a);
    }
    static void on_discard(element* e, std::uint16_t slot) noexcept {
        static_cast<action_core*>(e)->store_.discard(slot);
    }

    value_store<T, Slots> store_;
};
}  // namespace detail

/// An action scheduled from reactions of its reactor, on logical time.
template <class T = void, std::size_t Slots = 4>
class logical_action : public detail::action_core<T, Slots> {
public:
    logical_action(detail::place where, const char* name, duration min_delay = duration{0},
                   duration min_spacing = duration{0}, spacing_policy p = spacing_policy::defer) noexcept
        : detail::action_core<T, Slots>(where, name, detail::element_kind::logical_action, min_delay,
                                        min_spacing, p) {}

    /// From a reaction that declared this action in writes(): an event at
    /// now + min_delay + extra (a negative extra counts as zero; an event
    /// already at that tag: the next free microstep). Errors (queue or
    /// slots full) also stop the program.
    template <class U = T>
    requires(!std::is_void_v<U>)
    status schedule(U value, duration extra = duration{0}) noexcept {
        basic_environment::guard g{*this->owner_->env_};
        return this->place_event(when(extra), std::move(value));
    }
    template <class U = T>
    requires std::is_void_v<U>
    status schedule(duration extra = duration{0}) noexcept {
        basic_environment::guard g{*this->owner_->env_};
        return this->place_event(when(extra));
    }

private:
    // A negative extra delay counts as zero (as in LF): never before min_delay.
    tag when(duration extra) const noexcept {
        const std::int64_t x = extra.count() < 0 ? 0 : extra.count();
        return delay_tag(this->owner_->env_->current_tag(), duration{later(this->min_delay_, x)});
    }
};

/// An action scheduled from outside logical time: interrupts, threads, tasks.
template <class T = void, std::size_t Slots = 4>
class physical_action : public detail::action_core<T, Slots>, detail::physical_source {
    struct entry_value { T v; };
    struct entry {
        std::uint64_t ns;
        std::int64_t extra;
        std::conditional_t<std::is_void_v<T>, char, entry_value> value;
    };

public:
    physical_action(detail::place where, const char* name, duration min_delay = duration{0},
                    duration min_spacing = duration{0}, spacing_policy p = spacing_policy::defer) noexcept
        : detail::action_core<T, Slots>(where, name, detail::element_kind::physical_action, min_delay,
                                        min_spacing, p) {
        drain_ = &on_drain;
        where.owner->env_->register_source(*this);
    }

    /// Interrupt-safe, callable from a foreign thread or a task; does not
    /// allocate. Timestamps the event with the executor's clock now (a
    /// negative extra counts as zero; a tag already taken by an event of
    /// this action: the next free microstep). Fails
    /// with `full` (naming the action and Slots) if Slots events are
    /// waiting to be tagged, with `invalid` before the program started and
    /// with `closed` once it has finished (on hosts, also once its
    /// executor was destroyed first).
    template <class U = T>
    requires(!std::is_void_v<U>)
    status schedule(U value, duration extra = duration{0}) noexcept {
        return push(entry{0, extra.count(), entry_value{std::move(value)}});
    }
    template <class U = T>
    requires std::is_void_v<U>
    status schedule(duration extra = duration{0}) noexcept {
        return push(entry{0, extra.count(), 0});
    }

private:
    status push(entry e) noexcept {
        if (e.extra < 0) e.extra = 0;  // as in LF: never before min_delay
        basic_environment& env = *this->owner_->env_;
        executor* ex = env.started_on();  // acquire: ex and the start time are published
        if (!ex) [[unlikely]] {
            // On hosts a program also loses its executor when that is
            // destroyed first (it ended then); a board never destroys one.
            if constexpr (!port::small_code) {
                port::critical_section cs;
                if (env.ended()) return finished_error();
            }
            return error{errc::invalid, "physical action", this->name_, 0, "program not started"};
        }
        e.ns = to_ns(ex->now());
        port::critical_section cs;
        // After the end nothing drains the buffer: the event would be
        // lost behind a success, and later calls would say "buffer full".
        // Checked in the critical section in which finish() marks the end,
        // and posted in it too: no wake-up is posted once finish() has
        // withdrawn it (see request_stop()).
        if (env.ended()) return finished_error();
        if (count_ == Slots) {
            ++this->dropped_;
            return error{errc::full, "physical action", this->name_, Slots, "buffer full"};
        }
        ring_[(head_ + count_) % Slots] = std::move(e);
        ++count_;
        env.physical_pending();
        return {};
    }
    // Under the port's critical section (dropped()).
    status finished_error() noexcept {
        ++this->dropped_;
        return error{errc::closed, "physical action", this->name_, 0, "program finished"};
    }
    // Scheduler thread, between tags: tag the buffered events in order.
    static void on_drain(detail::physical_source* s) noexcept {
        auto* self = static_cast<physical_action*>(s);
        basic_environment& env = *self->owner_->env_;
        for (;;) {
            entry e;
            {
                port::critical_section cs;
                if (self->count_ == 0) return;
                e = std::move(self->ring_[self->head_]);
                self->head_ = (self->head_ + 1) % Slots;
                --self->count_;
            }
            tag now = env.current_tag();
            tag at{later(later(std::int64_t(e.ns - env.start_ns()), self->min_delay_), e.extra), 0};
            if (at <= now) at = delay_tag(now, duration{0});
            // For a mode that is not active, as for a logical action
            // scheduled from outside its mode: spacing and microsteps now,
            // then post() suspends the event with the mode.
            if constexpr (std::is_void_v<T>) (void)self->place_event(at);
            else (void)self->place_event(at, std::move(e.value.v));
        }
    }

    entry ring_[Slots]{};
    std::size_t head_ = 0;
    std::size_t count_ = 0;
};

}  // namespace weft::reactors
