// A kernel's compiled parameter list, and the handle through which ops launch it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gpuops {

struct KernelParam {
  std::string name;     // from the kernel's source declaration; "#i" where unknown
  uint32_t offset = 0;  // byte offset in the parameter area of the target arch
  uint32_t size = 0;    // bytes

  friend bool operator==(const KernelParam&, const KernelParam&) = default;
};

struct KernelSignature {
  std::string kernel;
  std::vector<KernelParam> params;
  // Architectures whose image ships the kernel ("sm_80", "sm_90a"); empty when unknown.
  std::vector<std::string> archs;

  uint32_t param_bytes() const;
  // "name(a:0:8, b:8:8, m:16:4)"
  std::string ToString() const;
  friend bool operator==(const KernelSignature&, const KernelSignature&) = default;
};

// What a backend holds for a loaded kernel. Owned by the backend; valid while the backend lives.
struct KernelInfo {
  KernelSignature signature;
  std::string module;           // the module (op family) it came from
  uint64_t native = 0;          // the backend's own function handle (a CUfunction on CUDA)
  const void* owner = nullptr;  // the backend that loaded it

  const std::string& name() const { return signature.kernel; }
};

// A kernel ready to launch. Null means "this build or target does not ship that kernel": ops test
// `is_null()` and fall back to another variant.
class KernelHandle {
 public:
  constexpr KernelHandle() = default;
  constexpr explicit KernelHandle(const KernelInfo* info) : info_(info) {}

  constexpr bool is_null() const { return info_ == nullptr; }
  constexpr const KernelInfo* info() const { return info_; }
  // Empty string for a null handle.
  const std::string& name() const;

  friend constexpr bool operator==(KernelHandle, KernelHandle) = default;

 private:
  const KernelInfo* info_ = nullptr;
};

}  // namespace gpuops
