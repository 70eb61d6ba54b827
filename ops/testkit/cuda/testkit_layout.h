// Launch geometry shared by the testkit kernels and their launchers and emulations.
#pragma once

#include <cstdint>

namespace gpuops::ops::testkit {

// testkit_stream_read: kStreamThreads threads per block, each streaming kStreamUnroll 16-byte
// loads per iteration of a grid-stride loop.
inline constexpr uint32_t kStreamThreads = 512;
inline constexpr uint32_t kStreamUnroll = 4;

}  // namespace gpuops::ops::testkit
