// SPDX-License-Identifier: Apache-2.0
#pragma once
// The reactor graph as plain intrusive nodes. The public types (reactor,
// input<T>, timer, reaction, mode, ...) derive from these and register
// themselves on construction, so a program is a set of static objects
// linked together; assembly only walks these links and allocates nothing.
//
// Declaration order is meaningful: members are constructed in order, so
// each reactor's element and reaction lists are in declaration order.
#include <weft/reactor/detail/callback.hpp>
#include <weft/reactor/detail/ready_set.hpp>
#include <weft/reactor/tag.hpp>

#include <cstdint>

namespace weft::reactors {

class basic_environment;

namespace detail {

struct reactor_node;
struct mode_node;
struct reaction_node;
struct element;

/// What a reaction declares about an element.
enum class role : std::uint8_t { trigger, source, effect };

/// What an element is (for graph walks and messages).
enum class element_kind : std::uint8_t {
    input, output, timer, logical_action, physical_action, startup, shutdown, reset, delay
};

/// Where links point before assembly: marking then changes nothing.
inline ready_set::word ready_sink = 0;

/// One declared dependency of a reaction. Links live inside the reaction
/// object and chain into the target element's reader or writer list.
/// No member initialisers: a reaction reserves room for several links and
/// fills in (every field of) only those it declares (see make_link).
struct link {
    element* target;
    reaction_node* owner;
    link* next;  // next link on the same target
    // Assembly stores the owner's ready-set word and bit here (bit 0 for
    // sources), so that marking is one OR, with no rank arithmetic and no
    // test of the role.
    ready_set::word* ready_word;
    ready_set::word ready_bit;
    role kind;
};

/// Where something is declared: directly in a reactor, or in one of its
/// modes. Implicit from `reactor&` and `mode&` (see reactor.hpp, mode.hpp).
struct place {
    reactor_node* owner;
    mode_node* mode;  // innermost enclosing mode (nullptr: always active)
};

/// Anything a reaction can name: ports, timers, actions, builtin triggers.
/// No member initialisers: init_element fills in every field (initialisers
/// would zero each element with a memset call first).
struct element {
    const char* name_;
    reactor_node* owner_;
    mode_node* mode_;
    element* next_global_;  // environment's list, declaration order
    link* readers_;         // triggers and sources
    link* writers_;         // effects
    std::uint64_t stamp_;   // environment tag counter when last present
    element_kind kind_;
    /// Delivers an event popped from the event queue (slot = value slot).
    void (*fire_)(element* self, std::uint16_t slot) noexcept;
    /// Frees an event's value slot when the event is discarded (mode reset).
    void (*discard_)(element* self, std::uint16_t slot) noexcept;
    /// Timers: queue the first event (at start, and on a reset transition).
    void (*start_)(element* self) noexcept;
};

/// Sets every field of `e` (not registered anywhere). Out of line: every
/// element is built through it.
[[gnu::noinline]] inline void init_fields(element& e, reactor_node* owner, mode_node* mode, const char* name,
                                          element_kind k) noexcept {
    e.name_ = name;
    e.owner_ = owner;
    e.mode_ = mode;
    e.next_global_ = nullptr;
    e.readers_ = nullptr;
    e.writers_ = nullptr;
    e.stamp_ = 0;
    e.kind_ = k;
    e.fire_ = nullptr;
    e.discard_ = nullptr;
    e.start_ = nullptr;
}

/// Fills in an element's identity and registers it (defined in runtime.hpp).
void init_element(element& e, place where, const char* name, element_kind k) noexcept;

/// Timers (timer.hpp): the scheduler fires them itself, without the
/// indirect call, since timer programs spend most of a tag on them.
struct timer_node : element {
    std::int64_t offset_ = 0;
    std::int64_t period_ = 0;  // 0: once
};

/// Ports: an output, an input, or the delayed side of an `after`.
struct port_node : element {
    port_node* upstream_ = nullptr;    // the port this one is connected from
    port_node* first_down_ = nullptr;  // ports connected from this one
    port_node* next_down_ = nullptr;   // sibling in upstream_'s list
    port_node* origin_ = this;         // the port whose value this one shows
    /// Called when an upstream value arrives (the input side of `after`).
    void (*on_set_)(port_node* self) noexcept = nullptr;
    /// Origins whose zero-delay tree has exactly one trigger link and no
    /// `after` (the usual connection): that link's ready word and bit,
    /// copied here by assembly so that setting the port is one mark, with
    /// no load of the link and no walk (on the host, one dependent load
    /// less per reaction switch; on the board, no loop in every body that
    /// sets a port). Read only when !set_slow_.
    ready_set::word* mark_word_;
    ready_set::word mark_bit_;
    /// Setting the port walks its zero-delay tree instead (set_port_slow):
    /// not an origin, before assembly, no trigger link or several, or an
    /// `after` below.
    bool set_slow_ = true;
};

/// A mode of a modal reactor.
struct mode_node {
    const char* name_ = "";
    reactor_node* owner_ = nullptr;
    mode_node* next_ = nullptr;  // sibling modes, declaration order
    element* reset_trigger_ = nullptr;
    bool initial_ = false;
    bool entered_ = false;  // entered at least once (history needs a past)
    // Active at some tag so far: its startup reactions have run (LF runs
    // them once, on first entry) and its shutdown reactions will run at
    // the end even if it is inactive then.
    bool started_ = false;
    bool startup_due_ = false;  // first entry this tag: startup with its reset trigger
};

/// State that a reset transition restores (see mode.hpp: reset_state<T>).
struct resettable {
    mode_node* mode_ = nullptr;
    resettable* next_ = nullptr;
    void (*reset_)(resettable* self) noexcept = nullptr;
};

/// A reaction: declared triggers, sources and effects, a body, and an
/// optional deadline with its handler.
struct reaction_node {
    // No initialisers where begin_reaction() and register_reaction() write
    // first (basic_reaction's constructor): fewer stores per reaction.
    const char* name_;
    reactor_node* owner_;
    mode_node* mode_;
    reaction_node* next_in_reactor_ = nullptr;
    reaction_node* next_global_ = nullptr;
    link* links_;
    std::uint8_t link_count_ = 0;
    callback body_;
    callback handler_;                 // deadline handler
    std::int64_t deadline_ = -1;       // ns, -1: none
    std::int64_t inferred_deadline_ = INT64_MAX;
    std::uint32_t index_;              // global declaration order
    std::uint32_t level_ = 0;
    std::uint32_t rank_ = 0;           // position in the scheduling order
    std::uint32_t pending_preds_ = 0;  // assembly scratch
};

/// What the scheduler loop reads per reaction, packed by rank (two per
/// cache line) so that a chain of reactions streams through one array
/// instead of visiting each reaction object. Filled by assembly.
struct alignas(32) rank_entry {
    callback body;
    std::uint32_t level = 0;
};

/// A reactor: owns elements, reactions, modes and nested reactors.
struct reactor_node {
    // No initialisers where reactor's constructors and register_reactor()
    // write first: fewer stores per reactor.
    const char* name_;
    basic_environment* env_;
    reactor_node* parent_ = nullptr;
    mode_node* mode_ = nullptr;  // mode of the parent that contains this reactor
    reactor_node* next_global_ = nullptr;
    reaction_node* first_reaction_ = nullptr;
    reaction_node* last_reaction_ = nullptr;
    mode_node* first_mode_ = nullptr;
    mode_node* current_mode_ = nullptr;
    mode_node* pending_mode_ = nullptr;
    reactor_node* next_pending_ = nullptr;
    std::uint32_t index_;
    bool pending_history_ = false;
};

/// Something an interrupt or a foreign thread feeds (physical actions):
/// the environment drains these between tags, on its own thread.
struct physical_source {
    physical_source* next_source_ = nullptr;
    void (*drain_)(physical_source* self) noexcept = nullptr;
};

/// True if every mode from m outwards is the current mode of its reactor.
inline bool mode_active(const mode_node* m) noexcept {
    for (; m; m = m->owner_->mode_)
        if (m->owner_->current_mode_ != m) return false;
    return true;
}

/// True if `m` is `outer` or nested (through reactors) inside it.
inline bool mode_within(const mode_node* m, const mode_node* outer) noexcept {
    for (; m; m = m->owner_->mode_)
        if (m == outer) return true;
    return false;
}

}  // namespace detail
}  // namespace weft::reactors
