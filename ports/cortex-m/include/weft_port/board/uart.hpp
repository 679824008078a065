// SPDX-License-Identifier: Apache-2.0
#pragma once
// A CMSDK APB UART of the MPS2 board (ARM DDI 0479, 4.6; QEMU
// hw/char/cmsdk-apb-uart.c) as two channel endpoints, interrupt driven,
// the board twin of weft::sim::uart:
//
//   rx(): asynchronous input bridge of std::uint8_t. The RX interrupt moves
//         each byte into a software FIFO (RxFifo) and posts the connection.
//   tx(): asynchronous output bridge of std::uint8_t. write() queues into a
//         software FIFO (TxFifo); the TX interrupt feeds the one-byte
//         transmit register and posts the connection when room appears.
//
//   weft::board::uart<> uart0{"uart0"};                  // UART0, 0x40004000
//   WEFT_BOARD_UART_HANDLERS(uart0, 0, 1)               // its RX/TX lines
//   auto r = weft::csp::connect(ex, rx_chan, uart0.rx());
//   auto w = weft::csp::connect(ex, tx_chan, uart0.tx());
//
// Errors are values: bytes lost because the RX FIFO was full or the
// receive register overran are reported once per burst by rx().read()
// ("uart 'uart0': rx bytes lost, FIFO full (limit 16)"), and counted in
// lost() (the error's limit is the FIFO's size); a write() into a
// full TX FIFO fails with `full`. Under QEMU the UART's wire is whatever
// `-serial` names; with `-serial none` (qemu-run) TX drains instantly and
// nothing is ever received.
#include <weft/core/executor.hpp>
#include <weft/core/interrupt_queue.hpp>
#include <weft/core/result.hpp>
#include <weft/port/port.hpp>
#include <weft_port/board/irq_fifo.hpp>
#include <weft_port/mps2.hpp>

#include <cstddef>
#include <cstdint>

namespace weft::board {

/// CMSDK APB UART registers.
struct cmsdk_uart {
    volatile std::uint32_t data;
    volatile std::uint32_t state;      // 0 tx full, 1 rx full, 2 tx overrun, 3 rx overrun (write 1: clear)
    volatile std::uint32_t ctrl;       // 0 tx en, 1 rx en, 2 tx irq, 3 rx irq, 4 tx ovr irq, 5 rx ovr irq
    volatile std::uint32_t intstatus;  // read: 0 tx, 1 rx, 2 tx ovr, 3 rx ovr; write 1: clear
    volatile std::uint32_t bauddiv;
};
namespace uart_bits {
inline constexpr std::uint32_t tx_full = 1u << 0, rx_full = 1u << 1, rx_overrun = 1u << 3;
inline constexpr std::uint32_t tx_enable = 1u << 0, rx_enable = 1u << 1, tx_irq = 1u << 2,
                               rx_irq = 1u << 3;
inline constexpr std::uint32_t int_tx = 1u << 0, int_rx = 1u << 1;
}  // namespace uart_bits

/// UART0 of AN385/AN386 and its interrupt lines (QEMU hw/arm/mps2.c).
inline constexpr std::uintptr_t uart0_base = 0x40004000u;
inline constexpr unsigned uart0_rx_irq = 0, uart0_tx_irq = 1;

template <std::size_t RxFifo = 16, std::size_t TxFifo = 16>
class uart {
    static_assert(TxFifo >= 2 && (TxFifo & (TxFifo - 1)) == 0, "uart: TxFifo must be a power of two");

public:
    /// `name` appears in errors. Touches no register until a half is
    /// attached (connect). Does not allocate.
    explicit uart(const char* name, std::uintptr_t base = uart0_base, unsigned rx_irq = uart0_rx_irq,
                  unsigned tx_irq = uart0_tx_irq, std::uint32_t baud = 115200) noexcept
        : name_(name), base_(base), rx_irq_(rx_irq), tx_irq_(tx_irq), baud_(baud) {}
    uart(const uart&) = delete;
    uart& operator=(const uart&) = delete;

    const char* name() const noexcept { return name_; }
    /// Bytes handed to the transmit register so far.
    std::uint32_t sent() const noexcept { return sent_; }
    /// RX bytes lost (FIFO full or register overrun) in the bursts
    /// rx().read() has reported so far. Executor thread.
    std::uint32_t lost() const noexcept { return lost_; }

    /// RX half: asynchronous input bridge of std::uint8_t.
    class rx_driver {
    public:
        explicit rx_driver(uart& u) noexcept : u_(&u) {}
        bool is_synchronous() const noexcept { return false; }
        void attach(executor& ex, irq_node& n) noexcept {
            u_->fifo_.attach(ex, n, "uart rx", u_->name_);
            u_->enable(uart_bits::rx_enable | uart_bits::rx_irq, u_->rx_irq_);
        }
        /// Reception goes on into the FIFO (overflow reported on the next
        /// connection's first read).
        void detach() noexcept { u_->fifo_.detach(); }
        std::size_t readable() const noexcept { return u_->fifo_.readable(); }
        /// A byte, or once per burst of lost bytes "uart '<name>': rx bytes
        /// lost, FIFO full (limit RxFifo)", their number added to lost().
        result<std::uint8_t> read() noexcept {
            if (const std::uint32_t n = u_->fifo_.overflowed() ? u_->fifo_.take_overflows() : 0; n != 0) {
                u_->lost_ += n;
                return error{errc::overflow, "uart", u_->name_, RxFifo, "rx bytes lost, FIFO full"};
            }
            return u_->fifo_.pop();
        }

    private:
        uart* u_;
    };

    /// TX half: asynchronous output bridge of std::uint8_t.
    class tx_driver {
    public:
        explicit tx_driver(uart& u) noexcept : u_(&u) {}
        bool is_synchronous() const noexcept { return false; }
        void attach(executor& ex, irq_node& n) noexcept {
            if constexpr (check_attach) {
                if (u_->tx_ex_ != nullptr) attached_twice("uart tx", u_->name_);
            }
            {
                port::critical_section cs;  // the TX handler reads both
                u_->tx_ex_ = &ex;
                u_->tx_node_ = &n;
            }
            u_->enable(uart_bits::tx_enable | uart_bits::tx_irq, u_->tx_irq_);
            u_->tx_on_ = true;  // stays on after a detach: queued bytes drain
        }
        /// Queued bytes still drain onto the wire.
        void detach() noexcept {
            port::critical_section cs;
            u_->tx_ex_ = nullptr;
            u_->tx_node_ = nullptr;
        }
        std::size_t writable() const noexcept { return TxFifo - std::size_t(u_->tx_tail_ - u_->tx_head_); }
        /// Executor thread. Queues `b`; fails with `full` if TxFifo bytes wait.
        status write(std::uint8_t b) noexcept { return u_->transmit(b); }

    private:
        uart* u_;
    };

    rx_driver& rx() noexcept { return rx_; }
    tx_driver& tx() noexcept { return tx_; }

    /// RX interrupt handler body (see WEFT_BOARD_UART_HANDLERS).
    void on_rx_interrupt() noexcept {
        cmsdk_uart& r = regs();
        if (r.state & uart_bits::rx_overrun) {  // a byte died in the register
            r.state = uart_bits::rx_overrun;
            fifo_.lost();
        }
        // Clear before reading: a byte that lands after the read raises the
        // line again instead of being missed.
        while (r.state & uart_bits::rx_full) {
            r.intstatus = uart_bits::int_rx;
            (void)fifo_.push(std::uint8_t(r.data));
        }
        r.intstatus = uart_bits::int_rx;
    }
    /// TX interrupt handler body: the transmit register emptied.
    void on_tx_interrupt() noexcept {
        cmsdk_uart& r = regs();
        r.intstatus = uart_bits::int_tx;
        // An entry while a byte still fills the register (the line pended
        // by software, or a re-entry on silicon when the clearing write
        // lands after the exception return) must not overwrite it: that
        // byte's end raises the interrupt again. (QEMU empties the
        // register at once, so its tests cannot reach this.)
        if (r.state & uart_bits::tx_full) return;
        if (tx_head_ != tx_tail_) {
            r.data = tx_buf_[tx_head_ % TxFifo];
            tx_head_ = tx_head_ + 1;
            sent_ = sent_ + 1;
        } else {
            tx_busy_ = false;
        }
        if (tx_ex_) tx_ex_->post(*tx_node_);  // room appeared
    }

private:
    cmsdk_uart& regs() const noexcept { return *reinterpret_cast<cmsdk_uart*>(base_); }

    void enable(std::uint32_t bits, unsigned line) noexcept {
        port::critical_section cs;
        cmsdk_uart& r = regs();
        if (r.bauddiv < 16) r.bauddiv = port::mps2::timer_hz / baud_;
        r.ctrl = r.ctrl | bits;
        port::mps2::enable_irq(line);
    }
    // tx_busy_ means "a TX interrupt is coming": the handler then feeds the
    // register, so write() only queues. Masked, because the handler
    // changes tx_busy_ and tx_head_.
    status transmit(std::uint8_t b) noexcept {
        port::critical_section cs;
        // Before a connection enabled the transmitter a byte written to
        // the register would vanish and no TX interrupt would ever come.
        if (!tx_on_) return error{errc::invalid, "uart", name_, 0, "tx written before it was connected"};
        if (!tx_busy_) {
            tx_busy_ = true;
            regs().data = b;
            sent_ = sent_ + 1;
            return {};
        }
        if (tx_tail_ - tx_head_ == TxFifo) return error{errc::full, "uart", name_, TxFifo, "tx FIFO full"};
        tx_buf_[tx_tail_ % TxFifo] = b;
        tx_tail_ = tx_tail_ + 1;
        return {};
    }

    const char* name_;
    std::uintptr_t base_;
    unsigned rx_irq_, tx_irq_;
    std::uint32_t baud_;
    rx_driver rx_{*this};
    tx_driver tx_{*this};
    irq_fifo<std::uint8_t, RxFifo> fifo_;
    std::uint8_t tx_buf_[TxFifo] = {};
    volatile std::uint32_t tx_head_ = 0, tx_tail_ = 0, sent_ = 0;
    std::uint32_t lost_ = 0;  // executor thread only
    volatile bool tx_busy_ = false;
    bool tx_on_ = false;  // a connection enabled the transmitter (executor thread)
    executor* tx_ex_ = nullptr;
    irq_node* tx_node_ = nullptr;
};

}  // namespace weft::board

/// Defines the RX and TX interrupt handlers of `obj` (a weft::board::uart)
/// on lines `rx_line` and `tx_line` (0 and 1 for UART0). Once per program.
#define WEFT_BOARD_UART_HANDLERS(obj, rx_line, tx_line)                      \
    extern "C" void weft_irq_handler_##rx_line() { (obj).on_rx_interrupt(); } \
    extern "C" void weft_irq_handler_##tx_line() { (obj).on_tx_interrupt(); }
