// bf16 4096^3 GEMMs for timing on the GPU. A call of a CUDA library copies
// its inputs to the GPU and its result back, so model_check times @chain1
// (one GEMM) and @chain5 (five chained GEMMs, each f32 product cast back to
// bf16 for the next) and takes the difference: (t5 - t1) / 4 per GEMM, each
// with one cast kernel and its intermediates' allocations, without copies.
module {
  func.func @chain1(%a: tensor<4096x4096xbf16>, %b: tensor<4096x4096xbf16>) -> tensor<4096x4096xf32> {
    %c1 = mixprec.matmul %a, %b : tensor<4096x4096xbf16>, tensor<4096x4096xbf16> -> tensor<4096x4096xf32>
    return %c1 : tensor<4096x4096xf32>
  }
  func.func @chain5(%a: tensor<4096x4096xbf16>, %b: tensor<4096x4096xbf16>) -> tensor<4096x4096xf32> {
    %c1 = mixprec.matmul %a, %b : tensor<4096x4096xbf16>, tensor<4096x4096xbf16> -> tensor<4096x4096xf32>
    %h1 = mixprec.cast %c1 : tensor<4096x4096xf32> to tensor<4096x4096xbf16>
    %c2 = mixprec.matmul %h1, %b : tensor<4096x4096xbf16>, tensor<4096x4096xbf16> -> tensor<4096x4096xf32>
    %h2 = mixprec.cast %c2 : tensor<4096x4096xf32> to tensor<4096x4096xbf16>
    %c3 = mixprec.matmul %h2, %b : tensor<4096x4096xbf16>, tensor<4096x4096xbf16> -> tensor<4096x4096xf32>
    %h3 = mixprec.cast %c3 : tensor<4096x4096xf32> to tensor<4096x4096xbf16>
    %c4 = mixprec.matmul %h3, %b : tensor<4096x4096xbf16>, tensor<4096x4096xbf16> -> tensor<4096x4096xf32>
    %h4 = mixprec.cast %c4 : tensor<4096x4096xf32> to tensor<4096x4096xbf16>
    %c5 = mixprec.matmul %h4, %b : tensor<4096x4096xbf16>, tensor<4096x4096xbf16> -> tensor<4096x4096xf32>
    return %c5 : tensor<4096x4096xf32>
  }
}
