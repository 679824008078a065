// SPDX-License-Identifier: Apache-2.0
#pragma once
// PHM gateway: the datagram format of the simulated sensor fleet and the
// collator that files each measurement under its sensor.
//
// Datagram (little-endian), one measurement of one sensor:
//
//   offset  size  field
//   0       4     magic 'PHM1' (0x314D4850)
//   4       2     sensor id (0 .. sensors-1)
//   6       2     feature count F (must equal the gateway's F)
//   8       4     measurement index (0 .. measurements-1)
//   12      4     reserved (0)
//   16      2F    features, int16 fixed point (scale 2^13)
//
// The collator checks everything before it copies anything, and writes only
// into the slot of the (sensor, measurement) the datagram names, so a bad
// datagram can never corrupt another sensor's data. Storage is the caller's
// (allocated once at start-up); accept() allocates nothing.
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace phm {

inline constexpr std::uint32_t datagram_magic = 0x314D4850u;  // "PHM1"
inline constexpr std::size_t header_bytes = 16;

/// What accept() did with a datagram.
enum class outcome : std::uint8_t {
    stored,          ///< new measurement filed
    duplicate,       ///< same (sensor, index) again: ignored, first copy kept
    truncated,       ///< shorter than header + F values
    oversized,       ///< longer than header + F values
    bad_magic,       ///< not a PHM1 datagram
    unknown_sensor,  ///< sensor id >= sensors
    bad_index,       ///< measurement index >= measurements
    wrong_features,  ///< feature count differs from the gateway's F
    count_           ///< number of outcomes (not an outcome)
};

inline const char* to_string(outcome o) noexcept {
    constexpr const char* names[] = {"stored",    "duplicate",      "truncated", "oversized",
                                     "bad_magic", "unknown_sensor", "bad_index", "wrong_features"};
    return std::size_t(o) < std::size_t(outcome::count_) ? names[std::size_t(o)] : "?";
}

/// Writes one datagram for (sensor, index) into buf; returns its length.
/// Precondition: buf holds header_bytes + 2 * features bytes.
inline std::size_t encode(unsigned char* buf, std::uint16_t sensor, std::uint32_t index,
                          const std::int16_t* features, std::uint16_t feature_count) noexcept {
    auto put16 = [&](std::size_t at, std::uint16_t v) { buf[at] = std::uint8_t(v); buf[at + 1] = std::uint8_t(v >> 8); };
    auto put32 = [&](std::size_t at, std::uint32_t v) { put16(at, std::uint16_t(v)); put16(at + 2, std::uint16_t(v >> 16)); };
    put32(0, datagram_magic);
    put16(4, sensor);
    put16(6, feature_count);
    put32(8, index);
    put32(12, 0);
    for (std::size_t i = 0; i < feature_count; ++i) put16(header_bytes + 2 * i, std::uint16_t(features[i]));
    return header_bytes + 2 * std::size_t(feature_count);
}

/// Files measurements into caller-owned storage: either one block,
/// values[(s * M + m) * F + f], or one buffer per sensor (allocated at
/// start-up wherever the application likes), sensor_values[s][m * F + f].
class collator {
public:
    /// `sensor_values[s]` holds measurements*features int16 for sensor s;
    /// `seen` holds sensors*measurements flags. All are zeroed here.
    collator(std::int16_t* const* sensor_values, std::uint8_t* seen, std::size_t sensors,
             std::size_t measurements, std::size_t features) noexcept
        : values_(nullptr), per_sensor_(sensor_values), seen_(seen), sensors_(sensors),
          measurements_(measurements), features_(features) {
        for (std::size_t s = 0; s < sensors; ++s)
            std::memset(per_sensor_[s], 0, measurements * features * sizeof(std::int16_t));
        std::memset(seen_, 0, sensors * measurements);
    }

    /// `values` holds sensors*measurements*features int16; `seen` holds
    /// sensors*measurements flags. Both are zeroed here.
    collator(std::int16_t* values, std::uint8_t* seen, std::size_t sensors, std::size_t measurements,
             std::size_t features) noexcept
        : values_(values), seen_(seen), sensors_(sensors), measurements_(measurements), features_(features) {
        std::memset(values_, 0, sensors * measurements * features * sizeof(std::int16_t));
        std::memset(seen_, 0, sensors * measurements);
    }

    /// Validates and files one datagram of `len` bytes. Never reads past
    /// data + len, never writes outside the named slot.
    outcome accept(const unsigned char* data, std::size_t len) noexcept {
        outcome o = check(data, len);
        ++counts_[std::size_t(o)];
        if (o != outcome::stored) return o;
        const std::size_t s = get16(data + 4), m = get32(data + 8);
        std::int16_t* dst = values_ ? values_ + (s * measurements_ + m) * features_
                                    : per_sensor_[s] + m * features_;
        for (std::size_t i = 0; i < features_; ++i) dst[i] = std::int16_t(get16(data + header_bytes + 2 * i));
        seen_[s * measurements_ + m] = 1;
        ++stored_;
        return o;
    }

    /// Datagrams that ended in outcome o.
    std::size_t count(outcome o) const noexcept { return counts_[std::size_t(o)]; }
    /// Datagrams rejected for any reason (everything but stored/duplicate).
    std::size_t rejected() const noexcept {
        std::size_t n = 0;
        for (std::size_t i = std::size_t(outcome::truncated); i < std::size_t(outcome::count_); ++i) n += counts_[i];
        return n;
    }
    /// Measurements filed so far, and whether every slot is filled.
    std::size_t stored() const noexcept { return stored_; }
    bool complete() const noexcept { return stored_ == sensors_ * measurements_; }
    bool has(std::size_t s, std::size_t m) const noexcept { return seen_[s * measurements_ + m] != 0; }

private:
    static std::uint32_t get16(const unsigned char* p) noexcept { return std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8; }
    static std::uint32_t get32(const unsigned char* p) noexcept { return get16(p) | get16(p + 2) << 16; }

    outcome check(const unsigned char* data, std::size_t len) const noexcept {
        if (len < header_bytes) return outcome::truncated;
        if (get32(data) != datagram_magic) return outcome::bad_magic;
        if (get16(data + 6) != features_) return outcome::wrong_features;
        const std::size_t want = header_bytes + 2 * features_;
        if (len < want) return outcome::truncated;
        if (len > want) return outcome::oversized;
        if (get16(data + 4) >= sensors_) return outcome::unknown_sensor;
        if (get32(data + 8) >= measurements_) return outcome::bad_index;
        if (seen_[get16(data + 4) * measurements_ + get32(data + 8)]) return outcome::duplicate;
        return outcome::stored;
    }

    std::int16_t* values_;
    std::int16_t* const* per_sensor_ = nullptr;
    std::uint8_t* seen_;
    std::size_t sensors_, measurements_, features_;
    std::size_t counts_[std::size_t(outcome::count_)] = {};
    std::size_t stored_ = 0;
};

}  // namespace phm
