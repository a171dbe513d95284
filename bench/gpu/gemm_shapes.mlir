// Contractions the GPU checker runs on the CPU and CUDA libraries with the
// same inputs: odd, even and degenerate shapes in f16 and bf16, each
// accumulating in f32. Named <op>_<type>_<M>x<K>x<N>; the checker reads the
// shapes from the function table.
module {
  func.func @matmul_f16_64x64x64(%a: tensor<64x64xf16>, %b: tensor<64x64xf16>) -> tensor<64x64xf32> {
    %c = mixprec.matmul %a, %b : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    return %c : tensor<64x64xf32>
  }
  func.func @matmul_bf16_64x64x64(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>) -> tensor<64x64xf32> {
    %c = mixprec.matmul %a, %b : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    return %c : tensor<64x64xf32>
  }
  func.func @matmul_f16_37x53x29(%a: tensor<37x53xf16>, %b: tensor<53x29xf16>) -> tensor<37x29xf32> {
    %c = mixprec.matmul %a, %b : tensor<37x53xf16>, tensor<53x29xf16> -> tensor<37x29xf32>
    return %c : tensor<37x29xf32>
  }
  func.func @matmul_bf16_37x53x29(%a: tensor<37x53xbf16>, %b: tensor<53x29xbf16>) -> tensor<37x29xf32> {
    %c = mixprec.matmul %a, %b : tensor<37x53xbf16>, tensor<53x29xbf16> -> tensor<37x29xf32>
    return %c : tensor<37x29xf32>
  }
  func.func @matmul_f16_1x17x1(%a: tensor<1x17xf16>, %b: tensor<17x1xf16>) -> tensor<1x1xf32> {
    %c = mixprec.matmul %a, %b : tensor<1x17xf16>, tensor<17x1xf16> -> tensor<1x1xf32>
    return %c : tensor<1x1xf32>
  }
  func.func @matmul_bf16_1x17x1(%a: tensor<1x17xbf16>, %b: tensor<17x1xbf16>) -> tensor<1x1xf32> {
    %c = mixprec.matmul %a, %b : tensor<1x17xbf16>, tensor<17x1xbf16> -> tensor<1x1xf32>
    return %c : tensor<1x1xf32>
  }
  func.func @matmul_f16_130x200x70(%a: tensor<130x200xf16>, %b: tensor<200x70xf16>) -> tensor<130x70xf32> {
    %c = mixprec.matmul %a, %b : tensor<130x200xf16>, tensor<200x70xf16> -> tensor<130x70xf32>
    return %c : tensor<130x70xf32>
  }
  func.func @matmul_bf16_130x200x70(%a: tensor<130x200xbf16>, %b: tensor<200x70xbf16>) -> tensor<130x70xf32> {
    %c = mixprec.matmul %a, %b : tensor<130x200xbf16>, tensor<200x70xbf16> -> tensor<130x70xf32>
    return %c : tensor<130x70xf32>
  }
  func.func @matmul_f16_128x96x160(%a: tensor<128x96xf16>, %b: tensor<96x160xf16>) -> tensor<128x160xf32> {
    %c = mixprec.matmul %a, %b : tensor<128x96xf16>, tensor<96x160xf16> -> tensor<128x160xf32>
    return %c : tensor<128x160xf32>
  }
  func.func @matmul_bf16_128x96x160(%a: tensor<128x96xbf16>, %b: tensor<96x160xbf16>) -> tensor<128x160xf32> {
    %c = mixprec.matmul %a, %b : tensor<128x96xbf16>, tensor<96x160xbf16> -> tensor<128x160xf32>
    return %c : tensor<128x160xf32>
  }
  func.func @matmul_f16_257x129x65(%a: tensor<257x129xf16>, %b: tensor<129x65xf16>) -> tensor<257x65xf32> {
    %c = mixprec.matmul %a, %b : tensor<257x129xf16>, tensor<129x65xf16> -> tensor<257x65xf32>
    return %c : tensor<257x65xf32>
  }
  func.func @matmul_bf16_257x129x65(%a: tensor<257x129xbf16>, %b: tensor<129x65xbf16>) -> tensor<257x65xf32> {
    %c = mixprec.matmul %a, %b : tensor<257x129xbf16>, tensor<129x65xbf16> -> tensor<257x65xf32>
    return %c : tensor<257x65xf32>
  }
  // B stored as [N, K], as linear layers keep their weights.
  func.func @matmul_rhs_t_f16_37x53x29(%a: tensor<37x53xf16>, %b: tensor<29x53xf16>) -> tensor<37x29xf32> {
    %c = mixprec.matmul %a, %b {transpose_rhs} : tensor<37x53xf16>, tensor<29x53xf16> -> tensor<37x29xf32>
    return %c : tensor<37x29xf32>
  }
  func.func @matmul_rhs_t_bf16_130x200x70(%a: tensor<130x200xbf16>, %b: tensor<70x200xbf16>) -> tensor<130x70xf32> {
    %c = mixprec.matmul %a, %b {transpose_rhs} : tensor<130x200xbf16>, tensor<70x200xbf16> -> tensor<130x70xf32>
    return %c : tensor<130x70xf32>
  }
  // Attention's shapes: [batch, heads, T, Dh], scores = q k^T and ctx = p v.
  func.func @batch_matmul_f16_8x4x16x16x16(%a: tensor<8x4x16x16xf16>, %b: tensor<8x4x16x16xf16>) -> tensor<8x4x16x16xf32> {
    %c = mixprec.batch_matmul %a, %b : tensor<8x4x16x16xf16>, tensor<8x4x16x16xf16> -> tensor<8x4x16x16xf32>
    return %c : tensor<8x4x16x16xf32>
  }
  func.func @batch_matmul_rhs_t_bf16_3x33x20x47(%a: tensor<3x33x20xbf16>, %b: tensor<3x47x20xbf16>) -> tensor<3x33x47xf32> {
    %c = mixprec.batch_matmul %a, %b {transpose_rhs} : tensor<3x33x20xbf16>, tensor<3x47x20xbf16> -> tensor<3x33x47xf32>
    return %c : tensor<3x33x47xf32>
  }
  // A 3x3 convolution with padding 1 and stride 2: NCHW x OIHW -> NCHW.
  func.func @conv2d_f16_2x5x11x11_7x5x3x3(%x: tensor<2x5x11x11xf16>, %w: tensor<7x5x3x3xf16>) -> tensor<2x7x6x6xf32> {
    %y = mixprec.conv2d %x, %w {padding = array<i64: 1, 1>, stride = array<i64: 2, 2>} : tensor<2x5x11x11xf16>, tensor<7x5x3x3xf16> -> tensor<2x7x6x6xf32>
    return %y : tensor<2x7x6x6xf32>
  }
}
