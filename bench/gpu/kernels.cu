// Kernels for cuda_runtime_check: a correct one and one that faults.
extern "C" __global__ void add_one(float *data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    data[i] += 1.0f;
}

extern "C" __global__ void write_wild(float *data) {
  // An address no allocation covers: the launch faults.
  reinterpret_cast<float *>(0x10)[threadIdx.x] = data[0];
}
