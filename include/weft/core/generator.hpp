// SPDX-License-Identifier: Apache-2.0
#pragma once
// generator<T>: a synchronous, lazily evaluated sequence, with nested
// (recursive) yield of another generator in O(1) per element:
//
//   weft::generator<int> leaves(const node* n) {
//       if (!n->left) { co_yield n->value; co_return; }
//       co_yield weft::elements_of(leaves(n->left));
//       co_yield weft::elements_of(leaves(n->right));
//   }
//   for (int v : leaves(root)) ...
//
// The consumer always resumes the innermost active generator directly (the
// chain of nested generators is never walked per element), which is what
// makes the same-fringe problem cheap without a stackful coroutine.
// Frames come from the frame pools; if one cannot be allocated the
// generator is empty and err() says which pool, and `co_yield
// elements_of(g)` of such a generator yields that error to the parent.
#include <weft/core/detail/tail_calls.hpp>
#include <weft/core/frame_pool.hpp>
#include <weft/core/result.hpp>
#include <weft/port/port.hpp>

#include <coroutine>
#include <cstddef>
#include <iterator>
#include <memory>
#include <type_traits>
#include <utility>

namespace weft {

template <class T> class generator;

/// Marks a nested generator whose elements the parent yields in place:
/// all of them, or the rest of them if its caller already began it.
template <class T>
struct elements_of_t {
    generator<T>&& inner;
};
template <class T>
elements_of_t<T> elements_of(generator<T>&& g) noexcept { return {std::move(g)}; }

template <class T>
class [[nodiscard("iterate it or yield its elements_of: a generator does nothing until then")]] generator {
    using value_type_ = std::remove_cvref_t<T>;
    // What the iterator gives: a generator of references passes them on
    // as they are (generator<int&> lets the consumer write through them);
    // a generator of values lends a const reference to the yielded one.
    using reference_ = std::conditional_t<std::is_reference_v<T>, T, const value_type_&>;
    using pointer_ = std::add_pointer_t<reference_>;

public:
    class promise_type {
    public:
        promise_type() noexcept : leaf_(this) {}
        static void* operator new(std::size_t n, frame_site s = frame_site::current()) noexcept {
            return frame_allocator::allocate(n, s);
        }
        static void operator delete(void* p) noexcept { frame_allocator::deallocate(p); }

        generator get_return_object() noexcept {
            return generator{std::coroutine_handle<promise_type>::from_promise(*this)};
        }
        static generator get_return_object_on_allocation_failure() noexcept {
            return generator{&frame_allocator::last_error()};
        }
        std::suspend_always initial_suspend() noexcept { return {}; }

        struct final_awaiter {
            bool await_ready() noexcept { return false; }
            std::coroutine_handle<> await_suspend(std::coroutine_handle<promise_type> h) noexcept {
                promise_type& p = h.promise();
                if (p.parent_) {  // nested generator done: continue the parent
                    p.root_->leaf_ = p.parent_;
                    return std::coroutine_handle<promise_type>::from_promise(*p.parent_);
                }
                return std::noop_coroutine();
            }
            void await_resume() noexcept {}
        };
        final_awaiter final_suspend() noexcept { return {}; }

        std::suspend_always yield_value(reference_ v) noexcept {
            root_->value_ = std::addressof(v);
            return {};
        }
        std::suspend_always yield_value(value_type_&& v) noexcept
            requires(!std::is_reference_v<T>)
        {
            // The temporary lives until the co_yield full-expression ends,
            // i.e. across the suspension: pointing at it is safe.
            root_->value_ = std::addressof(v);
            return {};
        }

        // Owns the nested frame for the duration of the co_yield; holds two
        // pointers only (GCC keeps awaiters in the parent's frame, and a
        // generator is one frame per tree node in the recursive case).
        struct nested_awaiter {
            std::coroutine_handle<promise_type> inner;
            const error* fail;
            explicit nested_awaiter(std::coroutine_handle<promise_type> h, const error* f) noexcept
                : inner(h), fail(f) {}
            nested_awaiter(nested_awaiter&& o) noexcept
                : inner(std::exchange(o.inner, {})), fail(o.fail) {}
            nested_awaiter& operator=(nested_awaiter&&) = delete;
            ~nested_awaiter() {
                if (inner) inner.destroy();
            }
            // A generator its caller already ran to the end has nothing
            // left to yield (resuming it would be undefined).
            bool await_ready() noexcept { return !inner || inner.done(); }
            auto await_suspend(std::coroutine_handle<promise_type> h) noexcept {
                promise_type& parent = h.promise();
                promise_type& child = inner.promise();
                // A generator its caller began yields the rest of its
                // elements: it goes on from its own innermost generator, and
                // the chain up from there now yields to our root.
                promise_type* leaf = child.leaf_;
                child.owner_ = &inner;  // leaf_ is a root's alone: read above
                for (promise_type* p = leaf; p != &child; p = p->parent_) p->root_ = parent.root_;
                child.root_ = parent.root_;
                parent.root_->leaf_ = leaf;
                auto next = std::coroutine_handle<promise_type>::from_promise(*leaf);
                if constexpr (detail::tail_calls) {
                    child.parent_ = &parent;
                    return std::coroutine_handle<>{next};  // symmetric transfer
                } else {
                    // No tail calls (detail/tail_calls.hpp): run it as a
                    // plain call. Without a parent meanwhile, a child that
                    // ends before yielding returns here rather than
                    // resuming us one call deeper, so that a run of empty
                    // nested generators takes no stack.
                    child.parent_ = nullptr;
                    next.resume();
                    if (inner.done()) {
                        parent.root_->leaf_ = &parent;
                        return false;  // we go on at once
                    }
                    child.parent_ = &parent;  // it yielded: its end resumes us
                    return true;
                }
            }
            // A nested generator without a frame: yield_value also noted
            // its error in the root (err()).
            status await_resume() noexcept { return inner ? status{} : status{*fail}; }
        };
        nested_awaiter yield_value(elements_of_t<T> e) noexcept {
            // A default or moved-from generator has no frame but did not
            // fail: it must not hide an earlier failure from err().
            if (!e.inner.h_ && e.inner.error_->code != errc::ok) root_->error_ = e.inner.error_;
            return nested_awaiter{e.inner.release(), e.inner.error_};
        }

        void return_void() noexcept {}
        void unhandled_exception() noexcept { port::fatal("weft: exception escaped a generator"); }
        template <class U> void await_transform(U&&) = delete;  // generators do not await

    private:
        friend class generator;
        // One frame per tree node in the recursive case: the promise is
        // kept to five pointers, and errors stay in the pool that failed.
        promise_type* root_ = this;
        union {
            promise_type* leaf_;  // a root: the innermost active generator
            std::coroutine_handle<promise_type>* owner_;  // nested: the parent's awaiter's handle of this frame
        };
        promise_type* parent_ = nullptr;
        // Root only: the current element. Written by every co_yield before
        // the consumer can read it, so not initialised.
        pointer_ value_;
        const error* error_ = nullptr;  // root only: latest nested failure (last_error())
    };

    using handle_type = std::coroutine_handle<promise_type>;

    class iterator {
    public:
        using value_type = value_type_;
        using difference_type = std::ptrdiff_t;
        reference_ operator*() const noexcept { return static_cast<reference_>(*root_.promise().value_); }
        pointer_ operator->() const noexcept { return root_.promise().value_; }
        iterator& operator++() noexcept {
            advance();
            return *this;
        }
        void operator++(int) noexcept { advance(); }
        bool operator==(std::default_sentinel_t) const noexcept { return !root_ || root_.done(); }

    private:
        friend class generator;
        explicit iterator(handle_type root) noexcept : root_(root) { if (root_) advance(); }
        void advance() noexcept { handle_type::from_promise(*root_.promise().leaf_).resume(); }
        handle_type root_;
    };

    generator() noexcept = default;
    // A moved-from generator is empty, also when `o` had failed to get a frame.
    generator(generator&& o) noexcept : h_(std::exchange(o.h_, {})), error_(std::exchange(o.error_, &no_error)) {}
    generator& operator=(generator&& o) noexcept {
        if (this != &o) { reset(); h_ = std::exchange(o.h_, {}); error_ = std::exchange(o.error_, &no_error); }
        return *this;
    }
    ~generator() { reset(); }

    /// False if the frame could not be allocated.
    explicit operator bool() const noexcept { return bool(h_); }
    /// Why the generator (or a nested one) could not run, if it could not.
    /// That error is the frame allocator's last_error(): read it before
    /// another coroutine fails to get a frame (`co_yield elements_of(g)`
    /// reads it at once).
    const error& err() const noexcept {
        if (!h_) return *error_;
        const error* nested = h_.promise().error_;
        return nested ? *nested : no_error;
    }

    /// Single-pass: begin() starts the generator. Dereferencing or
    /// incrementing an iterator that equals end() is undefined (as for
    /// std::generator): the per-element path does not check it.
    iterator begin() noexcept { return iterator{h_}; }
    std::default_sentinel_t end() const noexcept { return {}; }

private:
    explicit generator(handle_type h) noexcept : h_(h) {}
    explicit generator(const error* e) noexcept : error_(e) {}
    // Destroys a chain of nested generators from its innermost frame up:
    // destroying the root first would destroy each nested frame from
    // inside its parent's destruction (the awaiter that owns it), one
    // native call per level, and a deep walk abandoned half-way (a
    // same-fringe that finds a difference) would overflow the stack.
    void reset() noexcept {
        if (!h_) return;
        promise_type& root = h_.promise();
        for (promise_type* p = root.leaf_; p != &root;) {
            promise_type* up = p->parent_;
            *p->owner_ = {};  // its parent's awaiter no longer destroys it
            handle_type::from_promise(*p).destroy();
            p = up;
        }
        h_.destroy();
        h_ = {};
    }
    handle_type release() noexcept { return std::exchange(h_, {}); }
    handle_type h_;
    // A pointer, not a copy: a nested generator is a temporary in its
    // parent's frame for the whole co_yield, one frame per tree node.
    const error* error_ = &no_error;
};

}  // namespace weft
