// A kernel bound to its argument list: TypedKernel<GemmArgs>::Bind checks, once, that the
// loaded kernel's compiled parameters are exactly GemmArgs's fields (count, each size, each name
// where the signature knows it), and from then on the kernel launches only with a GemmArgs:
//
//   GPUOPS_ASSIGN_OR_RETURN(auto gemm, TypedKernel<GemmArgs>::Bind(handle));
//   GPUOPS_RETURN_IF_ERROR(gemm.Launch(gpu, dims, GemmArgs{.a = a, ...}).launch(stream));
//
// Another struct, a missing field's type or a raw address where a DevicePtr is declared does not
// compile; KernelLaunch still checks every launch against the compiled signature at run time.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "gpuops/runtime/backend.h"
#include "gpuops/runtime/kernel_args.h"
#include "gpuops/runtime/kernel_launch.h"
#include "gpuops/runtime/kernel_signature.h"

namespace gpuops {

template <typename Args>
class TypedKernel {
 public:
  // A null kernel: the build or target does not ship it.
  TypedKernel() = default;

  // `kernel` bound to Args, or kFailedPrecondition naming the kernel, both lists and the first
  // difference. A null handle binds to a null TypedKernel.
  static absl::StatusOr<TypedKernel> Bind(KernelHandle kernel) {
    if (kernel.is_null()) return TypedKernel();
    static constexpr auto kFields = ArgFields<Args>();
    if (absl::Status s = CheckSignatureMatches(kernel.info()->signature, Args::kName, kFields);
        !s.ok()) {
      return s;
    }
    return TypedKernel(kernel);
  }

  bool is_null() const { return handle_.is_null(); }
  KernelHandle handle() const { return handle_; }
  // Empty for a null kernel.
  const std::string& name() const { return handle_.name(); }

  // The launch of this kernel with `args`, ready to validate and launch (or to keep in a plan).
  KernelLaunch Launch(GpuBackend& gpu, const LaunchDims& dims, const Args& args) const {
    KernelLaunch launch(gpu, handle_);
    launch.dims(dims).args(args);
    return launch;
  }

 private:
  explicit TypedKernel(KernelHandle handle) : handle_(handle) {}
  KernelHandle handle_;
};

}  // namespace gpuops
