//===- Passes.td - conversions out of mixprec ---------------*- tablegen -*-===//

#ifndef MIXPREC_CONVERSION_PASSES_TD
#define MIXPREC_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertMixprecToLinalg : Pass<"convert-mixprec-to-linalg",
                                  "::mlir::ModuleOp"> {
  let summary = "Lower mixprec compute ops to linalg, arith, math and tensor";
  let description = [{
    Every compute and training op of the dialect becomes linalg (named or
    generic) ops on tensors with arith/math bodies, keeping the 16-bit
    semantics of ARCHITECTURE.md §4: a 16-bit op computes in f32 and rounds
    once, to its result type; contractions widen 16-bit inputs inside the
    contraction and accumulate in f32; casts round to nearest even.

    Model state (`parameter`, `buffer`, `read`, `assign`, `rng_state`,
    `train_step`) is not lowered here: the train-step passes turn it into
    function arguments and results first (`--mixprec-expose-state`).

    ```mlir
    %z = mixprec.add %x, %y : tensor<4x8xf16>, tensor<4x8xf16>
    ```
    becomes
    ```mlir
    %e = tensor.empty() : tensor<4x8xf16>
    %z = linalg.generic {...} ins(%x, %y : tensor<4x8xf16>, tensor<4x8xf16>)
                              outs(%e : tensor<4x8xf16>) {
    ^bb0(%a: f16, %b: f16, %out: f16):
      %af = arith.extf %a : f16 to f32
      %bf = arith.extf %b : f16 to f32
      %s = arith.addf %af, %bf : f32
      %r = arith.truncf %s : f32 to f16
      linalg.yield %r : f16
    } -> tensor<4x8xf16>
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect", "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def MixprecCopiesToLoops : Pass<"mixprec-copies-to-loops"> {
  let summary = "Turn memref.copy into linalg.copy";
  let description = [{
    Bufferization copies into strided views (for example when a
    `tensor.pad` is materialized). `finalize-memref-to-llvm` lowers such a
    `memref.copy` to a call to `memrefCopy` from MLIR's C runner utilities,
    which compiled models must not depend on. As `linalg.copy`, the copy
    becomes a loop nest instead.

    ```mlir
    memref.copy %src, %view : memref<8x8xf32> to memref<8x8xf32, strided<[10, 1], offset: 11>>
    ```
    becomes
    ```mlir
    linalg.copy ins(%src : memref<8x8xf32>) outs(%view : memref<8x8xf32, strided<[10, 1], offset: 11>>)
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def MixprecTileAndVectorize : Pass<"mixprec-tile-and-vectorize",
                                   "::mlir::func::FuncOp"> {
  let summary = "Tile linalg contractions on tensors and vectorize the tiles";
  let description = [{
    Every linalg contraction on tensors with static shapes (linalg.matmul,
    linalg.batch_matmul, and any linalg.generic that
    `linalg::isaContractionOpInterface` accepts: a multiply-add body whose
    inputs may be widened, e.g. f16/bf16 `arith.extf` to an f32
    accumulator) is tiled with `scf.for` loops over (batch, m, n, k) and
    each tile becomes one `vector.contract` between `vector.transfer_read`s
    of its operands. The loops run batch dims, then m, then n, then k
    innermost; the innermost m, n and k dims (as `linalg::inferContractionDims`
    finds them) get `tile-m`, `tile-n` and `tile-k`, every other dim 1, and a
    dim no larger than its tile size is not tiled.

    Shapes not divisible by the tile sizes are exact: with `peel` (the
    default) the last, partial iteration of every tiled loop is peeled off,
    so the full tiles and each remainder tile have static shapes and need no
    masks; without it, remainder tiles use masked vectorization
    (`vector.mask`) with the tile sizes as vector sizes.

    An operand laid out with the reduction dim innermost where the
    outer-product kernel wants the n (or m) dim, such as the weight of
    `mixprec.linear` read transposed, is first copied once into the layout
    the kernel reads contiguously (`pack-transposed`), which costs O(n*k)
    against the contraction's O(m*n*k).

    The accumulator read/write pair of each k loop is hoisted out of the loop
    (the tile stays in vector registers across k) and the slices are folded
    into the transfers. Products and sums keep the op's element types: 16-bit
    inputs are widened exactly and accumulate in f32, no fast-math flag is
    added (ARCHITECTURE.md §4). The vector ops are lowered later by the CPU
    pipeline (`vector.contract` to outer products, i.e. FMAs).

    ```mlir
    %r = linalg.matmul ins(%a, %b : tensor<37x53xf16>, tensor<53x29xf16>)
                       outs(%acc : tensor<37x29xf32>) -> tensor<37x29xf32>
    ```
    becomes, with `tile-m=8 tile-n=32 tile-k=1` (the n dim, 29, is not
    tiled; the m dim 37 = 4*8 + 5 is peeled):
    ```mlir
    %0 = scf.for %i = %c0 to %c32 step %c8 iter_args(%t = %acc) -> (tensor<37x29xf32>) {
      %c = vector.transfer_read %t[%i, %c0], %zero : tensor<37x29xf32>, vector<8x29xf32>
      %s = scf.for %k = %c0 to %c53 step %c1 iter_args(%v = %c) -> (vector<8x29xf32>) {
        %x = vector.transfer_read %a[%i, %k], %pad : tensor<37x53xf16>, vector<8x1xf16>
        %y = vector.transfer_read %b[%k, %c0], %pad : tensor<53x29xf16>, vector<1x29xf16>
        %p = vector.contract {...} %x, %y, %v : vector<8x1xf16>, vector<1x29xf16> into vector<8x29xf32>
        scf.yield %p : vector<8x29xf32>
      }
      %w = vector.transfer_write %s, %t[%i, %c0] : vector<8x29xf32>, tensor<37x29xf32>
      scf.yield %w : tensor<37x29xf32>
    }
    // ... the same for the 5-row remainder tile, with vector<5x...>.
    ```
  }];
  let options = [
    Option<"tileM", "tile-m", "int64_t", /*default=*/"8",
           "Tile size of the innermost m (LHS-only parallel) dim">,
    Option<"tileN", "tile-n", "int64_t", /*default=*/"32",
           "Tile size of the innermost n (RHS-only parallel) dim">,
    Option<"tileK", "tile-k", "int64_t", /*default=*/"1",
           "Tile size of the innermost k (reduction) dim">,
    Option<"peel", "peel", "bool", /*default=*/"true",
           "Peel partial tiles (static shapes) instead of masking them">,
    Option<"packTransposed", "pack-transposed", "bool", /*default=*/"true",
           "Copy operands whose innermost dim is the reduction dim into the "
           "layout the kernel reads contiguously">,
    Option<"widenInputs", "widen-inputs", "bool", /*default=*/"true",
           "Widen 16-bit inputs to the accumulator type in a copy (exact) "
           "before the contraction">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect", "::mlir::ub::UBDialect",
    "::mlir::vector::VectorDialect"
  ];
}

#endif // MIXPREC_CONVERSION_PASSES_TD
