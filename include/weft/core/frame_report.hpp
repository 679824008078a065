// SPDX-License-Identifier: Apache-2.0
#pragma once
// Prints the frame-size report as JSON lines through a writer, so the same
// report comes out of a host program (stdout) and a board (semihosting):
//
//   {"frame":"blink","bytes":88,"created":1}
//   {"pool":"app","slot_bytes":128,"slots":8,"peak":3,"failures":0,"largest_request":88}
//
// tools/frame_report_to_header turns it into a header that sizes the
// pools of the next build (docs/core.md, "Sizing frame pools").
#include <weft/core/frame_pool.hpp>
#include <weft/port/port.hpp>

#include <cstdio>

namespace weft {

/// Writes the report with `write(const char*, size_t)`; default: the port
/// console. Executor thread only; does not allocate.
template <class Writer>
void print_frame_report(Writer&& write) noexcept {
    char line[192];
    const frame_record* r = frame_allocator::records();
    for (std::size_t i = 0, n = frame_allocator::record_count(); i < n; ++i) {
        int len = std::snprintf(line, sizeof line,
                                "{\"frame\":\"%s\",\"bytes\":%u,\"created\":%u}\n",
                                r[i].function, unsigned(r[i].bytes), unsigned(r[i].created));
        if (len > 0) write(line, std::size_t(len) < sizeof line ? std::size_t(len) : sizeof line - 1);
    }
    for (frame_pool_base* p = frame_pool_base::first(); p; p = p->next()) {
        int len = std::snprintf(line, sizeof line,
                                "{\"pool\":\"%s\",\"slot_bytes\":%u,\"slots\":%u,\"peak\":%u,"
                                "\"failures\":%u,\"largest_request\":%u}\n",
                                p->name(), unsigned(p->slot_bytes()), unsigned(p->capacity()),
                                unsigned(p->peak()), unsigned(p->failures()),
                                unsigned(p->largest_request()));
        if (len > 0) write(line, std::size_t(len) < sizeof line ? std::size_t(len) : sizeof line - 1);
    }
}

inline void print_frame_report() noexcept {
    print_frame_report([](const char* s, std::size_t n) { port::console_write(s, n); });
}

}  // namespace weft
