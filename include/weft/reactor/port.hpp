// SPDX-License-Identifier: Apache-2.0
#pragma once
// input<T> and output<T>: typed ports. A value set on an output is present
// at the same tag on every input connected to it (zero delay), and absent
// at every other tag. Inputs read the value in place (no copy per reader):
// assembly points each input at its origin port.
//
// A reaction may set an output it declared in writes(...); it reads inputs
// it declared in on(...) or reads(...). Undeclared access is not detected
// and breaks the determinism guarantee.
#include <weft/reactor/detail/runtime.hpp>
#include <weft/reactor/reactor.hpp>

#include <utility>

namespace weft::reactors {

namespace detail {
/// A port with a value of type T (the origin's value is what readers see).
template <class T>
class typed_port : public port_node {
public:
    /// Present at the current tag?
    bool is_present() const noexcept { return origin_->stamp_ == owner_->env_->stamp(); }
    /// The current value; the last one set if absent (LF keeps it too).
    const T& get() const noexcept { return static_cast<const typed_port*>(origin_)->value_; }

    T value_{};
};
}  // namespace detail

/// An input port of a reactor.
template <class T>
class input : public detail::typed_port<T> {
public:
    input(detail::place where, const char* name) noexcept {
        detail::init_element(*this, where, name, detail::element_kind::input);
    }
    input(const input&) = delete;
    input& operator=(const input&) = delete;

    /// Sets an unconnected input of a contained reactor from its parent's
    /// reaction (declared in writes(child.in)). Executor thread / worker.
    void set(T v) noexcept {
        this->value_ = std::move(v);
        this->owner_->env_->set_port(*this);
    }
};

/// An output port of a reactor.
template <class T>
class output : public detail::typed_port<T> {
public:
    output(detail::place where, const char* name) noexcept {
        detail::init_element(*this, where, name, detail::element_kind::output);
    }
    output(const output&) = delete;
    output& operator=(const output&) = delete;

    /// Sets the value at the current tag (LF lf_set). Setting twice in one
    /// tag keeps the last value; readers run once. Called from a reaction.
    /// Inlined: with the marks of its readers it is most of a reaction switch.
    [[gnu::always_inline]] void set(T v) noexcept {
        this->value_ = std::move(v);
        this->owner_->env_->set_port(*this);
    }
};

}  // namespace weft::reactors
