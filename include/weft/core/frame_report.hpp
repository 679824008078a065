// SPDX-License-Identifier: Apache-2.0
#pragma once
// Prints the frame-size report as JSON lines through a writer, so the same
// report comes out of a host program (stdout) and a board (semihosting):
//
//   {"frame":"blink","bytes":88,"created":1}
//   {"pool":"app","slot_bytes":128,"slots":8,"peak":3,"failures":0,"largest_request":88}
//
// tools/frame_report_to_header turns it into a header that sizes the
// pools of the next build (docs/port-cortex-m.md, "Frame sizes before
// deployment"). Every line is whole, valid JSON: a name is escaped and, if
// longer than report_name_chars, cut and ended with "...".
#include <weft/core/frame_pool.hpp>
#include <weft/port/port.hpp>

#include <cstdio>

namespace weft {

inline constexpr std::size_t report_name_chars = 96;

namespace detail {
// Appends `s` to `out` as the inside of a JSON string: '"' and '\\'
// escaped, control characters left out, at most report_name_chars bytes
// (a longer name is cut between characters and ends with "...").
inline std::size_t json_name(char* out, const char* s) noexcept {
    std::size_t n = 0;
    for (; *s; ++s) {
        const char c = *s;
        if (static_cast<unsigned char>(c) < 0x20) continue;
        const std::size_t need = (c == '"' || c == '\\') ? 2 : 1;
        if (n + need > report_name_chars - 3) {
            // Cut before a multi-byte UTF-8 character, not inside it: half
            // of one makes the line invalid JSON (JSON text is UTF-8).
            if ((static_cast<unsigned char>(c) & 0xC0) == 0x80) {
                while (n > 0 && (static_cast<unsigned char>(out[n - 1]) & 0xC0) == 0x80) --n;
                if (n > 0 && static_cast<unsigned char>(out[n - 1]) >= 0xC0) --n;
            }
            out[n++] = '.', out[n++] = '.', out[n++] = '.';
            break;
        }
        if (need == 2) out[n++] = '\\';
        out[n++] = c;
    }
    return n;
}

// Writes `head`, the escaped name, then `tail` formatted: a line that is
// never cut, whatever the name.
template <class Writer, class... Args>
void report_line(Writer& write, const char* head, const char* name, const char* tail, Args... args) noexcept {
    char line[32 + report_name_chars + 128];
    std::size_t n = 0;
    while (*head) line[n++] = *head++;
    n += json_name(line + n, name);
    int len = std::snprintf(line + n, sizeof line - n, tail, args...);
    if (len > 0) write(line, n + std::size_t(len));
}
}  // namespace detail

/// Writes the report with `write(const char*, size_t)`; default: the port
/// console. Executor thread only; does not allocate.
template <class Writer>
void print_frame_report(Writer&& write) noexcept {
    const frame_record* r = frame_allocator::records();
    for (std::size_t i = 0, n = frame_allocator::record_count(); i < n; ++i)
        detail::report_line(write, "{\"frame\":\"", r[i].function, "\",\"bytes\":%u,\"created\":%u}\n",
                            unsigned(r[i].bytes), unsigned(r[i].created));
    for (frame_pool_base* p = frame_pool_base::first(); p; p = p->next())
        detail::report_line(write, "{\"pool\":\"", p->name(),
                            "\",\"slot_bytes\":%u,\"slots\":%u,\"peak\":%u,\"failures\":%u,"
                            "\"largest_request\":%u}\n",
                            unsigned(p->slot_bytes()), unsigned(p->capacity()), unsigned(p->peak()),
                            unsigned(p->failures()), unsigned(p->largest_request()));
}

inline void print_frame_report() noexcept {
    print_frame_report([](const char* s, std::size_t n) { port::console_write(s, n); });
}

}  // namespace weft
