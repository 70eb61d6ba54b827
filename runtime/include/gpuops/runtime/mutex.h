// The mutex gpuops locks with: std::mutex with Abseil's thread-safety annotations, so that clang
// can check the locking discipline (ABSL_GUARDED_BY and friends) and ThreadSanitizer sees every
// acquire and release (Debian's Abseil is not built for TSan: an absl::Mutex there shows races
// that are not there).
#pragma once

#include <mutex>

#include "absl/base/thread_annotations.h"

namespace gpuops {

class ABSL_LOCKABLE Mutex {
 public:
  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() { mu_.lock(); }
  void Unlock() ABSL_UNLOCK_FUNCTION() { mu_.unlock(); }

 private:
  std::mutex mu_;
};

// Holds `mu` for its scope: `MutexLock lock(&mu_);`.
class ABSL_SCOPED_LOCKABLE MutexLock {
 public:
  explicit MutexLock(Mutex* mu) ABSL_EXCLUSIVE_LOCK_FUNCTION(mu) : mu_(mu) { mu_->Lock(); }
  ~MutexLock() ABSL_UNLOCK_FUNCTION() { mu_->Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex* mu_;
};

}  // namespace gpuops
