#pragma once
/// \file
/// Counter-based random numbers and integer hashes, callable on host and
/// device. Every random choice of the library (PMIS and MIS(2) weights, the
/// per-level seeds, the spectral estimates' start vector) and every integer
/// hash (the SpGEMM column tables, the pattern fingerprints) is one of these
/// pure functions of (seed, index): any backend and any order of evaluation
/// give the same bits, so host and device make the same splittings and
/// aggregates, run after run.

#include <cstdint>

#include "kernels/base/hd.hpp"

namespace strata::kernels::base {

/// 2^64 / golden ratio, rounded odd: splitmix64's Weyl increment, and the
/// multiplier of Fibonacci hashing.
inline constexpr std::uint64_t golden_gamma = 0x9E3779B97F4A7C15ull;

/// An odd multiplier that spreads consecutive indices over all 64 bits;
/// combined with a golden_gamma term where two streams must not correlate.
inline constexpr std::uint64_t index_multiplier = 0xD1B54A32D192ED03ull;

/// splitmix64's finaliser (Stafford's mix 13): a bijection of 64-bit words
/// whose every output bit depends on every input bit.
STRATA_HD constexpr std::uint64_t splitmix64_mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// The output number `counter` (from 0) of splitmix64 seeded with `seed`:
/// mix(seed + (counter + 1) golden_gamma).
STRATA_HD constexpr std::uint64_t splitmix64(std::uint64_t seed, std::uint64_t counter) {
  return splitmix64_mix(seed + golden_gamma * (counter + 1));
}

/// The top 53 bits of z as a double in [0, 1).
STRATA_HD constexpr double unit_interval(std::uint64_t z) {
  return static_cast<double>(z >> 11) * 0x1.0p-53;
}

/// A number in [0, 1) from (seed, index): two rounds of the splitmix64
/// finaliser, the seed's and the index's streams kept apart by their
/// multipliers (PMIS's weights).
STRATA_HD constexpr double random_unit(std::uint64_t seed, std::uint64_t index) {
  return unit_interval(
      splitmix64_mix(splitmix64_mix(seed + golden_gamma) ^ (index * index_multiplier)));
}

/// MurmurHash3's 64-bit finaliser: consecutive inputs give unrelated
/// outputs, so a wrapping sum of them identifies a set (pattern
/// fingerprints).
STRATA_HD constexpr std::uint64_t murmur3_mix(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

/// Fibonacci hashing: the high 64 - shift bits of key * golden_gamma, a slot
/// of a table of 2^(64 - shift) entries (0 < shift < 64). The low bits of the
/// key alone would keep the strides of stencil columns (n, n^2), often
/// multiples of the table size, and pile them into one slot.
STRATA_HD constexpr std::uint64_t fibonacci_hash(std::uint32_t key, int shift) {
  return (static_cast<std::uint64_t>(key) * golden_gamma) >> shift;
}

}  // namespace strata::kernels::base
