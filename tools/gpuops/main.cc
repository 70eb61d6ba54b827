// Placeholder main program: launches one kernel through the mock and prints what it recorded.
#include <cstdio>

#include "gpuops/mock/recording_backend.h"
#include "gpuops/runtime/kernel_launch.h"
#include "gpuops/runtime/status.h"

namespace {

absl::Status Run() {
  gpuops::mock::RecordingBackend gpu;
  GPUOPS_ASSIGN_OR_RETURN(
      gpuops::ModuleHandle module,
      gpu.LoadModule(gpuops::mock::DescribeModule(
          "example", "arch sm_90a\nexample_scale sm_90a out:0:8 in:8:8 n:16:4 s:20:4\n")));
  GPUOPS_ASSIGN_OR_RETURN(gpuops::KernelHandle kernel, gpu.GetKernel(module, "example_scale"));
  GPUOPS_ASSIGN_OR_RETURN(gpuops::DevicePtr out, gpu.Alloc(4096));
  GPUOPS_ASSIGN_OR_RETURN(gpuops::DevicePtr in, gpu.Alloc(4096));
  GPUOPS_RETURN_IF_ERROR(gpuops::KernelLaunch(gpu, kernel)
                             .grid({4, 1, 1})
                             .block({256, 1, 1})
                             .arg_ptr(out)
                             .arg_ptr(in)
                             .arg_u32(1024)
                             .arg_f32(0.5f)
                             .launch());
  for (const auto& r : gpu.launches()) std::printf("%s\n", ToString(r).c_str());
  return absl::OkStatus();
}

}  // namespace

int main() {
  absl::Status s = Run();
  if (!s.ok()) {
    std::fprintf(stderr, "gpuops: %s\n", std::string(s.message()).c_str());
    return 1;
  }
  return 0;
}
