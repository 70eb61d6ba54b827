// Fixture for the drift test: version 1 of a kernel, whose signatures are committed in
// drift_probe_signatures.txt.
extern "C" __global__ void drift_probe(float* out, unsigned int n) {
  if (threadIdx.x < n) out[threadIdx.x] = 1.0f;
}
