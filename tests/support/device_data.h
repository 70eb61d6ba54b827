// Host vectors to and from device buffers in tests; a failed copy fails the test.
#pragma once

#include <utility>
#include <vector>

#include "gpuops/runtime/owned.h"
#include "gtest/gtest.h"

namespace gpuops::testing {

template <typename T>
DeviceBuffer UploadVector(GpuBackend& gpu, const std::vector<T>& host) {
  auto b = DeviceBuffer::FromHost<T>(gpu, host);
  EXPECT_TRUE(b.ok()) << b.status();
  return b.ok() ? *std::move(b) : DeviceBuffer();
}

template <typename T>
std::vector<T> DownloadVector(const DeviceBuffer& b) {
  auto host = b.template ToHost<T>();
  EXPECT_TRUE(host.ok()) << host.status();
  return host.ok() ? *std::move(host) : std::vector<T>();
}

}  // namespace gpuops::testing
