// SPDX-License-Identifier: Apache-2.0
#pragma once
// Appends strings into a fixed buffer, cut when full and always
// terminated: for the few messages that name objects on paths where a
// board should not link printf (a reactor's cycle, a task ending with a
// lock held).
#include <cstddef>

namespace weft::detail {

class bounded_text {
public:
    bounded_text(char* buf, std::size_t capacity) noexcept : buf_(buf), cap_(capacity) { buf_[0] = '\0'; }
    /// A null `s` appends nothing (an object named nullptr reads as unnamed).
    bounded_text& put(const char* s) noexcept {
        if (!s) s = "";
        while (*s && n_ + 1 < cap_) buf_[n_++] = *s++;
        buf_[n_] = '\0';
        return *this;
    }
    /// Appends `v` in decimal (a limit in a message).
    bounded_text& put_decimal(unsigned long v) noexcept {
        char digits[24];
        std::size_t k = sizeof digits;
        digits[--k] = '\0';
        do digits[--k] = char('0' + v % 10); while ((v /= 10) != 0);
        return put(digits + k);
    }
    /// No room was left: the last put() may have been cut.
    bool full() const noexcept { return n_ + 1 == cap_; }
    /// Marks a cut text with "..." in its last three characters.
    void mark_cut() noexcept { buf_[n_ - 1] = buf_[n_ - 2] = buf_[n_ - 3] = '.'; }

private:
    char* buf_;
    std::size_t cap_;
    std::size_t n_ = 0;
};

}  // namespace weft::detail
