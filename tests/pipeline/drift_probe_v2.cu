// Fixture for the drift test: version 2 of the kernel gains a parameter; checking its fatbin
// against the committed version-1 signatures must fail.
extern "C" __global__ void drift_probe(float* out, unsigned int n, float value) {
  if (threadIdx.x < n) out[threadIdx.x] = value;
}
