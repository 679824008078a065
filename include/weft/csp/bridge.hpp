// SPDX-License-Identifier: Apache-2.0
#pragma once
// The low-level bridge (SenseVM's ll_driver_t) as C++ concepts: what a
// driver provides so that connect() can make it a channel endpoint.
//
//   input  (button, UART rx, timer):  std::size_t readable();  result<T> read();
//   output (LED, UART tx):            std::size_t writable();  status write(T);
//   both:  bool is_synchronous();     // true: readable/writable never change
//                                     // by themselves (LED); false: the driver
//                                     // raises an interrupt when they do. The
//                                     // same answer for the driver's lifetime:
//                                     // only asynchronous drivers keep a
//                                     // virtual-clock run() from `stalled`
//          void attach(executor&, irq_node&);  // the driver posts the node
//                                     // (executor::post, interrupt-safe) from
//                                     // its ISR whenever readable/writable grow
//                                     // (see "Attached twice" below)
//          void detach();             // executor thread: when it returns, no
//                                     // post of that node is in flight or
//                                     // will follow (the connection is being
//                                     // destroyed); data keeps arriving into
//                                     // the driver's own buffer for the next
//                                     // attach, with its overflow reporting
//
// read() and write() run on the executor. A driver reports its failures as
// error values from read()/write() (e.g. "uart 'console': rx bytes lost,
// FIFO full (limit 64)"); connect() records them, it never drops them
// silently. A failed read() consumes the failure it reports (the next
// read() gives the next value or the next failure). After a failed read
// connect() reads the rest after the executor's next task, so a driver that
// failed the same read for ever would fill errors() but not hold the
// executor: tasks run between its failures.
//
// Attached twice: an asynchronous driver has one node to post, so it
// serves one connection at a time, and attach() of a driver already
// attached (a second connect() before the first is closed) is a
// programming error, not a value: the driver stops the program naming
// itself, as the ports' drivers do ("weft: button 'but0': already
// connected (close the first connection before connecting it again)",
// through weft::attached_twice(kind, name) in weft/core/interrupt_queue.hpp);
// hosts check always, boards in Debug builds only. The ports' FIFOs
// (sim::irq_ring, board::irq_fifo) check it in their attach(); a driver
// that keeps its node itself calls it directly. detach() ends the attachment, so the
// driver can be connected again. A synchronous driver never posts and may
// be connected any number of times.
#include <weft/core/executor.hpp>
#include <weft/core/interrupt_queue.hpp>
#include <weft/core/result.hpp>

#include <concepts>
#include <cstddef>

namespace weft::csp {

/// Shared by both directions.
template <class D>
concept bridge = requires(D& d, executor& ex, irq_node& n) {
    { d.is_synchronous() } noexcept -> std::convertible_to<bool>;
    { d.attach(ex, n) } noexcept;
    { d.detach() } noexcept;
};

/// A driver that produces values of type T (driver -> channel).
template <class D, class T>
concept input_bridge = bridge<D> && requires(D& d) {
    { d.readable() } noexcept -> std::convertible_to<std::size_t>;
    { d.read() } noexcept -> std::same_as<result<T>>;
};

/// A driver that consumes values of type T (channel -> driver).
template <class D, class T>
concept output_bridge = bridge<D> && requires(D& d, T v) {
    { d.writable() } noexcept -> std::convertible_to<std::size_t>;
    { d.write(std::move(v)) } noexcept -> std::same_as<status>;
};

}  // namespace weft::csp
