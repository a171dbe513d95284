//===- Passes.td - bufferized code to loops and kernels ----*- tablegen -*-===//
//
// The codegen passes: after bufferization, the CPU backend tiles,
// vectorizes and outlines loop nests; the CUDA backend maps them to kernels
// and the contractions to tensor-core GEMMs.
//
//===----------------------------------------------------------------------===//

#ifndef MIXPREC_CODEGEN_PASSES_TD
#define MIXPREC_CODEGEN_PASSES_TD

include "mlir/Pass/PassBase.td"

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

def MixprecSplitDeallocs : Pass<"mixprec-split-deallocs"> {
  let summary = "Split deallocations of distinct fresh allocations, in "
                "linear time";
  let description = [{
    Ownership-based deallocation frees a block's buffers in one
    `bufferization.dealloc` at its end: for a train step, one op with every
    temporary of the step. `buffer-deallocation-simplification` splits it
    by asking alias analysis about every pair of its memrefs, a cost that
    grows with the square of the model's size. A dealloc that retains
    nothing and frees only distinct `memref.alloc` results needs no such
    question (fresh allocations never alias) and becomes one dealloc per
    allocation, each on its own condition. Run it between
    `ownership-based-buffer-deallocation` and the simplification.

    ```mlir
    bufferization.dealloc (%a, %b : memref<4xf32>, memref<8xf32>) if (%true, %c)
    ```
    becomes
    ```mlir
    bufferization.dealloc (%a : memref<4xf32>) if (%true)
    bufferization.dealloc (%b : memref<8xf32>) if (%c)
    ```
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect"];
}

def MixprecDistinctResults
    : Pass<"mixprec-distinct-results", "::mlir::func::FuncOp"> {
  let summary = "Copy values that a function returns more than once";
  let description = [{
    Every result of a compiled function becomes a caller-allocated
    out-parameter (`buffer-results-to-out-params`), which needs a buffer of
    its own per result. A value returned twice is copied for each repeat.

    ```mlir
    return %y, %y : tensor<4xf32>, tensor<4xf32>
    ```
    becomes
    ```mlir
    %e = tensor.empty() : tensor<4xf32>
    %c = linalg.copy ins(%y : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    return %y, %c : tensor<4xf32>, tensor<4xf32>
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def MixprecTileAndVectorize : Pass<"mixprec-tile-and-vectorize",
                                   "::mlir::func::FuncOp"> {
  let summary = "Tile linalg contractions on tensors into vectorized register "
                "tiles";
  let description = [{
    Every linalg contraction on tensors with static shapes whose body is
    `out + cast(a) * cast(b)`, each cast an exact widening to the
    accumulator's type (`arith.extf`) or none (linalg.matmul,
    linalg.batch_matmul, linalg.contract, and any linalg.generic that
    `linalg::isaContractionOpInterface` accepts with such a body, e.g. the
    f16/bf16 contractions of mixprec.matmul/linear/batch_matmul with an f32
    accumulator), becomes `scf.for` loops over register tiles whose body is
    one `vector.contract`:

    1. it is rewritten as one `linalg.contract` with the same indexing maps;
       16-bit inputs are first widened to the accumulator's type in a copy
       (`widen-inputs`; exact, and always when the two inputs' types
       differ), and a RHS read with a reduction dim innermost (the weight of
       mixprec.linear) is copied once with its innermost n dim innermost
       (`pack-transposed`): O(size of the operand) against the
       contraction's O(m*n*k), and every k step of the kernel then loads one
       contiguous row of the RHS and broadcasts scalars of the LHS;
    2. `scf::tileUsingSCF` tiles the innermost m, n and k dims (as
       `linalg::inferContractionDims` finds them) by `tile-m`, `tile-n` and
       `tile-k`, every other dim by 1 (a dim no larger than its tile is not
       tiled); loops run batch, m, n, then k innermost;
    3. with `peel` (the default) the last, partial iteration of every tiled
       loop is peeled off (`scf::peelForLoopAndSimplifyBounds`), so every
       tile, full or remainder, has a static shape and needs no mask;
       without it, remainder tiles are vectorized with masks at the tile
       sizes;
    4. `linalg::vectorize` turns each tile into `vector.transfer_read`s, one
       `vector.contract` and a `vector.transfer_write`; unit dims (batch)
       leave the vectors, slices fold into the transfers, and the
       accumulator's read/write pair is hoisted out of the k loop, so the
       tile stays in registers for the whole reduction.

    Results are exact for every shape: masks or peeled tiles cover the
    remainders. Products and sums are f32 (or the accumulator's type) as in
    the op; no fast-math flag is added (docs/design.md §4). The CPU
    pipeline lowers `vector.contract` to outer products, i.e. scalar
    broadcasts and vector FMAs (`llvm.intr.fmuladd`). Dynamic shapes and
    other ops are left alone (they become loops).

    ```mlir
    %r = linalg.matmul ins(%a, %b : tensor<37x53xf16>, tensor<53x29xf16>)
                       outs(%acc : tensor<37x29xf32>) -> tensor<37x29xf32>
    ```
    becomes, with `tile-m=8 tile-n=32 tile-k=1` (n = 29 is not tiled;
    m = 37 = 4 * 8 + 5 is peeled):
    ```mlir
    %aw = linalg.generic ... ins(%a : tensor<37x53xf16>) outs(... : tensor<37x53xf32>) // arith.extf
    %bw = linalg.generic ... ins(%b : tensor<53x29xf16>) outs(... : tensor<53x29xf32>) // arith.extf
    %0 = scf.for %i = %c0 to %c32 step %c8 iter_args(%t = %acc) -> (tensor<37x29xf32>) {
      %c = vector.transfer_read %t[%i, %c0], %zero : tensor<37x29xf32>, vector<8x29xf32>
      %s = scf.for %k = %c0 to %c53 step %c1 iter_args(%v = %c) -> (vector<8x29xf32>) {
        %x = vector.transfer_read %aw[%i, %k], %zero : tensor<37x53xf32>, vector<8x1xf32>
        %y = vector.transfer_read %bw[%k, %c0], %zero : tensor<53x29xf32>, vector<29xf32>
        %yb = vector.broadcast %y : vector<29xf32> to vector<1x29xf32>
        %p = vector.contract {...} %x, %yb, %v : vector<8x1xf32>, vector<1x29xf32> into vector<8x29xf32>
        scf.yield %p : vector<8x29xf32>
      }
      %w = vector.transfer_write %s, %t[%i, %c0] : vector<8x29xf32>, tensor<37x29xf32>
      scf.yield %w : tensor<37x29xf32>
    }
    // The same for the 5-row remainder tile at row 32, with vector<5x29xf32>.
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
           "Copy a RHS with a reduction dim innermost into a layout with its "
           "n dim innermost">,
    Option<"widenInputs", "widen-inputs", "bool", /*default=*/"true",
           "Widen 16-bit inputs to the accumulator type in a copy (exact) "
           "before the contraction">,
    Option<"widenLimit", "widen-limit", "int64_t", /*default=*/"8388608",
           "Widen only when each input's f32 copy takes at most this many "
           "bytes: a larger copy holds more memory than its faster loads "
           "are worth (the tiles are widened in registers instead)">,
    Option<"libraryContractions", "library-contractions", "bool",
           /*default=*/"false",
           "Leave contractions whose inputs are both f32 or both bf16 "
           "untiled for --mixprec-contractions-to-calls; f16 and mixed "
           "inputs are widened to f32 first; batched dot products (no m "
           "or n loop) are tiled, not one GEMM call per output">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect", "::mlir::ub::UBDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def MixprecContractionsToCalls : Pass<"mixprec-contractions-to-calls",
                                      "::mlir::ModuleOp"> {
  let summary = "Compute contractions on buffers with the CPU runtime's "
                "mixprec_cpu_contract";
  let description = [{
    Runs after bufferization, before the memory plan. Every linalg
    contraction on buffers with static loop ranges whose body is a
    multiply-add, whose inputs are both f32 or both bf16 and whose output
    is f32 becomes one call of
    `mixprec_cpu_contract` (include/mixprec/Runtime/mixprec_cpu_contract.h):
    an i64 description on the stack holds the operands' addresses and
    element types and, per loop, its kind (batch, m, n or k, as
    `linalg::inferContractionDims` finds them), extent and each operand's
    stride, read from the buffers' strided metadata. The runtime sums into
    the output's values; a `linalg.fill` of zero into the output just
    before is dropped and the call writes the sums alone. Then, when the
    op right after (but for ops that touch no memory) rounds the f32
    output to bf16 elementwise, the only reader of the output's buffer
    (through reshapes), both buffers contiguous, the call writes the bf16
    buffer itself, with the f32 buffer's strides (result type bf16), in
    the rounding's place, and the rounding goes, and the f32 buffer when
    nothing else reads it: one pass over memory less, and no f32 result
    for the memory plan to hold, the same bits (the runtime rounds the f32
    sums as `arith.truncf` does). Each call, with the reads of its
    buffers' addresses, is one `scf.execute_region`: the memory plan sees
    every buffer it touches used where it runs.
    A module pass: it declares the runtime function once for all the
    module's functions, and defines `mixprec_cpu_contractions`, a table of
    the descriptions whose words are all constants (addresses 0; a stride
    known only at run time leaves its contraction out), from which the
    runtime makes the GEMMs and sizes its per-thread buffers when a trainer
    is created, before the memory plan is asked for and the first step.

    ```mlir
    linalg.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>)
                  outs(%c : memref<64x16xf32>)
    ```
    becomes stores of the 9 + 3 * 5 words into a `memref<24xi64>` and
    `func.call @mixprec_cpu_contract(%description)`.
  }];
  let options = [
    Option<"bf16DotProducts", "bf16-dot-products", "bool", /*default=*/"true",
           "Let bf16 contractions run on the CPU's bf16 dot-product "
           "instructions where it has them (AVX512-BF16, AMX): twice the "
           "f32 rate, sums that add products in pairs; false widens them to "
           "f32 and sums in k order, as the f32 GEMMs and the GPU's tensor "
           "cores (and the simulator) do">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def MixprecParallelLoopNests : Pass<"mixprec-parallel-loop-nests",
                                    "::mlir::ModuleOp"> {
  let summary = "Let outlined loop nests run their outer parallel loop in "
                "chunks";
  let description = [{
    Runs after `--mixprec-outline-loop-nests`. An outlined nest of one
    linalg op on buffers with static loop ranges whose first loop is
    parallel and indexes every output, or of one `scf.forall` on buffers
    with static bounds whose first loop starts at 0 in steps of 1
    (`--mixprec-transpose-lane-blocks`' blocks), and whose outer loop holds
    more than one chunk of `chunk-work` (elements of the inner loops times
    the ops of the body per outer iteration; an `scf.for` in the body counts
    its ops once per iteration), becomes loops here; its function takes
    the outer loop's [begin, end) as two more index arguments, which every
    call passes as the whole range, and is marked `mixprec.parallel_extent`
    and `mixprec.parallel_chunk` (outer iterations per chunk) for
    `--mixprec-launch-parallel-nests`. The chunks follow from the shapes
    alone; each iteration writes its own elements, so splitting changes no
    bit.
  }];
  let options = [
    Option<"chunkWork", "chunk-work", "int64_t", /*default=*/"32768",
           "The work of one chunk (inner elements times body ops); a nest "
           "of one chunk or less stays whole">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

def MixprecBooleansAsBytes : Pass<"mixprec-booleans-as-bytes"> {
  let summary = "i1 in memory loaded and stored as the byte it occupies";
  let description = [{
    A buffer of i1 (an attention mask, a dropout mask, a comparison kept
    for the backward) holds one byte per element. LLVM loads such an
    element as `i1` and, vectorizing, builds each vector of `i1` from
    single-element loads, bit by bit. On the LLVM dialect, each
    non-volatile `llvm.load` of `i1` (LLVM has no atomic one) becomes a load of its byte
    compared with zero (`icmp ne`), and each such `llvm.store` of `i1`
    stores its zero-extended byte: the bytes in memory are the same, and
    the loop vectorizes with byte loads.

    ```mlir
    %m = llvm.load %p : !llvm.ptr -> i1
    ```
    becomes
    ```mlir
    %b = llvm.load %p : !llvm.ptr -> i8
    %z = llvm.mlir.constant(0 : i8) : i8
    %m = llvm.icmp "ne" %b, %z : i8
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def MixprecLaunchParallelNests : Pass<"mixprec-launch-parallel-nests",
                                      "::mlir::ModuleOp"> {
  let summary = "Call marked loop nests through the runtime's parallel loop";
  let description = [{
    Runs on the LLVM dialect. For each function marked by
    `--mixprec-parallel-loop-nests` whose other parameters each fit 8 bytes
    (pointers and scalars: memref descriptors are their fields), a new
    internal function `<nest>_chunk(ptr slots, i64 begin, i64 end)` loads
    them from an array of 8-byte slots and calls the nest on [begin, end);
    each call of the nest becomes stores of its arguments into a stack
    array and `mixprec_cpu_parallel_for(chunk, slots, extent, chunk size)`,
    which runs the chunks on the model's threads.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def MixprecEpilogueInTiles : Pass<"mixprec-epilogue-in-tiles",
                                   "::mlir::func::FuncOp"> {
  let summary = "Run a contraction's elementwise epilogue on its register "
                "tiles";
  let description = [{
    Runs after `--mixprec-tile-and-vectorize`. A contraction sums in f32
    (docs/design.md §4); what reads the sums, an elementwise
    `linalg.generic` (the bias, the rounding to a 16-bit result, and the ops
    `--mixprec-fuse-elementwise` fused after them), would read them back
    from an f32 tensor of the whole result. When that tensor is read only by
    the epilogue, and by the read of each register tile right before its
    write (the tile still holds the fill, the sums stay in registers for the
    whole reduction), the epilogue's body runs on each tile as it is written
    instead, its other inputs read at the tile (broadcast where their maps
    drop dims), the tile's read is the fill's value, and the tiles are
    written into the epilogue's result. The same operations on the same
    values, each rounding where it was: the same bits, with no f32 result
    of the whole contraction held or read again. Contractions whose tiles
    do not have that shape are left as they are.

    ```mlir
    %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<37x29xf32>)
    %r = scf.for %i = %c0 to %c32 step %c8 iter_args(%t = %acc) -> (tensor<37x29xf32>) {
      %c = vector.transfer_read %t[%i, %c0], %zero : tensor<37x29xf32>, vector<8x29xf32>
      %s = scf.for %k ... iter_args(%v = %c) -> (vector<8x29xf32>) { ... }
      %w = vector.transfer_write %s, %t[%i, %c0] : vector<8x29xf32>, tensor<37x29xf32>
      scf.yield %w : tensor<37x29xf32>
    }
    %h = linalg.generic ... ins(%r : tensor<37x29xf32>) outs(... : tensor<37x29xbf16>) // arith.truncf
    ```
    becomes
    ```mlir
    %acc = tensor.empty() : tensor<37x29xbf16>
    %h = scf.for %i = %c0 to %c32 step %c8 iter_args(%t = %acc) -> (tensor<37x29xbf16>) {
      %c = vector.broadcast %zero : f32 to vector<8x29xf32>
      %s = scf.for %k ... iter_args(%v = %c) -> (vector<8x29xf32>) { ... }
      %sr = arith.truncf %s : vector<8x29xf32> to vector<8x29xbf16>
      %w = vector.transfer_write %sr, %t[%i, %c0] : vector<8x29xbf16>, tensor<37x29xbf16>
      scf.yield %w : tensor<37x29xbf16>
    }
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::vector::VectorDialect"];
}

def MixprecCollapseInnerLoops
    : Pass<"mixprec-collapse-inner-loops", "::mlir::func::FuncOp"> {
  let summary = "Inner parallel loops that walk every buffer contiguously "
                "become one loop";
  let description = [{
    An elementwise loop nest over a convolution's weights (`512x512x3x3`)
    has a 3x3 inner loop: LLVM vectorizes the loop over 512 outside it
    instead, with gathers of stride 9. Each `linalg.generic` on buffers
    with the identity layout, whose body reads no `linalg.index`, has its
    longest run of innermost parallel loops (two or more) that every
    indexing map reads in order, as its last dimensions, collapsed into one
    loop
    (`linalg::collapseOpIterationDims`, the buffers viewed with
    `memref.collapse_shape`). The same elements are computed in the same
    order by the same body: no bit changes.

    ```mlir
    linalg.generic {indexing_maps = [affine_map<(o, i, h, w) -> (o, i, h, w)>,
                                     affine_map<(o, i, h, w) -> (o)>, ...],
                    iterator_types = ["parallel", "parallel", "parallel",
                                      "parallel"]}
        ins(%w, %s : memref<512x256x3x3xf32>, memref<512xf32>) ...
    ```
    becomes the same body over `(o, i * 9 + h * 3 + w)`, on
    `memref<512x2304xf32>` and `memref<512xf32>`.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def MixprecOutlineLoopNests
    : Pass<"mixprec-outline-loop-nests", "::mlir::ModuleOp"> {
  let summary = "Move each loop nest into a function of its own, shared by "
                "every identical nest";
  let description = [{
    After bufferization, every loop nest of a function (a linalg op on
    memrefs, or a loop such as the register tiles of
    `--mixprec-tile-and-vectorize`) becomes a call of a private, `no_inline`
    function. Nests that are the same op for op, on the same types, call
    one function: a model whose layers repeat compiles one layer's nests
    once, and LLVM optimizes many small functions instead of one function
    as large as the model (its cost grows faster than linearly with a
    function's size). Nests inside other regions (the `scf.if` of a guarded
    update) are outlined where they stand.

    The function takes the nest's operands and the values it uses from
    above; index and vector constants are cloned into it, so loop bounds and
    shapes stay static, while scalar constants (a dropout stream, a scale)
    are arguments, so nests that differ only in such a constant are shared.
    The code inside is unchanged: every rounding point stays where it was.

    ```mlir
    func.func @f(%a: memref<4xf32>, %b: memref<4xf32>) {
      linalg.generic {...} ins(%a : memref<4xf32>) outs(%b : memref<4xf32>) {...}
      linalg.generic {...} ins(%b : memref<4xf32>) outs(%a : memref<4xf32>) {...}
      return
    }
    ```
    becomes, when the two generics are the same,
    ```mlir
    func.func @f(%a: memref<4xf32>, %b: memref<4xf32>) {
      call @f_loops_0(%a, %b) : (memref<4xf32>, memref<4xf32>) -> ()
      call @f_loops_0(%b, %a) : (memref<4xf32>, memref<4xf32>) -> ()
      return
    }
    func.func private @f_loops_0(%0: memref<4xf32>, %1: memref<4xf32>)
        attributes {passthrough = ["noinline"]} {
      linalg.generic {...} ins(%0 : memref<4xf32>) outs(%1 : memref<4xf32>) {...}
      return
    }
    ```
  }];
  let options = [
    Option<"share", "share", "bool", /*default=*/"true",
           "Call one function for every structurally identical nest">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def MixprecReduceAcrossLanes
    : Pass<"mixprec-reduce-across-lanes", "::mlir::func::FuncOp"> {
  let summary = "Reductions over their innermost loop with a block of a "
                "parallel loop innermost instead, so that vector lanes "
                "reduce different outputs";
  let description = [{
    A reduction over its operands' innermost dimension (a softmax's sum, a
    layer norm's mean) sums each output in order, one element after the
    other: LLVM vectorizes no such loop, since reordering the sum would
    change its bits. With a parallel loop innermost instead, the innermost
    loop computes many outputs side by side, each still summing in its own
    order: it vectorizes (its loads are strided: gathers) with the same
    bits.

    Each `linalg.generic` on tensors (contractions aside) whose innermost
    loop is reduced takes its last parallel loop of at least `min-lanes`
    iterations. When that loop's extent is a larger multiple of
    `min-lanes` (and the op's maps are projected permutations, its body
    reads no `linalg.index`), the loop is cut in blocks of `min-lanes`: the
    operands that it indexes are viewed with that dimension expanded
    (`tensor.expand_shape`), the blocks' loop stays where the loop was and
    the lanes' loop goes innermost, and the results are collapsed back. A
    gather then reads `min-lanes` rows whose cache lines the next reduction
    steps read again (the 256 rows of a softmax moved innermost whole were
    slower). Otherwise the loop moves innermost whole
    (`linalg::interchangeGenericOp`), unless it is the outermost, where
    the model's threads split the nest.

    A reduction whose every output is combined by one op that gives the
    same result in any order (`arith.maximumf`, `arith.minimumf`, integer
    arithmetic) is left as it is: LLVM vectorizes its loop over the reduced
    elements itself, with contiguous loads (a softmax's maximum).

    ```mlir
    linalg.generic {indexing_maps = [affine_map<(b, i, k) -> (b, i, k)>,
                                     affine_map<(b, i, k) -> (b, i)>],
                    iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%x : tensor<8x64x256xf32>) outs(%sums : tensor<8x64xf32>) ...
    ```
    becomes the same body over `(b, i / 16, k, i % 16)`, on
    `tensor<8x4x16x256xf32>` and `tensor<8x4x16xf32>`.
  }];
  let options = [
    Option<"minLanes", "min-lanes", "int64_t", /*default=*/"16",
           "Lanes of a block: the fewest iterations of the parallel loop "
           "moved innermost">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def MixprecTransposesIntoContractions
    : Pass<"mixprec-transposes-into-contractions", "::mlir::func::FuncOp"> {
  let summary = "Contractions read a transposed copy's source in place, "
                "through the composed map; an elementwise op writes its "
                "transposed copy itself";
  let description = [{
    CPU only, on tensors, before the tiling passes. A contraction (a
    `linalg.generic` or named op whose body is `out + a * b`,
    `mixprec::computesContract`) with an input that is a `linalg.transpose`
    result, directly or through a `tensor.collapse_shape` (attention's
    heads split from a projection's rows, then merged into one batch
    dimension), reads the transpose's input instead: a named op becomes a
    `linalg.generic`, a collapse between becomes more loops of the
    contraction (`linalg::populateFoldReshapeOpsByExpansionPatterns`), and
    the input's indexing map is the transpose's input map composed with it.
    The runtime's GEMMs (`--mixprec-contractions-to-calls`) take the
    resulting strides, so the transposed copy, a pass over memory that
    computes nothing, is not made. The contraction multiplies and adds the
    same elements in the same order: the same bits.

    A transpose that no contraction takes, of the only result of an
    elementwise `linalg.generic` used once (attention's heads merged back
    after rounding to 16 bits), becomes that op writing in the transposed
    order (`linalg::fuseElementwiseOps` of the transpose as a generic); an
    expansion between (heads split from one batch dimension) becomes more
    loops of the elementwise op first.

    ```mlir
    %t = linalg.transpose ins(%q : tensor<8x256x6x64xbf16>)
        outs(%e : tensor<8x6x256x64xbf16>) permutation = [0, 2, 1, 3]
    %c = tensor.collapse_shape %t [[0, 1], [2], [3]]
        : tensor<8x6x256x64xbf16> into tensor<48x256x64xbf16>
    %s = linalg.batch_matmul ins(%c, %k : ...) outs(...)
    ```
    becomes a `linalg.generic` over `(b, h, m, n, k)` that reads `%q` at
    `(b, m, h, k)`.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def MixprecTransposeLaneBlocks
    : Pass<"mixprec-transpose-lane-blocks", "::mlir::func::FuncOp"> {
  let summary = "Reductions across lanes read in square blocks transposed in "
                "registers, instead of with gathers";
  let description = [{
    Runs after `--mixprec-reduce-across-lanes`, on tensors. A
    `linalg.generic` whose innermost loop is `lanes` lanes (parallel), whose
    one reduced loop is just outside it and a multiple of `lanes` long, and
    whose other loops are parallel, reads an f32 operand indexed by both
    with the reduced loop last one element per lane and step: a gather from
    `lanes` rows. Here such an op becomes an `scf.forall` over its other
    parallel loops (one iteration per block of outputs: the model's threads
    split its first loop), around an `scf.for` over the reduced loop in
    steps of `lanes`, around the vector code of one `lanes` x `lanes`
    block: each row read as one contiguous vector, the block transposed in
    registers (`vector.transpose`, lowered to shuffles), the body on the
    block, and the block's columns added to the accumulators in the
    reduced loop's order (`vector.multi_reduction`, lowered to one add per
    column). The accumulators stay in registers across the `scf.for`. Each
    output is still combined in its order, one element after the other:
    the same bits as the loop nest.

    Operands indexed by only one of the two loops (a row's maximum, a
    column's weight) are broadcast. A contraction's body (`out + x * y`)
    is left as it is: its products are added with fused multiply-adds
    (docs/design.md §4). Other ops, ops whose block-read
    operands are not f32 or not contiguous along the reduced loop, and ops
    `linalg::vectorize` declines stay as they are.

    ```mlir
    linalg.generic {indexing_maps = [affine_map<(b, i, k, l) -> (b, i, l, k)>,
                                     affine_map<(b, i, k, l) -> (b, i, l)>],
                    iterator_types = ["parallel", "parallel", "reduction",
                                      "parallel"]}
        ins(%x : tensor<8x4x16x256xf32>) outs(%sums : tensor<8x4x16xf32>) ...
    ```
    becomes an `scf.forall (%b, %i) in (8, 4)` around an `scf.for` of 16
    steps that reads 16 `vector<16xf32>` rows of `%x`, transposes them and
    adds the 16 columns to a `vector<16xf32>` of sums.
  }];
  let options = [
    Option<"lanes", "lanes", "int64_t", /*default=*/"16",
           "Lanes of a block: the extent of the innermost loop of the "
           "reductions this pass takes (the min-lanes of "
           "--mixprec-reduce-across-lanes)">,
  ];
  let dependentDialects = [
    "::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def MixprecExpandMath : Pass<"mixprec-expand-math"> {
  let summary = "f32 exp and erf as arithmetic, maximum and minimum as "
                "intrinsics: math the loop vectorizer can vectorize";
  let description = [{
    A loop that calls libm's `expf` or `erff` runs one element at a time:
    LLVM vectorizes no loop with a call in it. This pass rewrites f32
    `math.exp` and `math.erf` (scalars and vectors) into `arith` ops and
    LLVM FMAs, so a softmax, a GELU or its gradient vectorizes like any
    other elementwise loop, and each element gets the same bits whether it
    falls in a vector or in the scalar remainder.

    `exp`: `n = round(x / ln 2)` (a fused multiply-add with 1.5 * 2^23,
    which rounds to nearest even), `r = x - n ln 2` in two FMAs (ln 2 split
    in a short high part and a low part), `e^r = 1 + r + r^2 q(r)` with a
    degree-5 `q`, scaled by `2^n` in two halves so that results near the
    overflow and in the subnormal range round once. Above 88.7228 it is
    +Inf, below -103.9728 it is +0, NaN stays NaN. At most 0.98 ulp from
    the exact result over every f32 input (`test_math_functions.py`, its
    `long` test compiles and checks all 2^32).

    `erf`: for |x| <= 0.921875, `x + x p(x^2)` (degree 6 in x^2); up to
    3.921875, `1 - exp(g(|x|) - x^2)` with a degree-10 `g`, the sign of x;
    beyond, +-1; NaN stays NaN. At most 1.33 ulp over every f32 input.

    Both are within the 2 ulp that docs/design.md §4 allows a
    transcendental function (libm's, which this replaces on the CPU, is
    within 1). No fast-math flag: every operation rounds as written. The
    FMAs are LLVM's intrinsic, not `math.fma`, which `convert-math-to-libm`
    would make a call of `fmaf`.

    f32 `arith.maximumf` and `arith.minimumf` (scalars and 1-D vectors)
    become `llvm.intr.maximum` and `llvm.intr.minimum`, the same IEEE
    maximum and minimum (NaN wins, +0 above -0). `arith-expand-ops`, which
    runs after this pass, would make them compares and selects, and LLVM
    vectorizes a reduction by the intrinsic (a softmax's row maximum, the
    same in any order) but not by those selects.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

//===----------------------------------------------------------------------===//
// Both backends, on tensors
//===----------------------------------------------------------------------===//

def MixprecFuseElementwise
    : Pass<"mixprec-fuse-elementwise", "::mlir::func::FuncOp"> {
  let summary = "Fuse chains of elementwise linalg ops on tensors";
  let description = [{
    A `linalg.generic` that computes elementwise (all loops parallel) and
    whose result has one user, an elementwise op too, is fused into that
    user (`linalg::populateElementwiseOpsFusionPatterns`): a chain becomes
    one op, so the CUDA backend runs it as one kernel and neither backend
    keeps a buffer between its links. A broadcast (a generic that yields
    one of its inputs) is fused into every elementwise user, however many:
    it is cheaper to index again than to hold. A producer with several
    users is fused into the first of them when that user is elementwise
    and reads one of its results in the producer's order (the same map);
    the fused op
    yields the results the others read, so the producer is still computed
    once. An optimizer update and the guards that select each of its new
    values (`--mixprec-guard-state-updates`) become one op, one pass over
    the state instead of three. Nothing is fused across an
    op whose result the function returns, as the new state written in
    place (`--mixprec-update-state-in-place`) must not be read by a
    producer moved after it. Each body is inlined unchanged, casts
    included, so the rounding points of the mixprec IR stay
    (docs/design.md §4). Contractions and reductions take no producer:
    their multiply-accumulate bodies are what the tiling passes and
    `--mixprec-gpu-tensor-core-gemm` match.

    ```mlir
    %e = linalg.generic {...} ins(%x : tensor<64x128xf32>) outs(...) {
      ^bb0(%a: f32, %o: f32):
        %t = math.exp %a : f32
        linalg.yield %t : f32
    } -> tensor<64x128xf32>
    %r = linalg.generic {...} ins(%e, %y : ...) outs(...) {
      ^bb0(%a: f32, %b: f32, %o: f32):
        %t = arith.mulf %a, %b : f32
        linalg.yield %t : f32
    } -> tensor<64x128xf32>
    ```
    becomes one `linalg.generic` over `%x` and `%y` whose body computes
    `exp(x) * y`.

    With `narrow-apart`, an op whose results are all narrower than the
    operand it reads (a cast of an f32 value to bf16) is not fused with the
    op computing that operand when that op has an input of its own type
    that dies there: unfused, the wide result is written over that input
    (`--mixprec-reuse-buffers`) and the producer's other inputs die before
    the narrow result is allocated. Fused, all of them and the narrow
    result are live at once. The bits are the same; it costs a pass over
    the wide value, so it is for a compile under a memory budget.
  }];
  let options = [
    Option<"narrowApart", "narrow-apart", "bool", /*default=*/"false",
           "Leave a narrowing op apart from the producer of its operand "
           "when that producer can write over a dead input (memory over "
           "speed)">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

//===----------------------------------------------------------------------===//
// CUDA backend
//===----------------------------------------------------------------------===//

def MixprecParallelReductions
    : Pass<"mixprec-parallel-reductions", "::mlir::func::FuncOp"> {
  let summary = "Long reductions in chunks of fixed size, the same on both "
                "backends; on the GPU, parallel loops outermost";
  let description = [{
    A GPU thread computes one output element of a `linalg.generic`, running
    its reduced loops one after the other, so a reduction of many elements
    into few outputs (a loss, the all-finite check, a global norm,
    batch-norm statistics) keeps a few threads busy for a long time. Each
    `linalg.generic` on tensors that reduces more than `max-serial`
    elements per output, whose outputs are each updated by one combiner
    with a neutral element (`arith.addf`, `arith.andi`, `arith.maximumf`,
    ...), becomes two: the partial results of chunks of its outermost
    reduced dimension (a new, leading parallel dimension, viewed with
    `tensor.expand_shape`; each chunk starts from the neutral element),
    then the chunks combined in order into the original outputs. The
    chunks are the fewest that leave at most `max-serial` elements each (a
    dimension too short is made parallel whole and the next one is cut
    too; one that no count of chunks brings low enough is cut into as many
    as it divides into, and a prime length alone is left as it is); the
    combination is split again when it is long itself.
    Contractions (the tensor-core path's) and bodies that read
    `linalg.index` are left alone.

    The chunks depend only on the shapes: every run, and every block size,
    sums in the same order. Both pipelines run the pass with the same
    `max-serial`, so the CPU sums in the GPU's order and the backends keep
    computing the same bits (docs/design.md §4).

    With `parallel-outermost` (the CUDA pipeline), every `linalg.generic`
    on tensors (contractions aside) also gets its parallel loops outside
    its reduced ones, each kind in its order (`linalg::interchangeGenericOp`):
    a reduced loop outermost would make the whole nest one sequential loop,
    run by one thread (a bias gradient over the batch). Each output element
    still reduces in the same order. The CPU keeps the order of the
    operands' memory.

    ```mlir
    %sum = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>,
                                            affine_map<(d0) -> ()>],
                           iterator_types = ["reduction"]}
        ins(%x : tensor<1024xf32>) outs(%zero : tensor<f32>) {...addf...}
    ```
    becomes, with `max-serial=256`, partial sums of `%x` viewed as
    `tensor<4x256xf32>` into a `tensor<4xf32>` (parallel d0, reduced d1),
    then their sum in order into `%zero`.
  }];
  let options = [
    Option<"maxSerial", "max-serial", "int64_t", /*default=*/"256",
           "The most elements one output element reduces in one loop">,
    Option<"parallelOutermost", "parallel-outermost", "bool",
           /*default=*/"false",
           "Move parallel loops outside reduced ones (for the GPU)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def MixprecGpuTensorCoreGemm
    : Pass<"mixprec-gpu-tensor-core-gemm", "::mlir::ModuleOp"> {
  let summary = "Run 16-bit contractions as tensor-core (mma.sync) kernels";
  let description = [{
    Replaces every linalg op on memrefs, at the top level of a host
    function, whose body is a multiply-accumulate of two f16 (or two bf16)
    inputs into an f32 output -- `linalg.matmul`, `linalg.batch_matmul`,
    `linalg.conv_2d_*` (an implicit GEMM), and the generic contractions of
    the backward pass -- with a `gpu.launch_func` of a kernel of its own in
    `gpu.module @kernels`. (A 16-bit accumulator rounds at every step; this
    kernel rounds once, so such ops stay loops. mixprec's lowering always
    accumulates in f32.)

    The op's loops are grouped by where they appear: parallel loops that
    index only the first input are M, only the second input N, both or
    neither a batch; reduction loops are K. A block of 128 threads (four
    warps, 2x2) computes a 64x64 tile of (M, N) for one batch index, in
    32-deep K steps through a three-stage pipeline in shared memory: while
    the tensor cores work on one step's tiles, the next two steps' load.
    An operand whose buffer is contiguous along the innermost loop of K, or
    of its rows (M for A, N for B), with that loop's trip count, the other
    strides and the offset multiples of 8, is copied in 16-byte
    `cp.async` pieces (stored [rows][K], or [K][rows] and read with
    `ldmatrix.trans`), zero-filled past the edges; any other operand --
    any layout, transposed operand, stride, dilation or padding-free
    convolution -- is loaded element by element through the op's own
    indexing map. The 16-byte pieces of each shared row are permuted by
    the row (XOR), so neither the copies nor `ldmatrix` meet a bank
    conflict. Each warp loads fragments with `ldmatrix` (x4 for A, x2 for
    B) and issues eight `mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}`
    per 16-deep slice, accumulating in f32 registers. The epilogue writes
    the f32 sums once, masking rows and columns past M and N: over an
    output a `linalg.fill` of +0.0 just wrote (the fill goes), or added to
    the output's values otherwise. Every shape is exact up to f32
    summation order (docs/design.md §4). A reduction loop must not index
    the output.

    ```mlir
    linalg.matmul ins(%a, %b : memref<37x53xf16>, memref<53x29xf16>)
                  outs(%c : memref<37x29xf32>)
    ```
    becomes
    ```mlir
    gpu.launch_func @kernels::@step_gemm_0 blocks in (%c1, %c1, %c1)
        threads in (%c128, %c1, %c1) args(%a : memref<37x53xf16>,
        %b : memref<53x29xf16>, %c : memref<37x29xf32>)
    ```
    Other ops, and contractions of f32 inputs, are left alone.
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect", "::mlir::memref::MemRefDialect",
    "::mlir::nvgpu::NVGPUDialect", "::mlir::NVVM::NVVMDialect",
    "::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect",
    "::mlir::LLVM::LLVMDialect"
  ];
}

def MixprecGpuMapToKernels
    : Pass<"mixprec-gpu-map-to-kernels", "::mlir::func::FuncOp"> {
  let summary = "Run every loop and every scalar computation in a GPU kernel";
  let description = [{
    After linalg becomes loops (`convert-linalg-to-parallel-loops`), a
    function's body holds parallel loop nests, sequential loop nests (full
    reductions) and scalar code that reads and writes buffers (the loss
    scaler, Adam's bias correction, the RNG). The buffers live on the GPU,
    so none of that may run on the host; this pass moves all of it into
    `gpu.launch` ops, in program order:

    - each outermost `scf.parallel` becomes one launch of
      ceil(iterations / `block-size`) blocks of `block-size` threads; the
      linear thread index is split back into the loop's indices, and
      threads past the end do nothing;
    - each maximal run of other ops that touch memory or compute scalars
      (loads, stores, `scf.for`, arithmetic) becomes a launch of one
      thread, after the run's last op: a run goes on past allocations,
      views and constants, not past a free or a loop nest. A scalar it
      computes that later code uses is passed through
      a one-element device buffer, read back at the top of each kernel
      that uses it, so every value is read where it was computed;
    - except a run that only loads scalars and computes on them for the
      loop nest right after it alone, which writes none of the buffers it
      reads (a select's condition, a scale): each thread of that nest's
      kernel computes it, a launch and a buffer fewer.

    Allocation, views, constants and launches stay on the host. A scalar
    computed on the device and needed by the host (a dynamic size) is an
    error.

    ```mlir
    scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c100) step (%c1, %c1) {
      %x = memref.load %in[%i, %j] : memref<4x100xf32>
      memref.store %x, %out[%i, %j] : memref<4x100xf32>
    }
    ```
    becomes a launch of 2 blocks of 256 threads whose body computes
    `%l = %bx * 256 + %tx`, returns when `%l >= 400`, and otherwise runs the
    loop body with `%i = %l / 100` and `%j = %l mod 100`.
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "Threads per block of parallel loops">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect"
  ];
}

def MixprecGpuMergeKernels
    : Pass<"mixprec-gpu-merge-kernels", "::mlir::func::FuncOp"> {
  let summary = "Launch kernels that can run together as one";
  let description = [{
    A launch costs microseconds of the host and the GPU however little the
    kernel does, and a train step of a small model is hundreds of small
    kernels. This pass schedules a host function's launches again by the
    buffers they read and write (a view counts as the buffer it views;
    distinct buffers never overlap: each argument of a CUDA call has a
    device buffer of its own) and launches together what it can:

    - kernels independent of each other side by side, each on blocks of its
      own of one grid (a block finds the kernel whose range holds its index
      by binary search, and runs it as that kernel's block);
    - or kernels of one block in one block: those ready at once, then those
      that depend only on them, each past a barrier when it depends on one
      before it, as long as one thread's work (`max-thread-cost` ops, loops
      counted by their trips) stays small.

    It repeats: launch what cannot share a launch (a GEMM) as soon as what
    it depends on is done, then merge what is ready -- in one block when
    kernels follow there, side by side otherwise. A launch is never both: in
    a grid whose blocks branch on their index and on their threads, LLVM
    may thread those branches so that a warp reaches a barrier along two
    paths, which an `.aligned` barrier forbids. Kernels keep their code and the threads of each keep their
    indices, so every result is the same bits. A host op with unknown
    effects keeps its place, and launches are scheduled on each side of it.
    Allocations, views and constants move down to just before their first
    user: buffers live no longer than before.

    A merged kernel takes what its kernels take: a merge stops before its
    parameters would pass `max-parameter-bytes` (ptxas refuses more than
    4,352 bytes before PTX ISA 8.1), counting 8 bytes for each value the
    kernels use from the host function.

    Kernels that synchronize their threads (barriers, shuffles) or whose
    grids are not one-dimensional keep launches of their own.
  }];
  let options = [
    Option<"maxThreadCost", "max-thread-cost", "int64_t",
           /*default=*/"1024",
           "Most ops one thread of a block runs for kernels in a row">,
    Option<"maxParameterBytes", "max-parameter-bytes", "int64_t",
           /*default=*/"4352",
           "Most bytes of parameters a merged kernel may take (PTX before "
           "ISA 8.1 allows 4,352), counting 8 for each value it uses">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def MixprecGpuOutlineKernels
    : Pass<"mixprec-gpu-outline-kernels", "::mlir::ModuleOp"> {
  let summary = "Outline each gpu.launch into a kernel taking whole buffers, "
                "one kernel for every set of identical kernels";
  let description = [{
    `gpu-kernel-outlining`, in time linear in the number of launches, with
    two differences:

    - Views (`memref.subview`, `expand_shape`, `collapse_shape`, ...) and
      index and vector constants move into the kernel, so that it takes
      whole buffers, each with a static shape and the identity layout, and
      scalars. Such a buffer crosses the launch as one pointer
      (`use-bare-ptr-memref-call-conv`) instead of a descriptor of 3 + 2 *
      rank words. The tensor-core kernels of `--mixprec-gpu-tensor-core-gemm`
      take whole buffers already. A kernel left with any other buffer
      argument is an error.
    - Kernels of a `gpu.module` that are the same op for op, with the same
      attributes (known block and grid sizes among them), are one kernel:
      every launch of a copy launches the first. A model whose layers repeat
      then lowers, compiles and assembles one layer's kernels.

    ```mlir
    %v = memref.subview %buf[0, 64] [64, 64] [1, 1] : memref<64x128xf32> to memref<64x64xf32, strided<[128, 1], offset: 64>>
    gpu.launch blocks(...) in (...) threads(...) in (...) {
      ... memref.load %v[%i, %j] ...
    } {kernelModule = @kernels, kernelFunc = @f_kernel_0}
    ```
    becomes
    ```mlir
    gpu.launch_func @kernels::@f_kernel_0 blocks in (...) threads in (...)
        args(%buf : memref<64x128xf32>)
    gpu.module @kernels {
      gpu.func @f_kernel_0(%buf: memref<64x128xf32>) kernel {
        %v = memref.subview %buf[0, 64] [64, 64] [1, 1] : ...
        ... memref.load %v[%i, %j] ...
      }
    }
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def MixprecGpuDeviceBuffers
    : Pass<"mixprec-gpu-device-buffers", "::mlir::func::FuncOp"> {
  let summary = "Allocate a function's buffers on the GPU";
  let description = [{
    Once every computation is a kernel (`mixprec-gpu-map-to-kernels`), a
    host function only allocates, views and launches. This pass puts its
    buffers on the device: `memref.alloc` becomes `gpu.alloc`,
    `memref.dealloc` becomes `gpu.dealloc`, and a constant
    (`memref.get_global`) is copied to a device buffer (`gpu.memcpy`) that
    is freed before each return. An op left on the host that reads or
    writes memory is reported with its location (it would dereference a
    device pointer on the CPU).

    ```mlir
    %b = memref.alloc() : memref<64x128xf32>
    ...
    memref.dealloc %b : memref<64x128xf32>
    ```
    becomes
    ```mlir
    %b = gpu.alloc () : memref<64x128xf32>
    ...
    gpu.dealloc %b : memref<64x128xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::memref::MemRefDialect"
  ];
}

//===----------------------------------------------------------------------===//
// Memory planning, both backends
//===----------------------------------------------------------------------===//

def MixprecUpdateStateInPlace
    : Pass<"mixprec-update-state-in-place", "::mlir::func::FuncOp"> {
  let summary = "Write each new state value into its argument's buffer";
  let description = [{
    A function with state exposed (`--mixprec-expose-state`) returns the new
    value of each parameter and buffer it assigns: a result whose
    `mixprec.abi_name` is that of an argument. On linalg on tensors, before
    bufferization, this pass makes the argument the destination of that
    value: a `bufferization.materialize_in_destination` into the argument
    just before the return, and, when nothing reads the argument after the
    op that computes the value, that op's `tensor.empty` init replaced by the
    argument, so the op writes the new value over the old one (the
    optimizer's update reads and writes each element once). One-Shot
    Bufferize keeps the write in place, or copies where a later read needs
    the old value; either way the result's buffer is the argument's, which
    `--mixprec-results-in-arguments` then drops from the results. State is
    then held once, not once per call and once per result.

    ```mlir
    func.func @step(%w: tensor<4xf32> {mixprec.abi_name = "w"}, %g: tensor<4xf32>)
        -> (tensor<4xf32> {mixprec.abi_name = "w"}) {
      %e = tensor.empty() : tensor<4xf32>
      %n = linalg.sub ins(%w, %g : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
      return %n : tensor<4xf32>
    }
    ```
    becomes
    ```mlir
      %n = linalg.sub ins(%w, %g : tensor<4xf32>, tensor<4xf32>) outs(%w : tensor<4xf32>) -> tensor<4xf32>
      %m = bufferization.materialize_in_destination %n in %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      return %m : tensor<4xf32>
    ```
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect"];
}

def MixprecResultsInArguments
    : Pass<"mixprec-results-in-arguments", "::mlir::ModuleOp"> {
  let summary = "Drop the results that live in an argument's buffer";
  let description = [{
    Runs after One-Shot Bufferize, before `buffer-results-to-out-params`.
    A result of a function nobody calls whose buffer is one of the
    function's arguments (a state written in place by
    `--mixprec-update-state-in-place`, or an argument returned unchanged)
    is removed from the results, and the function records where each of its
    original results lives: `mixprec.results_in_arguments`, one argument
    index per result, or -1 for a result that stays a result (and becomes a
    caller-allocated out-parameter). The model library's trampoline gives
    such a result's output buffer to the compiled code as that argument,
    after copying the input into it when the caller passed two buffers.

    A result that carries the `mixprec.abi_name` of an argument (a new state
    value) must live in that argument; otherwise the pass fails, naming the
    state. The pass then removes `mixprec.abi_name` from the function: the
    names live in the library's tables.

    ```mlir
    func.func @step(%w: memref<4xf32> {mixprec.abi_name = "w"}) -> (memref<f32>, memref<4xf32> {mixprec.abi_name = "w"}) {
      ...
      return %loss, %w : memref<f32>, memref<4xf32>
    }
    ```
    becomes
    ```mlir
    func.func @step(%w: memref<4xf32>) -> memref<f32>
        attributes {mixprec.results_in_arguments = array<i64: -1, 0>} {
      ...
      return %loss : memref<f32>
    }
    ```
  }];
}

def MixprecReuseBuffers : Pass<"mixprec-reuse-buffers", "::mlir::func::FuncOp"> {
  let summary = "Write an elementwise op's result over an input that dies "
                "there";
  let description = [{
    On bufferized code, before `--mixprec-plan-memory`: a `linalg` op with
    only parallel loops that reads an input and writes an output both
    through identity maps reads element i of the one and writes element i
    of the other in the same iteration (whatever it reads of other buffers:
    a softmax's row maxima, a bias), so the output may share the input's
    buffer when that input is a temporary (`memref.alloc`) of the same type
    whose last use is this op and no other operand views it. The output's allocation (the one right before
    the op) is replaced by the input's and its deallocations go. Elementwise
    chains, such as an optimizer's update followed by the guard of loss
    scaling, then hold one buffer instead of one per op.

    ```mlir
    %a = memref.alloc() : memref<4xf32>
    linalg.exp ins(%x : memref<4xf32>) outs(%a : memref<4xf32>)
    %b = memref.alloc() : memref<4xf32>
    linalg.negf ins(%a : memref<4xf32>) outs(%b : memref<4xf32>)
    linalg.copy ins(%b : memref<4xf32>) outs(%out : memref<4xf32>)
    memref.dealloc %a : memref<4xf32>
    memref.dealloc %b : memref<4xf32>
    ```
    becomes
    ```mlir
    %a = memref.alloc() : memref<4xf32>
    linalg.exp ins(%x : memref<4xf32>) outs(%a : memref<4xf32>)
    linalg.negf ins(%a : memref<4xf32>) outs(%a : memref<4xf32>)
    linalg.copy ins(%a : memref<4xf32>) outs(%out : memref<4xf32>)
    memref.dealloc %a : memref<4xf32>
    ```
  }];
}

def MixprecPlanMemory : Pass<"mixprec-plan-memory", "::mlir::ModuleOp"> {
  let summary = "Place a function's temporaries in one workspace, planned at "
                "compile time";
  let description = [{
    Every buffer a function allocates with a static shape (`memref.alloc`,
    and on the GPU `gpu.alloc`) becomes a `memref.view` of one workspace at
    an offset chosen at compile time, and its deallocations go:

    1. **Lifetimes.** The ops of the function are numbered in program
       order. A buffer is live from its allocation to the last op that uses
       it or any view of it; a use inside a loop or a kernel counts as a use
       at the end of that op, so a buffer used across iterations stays live
       through the loop. A buffer that leaves its block (returned or
       yielded) or that an op turns into a memref this pass does not know
       is left alone.
    2. **Offsets.** Buffers are placed largest first, each at the lowest
       offset (a multiple of `alignment`) where it overlaps no placed
       buffer that is live at the same time (greedy by size, as TFLite's
       and XLA's heap simulators). The workspace's size is the end of the
       highest buffer.

    A public function nobody calls gets the workspace as a new last
    argument, `memref<Nxi8>`, that its caller provides (the model library
    keeps one per library); any other function allocates it on entry
    (marked `mixprec.workspace`) and frees it before it returns. The function records the
    size in `mixprec.workspace_bytes` and the most bytes live at once in
    `mixprec.live_bytes` (a lower bound on any plan).

    ```mlir
    %a = memref.alloc() : memref<4xf32>
    linalg.exp ins(%x : memref<4xf32>) outs(%a : memref<4xf32>)
    %b = memref.alloc() : memref<8xf32>
    linalg.transpose ...
    linalg.copy ins(%b : memref<8xf32>) outs(%out : memref<8xf32>)
    memref.dealloc %a : memref<4xf32>
    memref.dealloc %b : memref<8xf32>
    ```
    becomes (`%a` dead once `%b` is written: both at offset 0)
    ```mlir
    %a = memref.view %workspace[%c0][] : memref<64xi8> to memref<4xf32>
    linalg.exp ins(%x : memref<4xf32>) outs(%a : memref<4xf32>)
    %b = memref.view %workspace[%c0_1][] : memref<64xi8> to memref<8xf32>
    ...
    ```
  }];
  let options = [
    Option<"alignment", "alignment", "int64_t", /*default=*/"64",
           "Byte alignment of every buffer's offset (a power of two)">,
    Option<"share", "share", "bool", /*default=*/"true",
           "Let buffers whose lifetimes do not overlap share bytes (false: "
           "each buffer in bytes of its own, the layout results are "
           "compared against)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect"
  ];
}

def MixprecVerifyMemoryPlan
    : Pass<"mixprec-verify-memory-plan", "::mlir::func::FuncOp"> {
  let summary = "Check that no two buffers of a workspace overlap while both "
                "are live";
  let description = [{
    For every function with a planned workspace (`mixprec.workspace_bytes`),
    recomputes each view's lifetime as `--mixprec-plan-memory` defines it
    and its bytes from the view's offset and type, and fails, naming both
    buffers, when two views share a byte while both are live or when a view
    reaches past the workspace. A check of the plan, not part of it: both
    pipelines run it after planning.
  }];
}

def MixprecMemoryReport : Pass<"mixprec-memory-report", "::mlir::ModuleOp"> {
  let summary = "Report what each function's calls hold, from its memory plan";
  let description = [{
    Runs after `--mixprec-plan-memory`, on the plan the code uses:
    `mixprec-compile --memory-report`, or the pipelines' `memory-report`
    option. For every public function it prints to stderr, in bytes:

    - inputs: its arguments (the caller's tensors: state, batch, learning
      rate), and how many of them it updates in place
      (`mixprec.results_in_arguments`);
    - outputs: its results that are not updated inputs;
    - workspace: `mixprec.workspace_bytes` for its buffers (the views of
      the workspace), and `mixprec.live_bytes`, the most live at once;
    - peak: inputs + outputs + workspace, each tensor rounded up to
      `tensor-alignment` (256 on CUDA, where a call's tensors and workspace
      are one device allocation; 1 on the CPU): the memory one call holds;
    - the buffers live where the most bytes of the workspace are live,
      largest first (the `top` of them, then the rest in one line), each
      with its bytes, type and location: the op that computes it.

    With `json-file` it writes the same as JSON. The IR is not changed.

    ```mlir
    func.func @f(%x: memref<64xf32>, %y: memref<64xf32>, %ws: memref<512xi8>)
        attributes {mixprec.live_bytes = 512 : i64,
                    mixprec.results_in_arguments = array<i64: -1>,
                    mixprec.workspace_bytes = 512 : i64} {
      %a = memref.view %ws[%c0][] : memref<512xi8> to memref<64xf32>
      %b = memref.view %ws[%c256][] : memref<512xi8> to memref<64xf32>
      ...
    ```
    reports 256 bytes of inputs, 256 of outputs, a 512-byte workspace with
    `%a` and `%b` live at its peak, and a peak of 1024.
  }];
  let options = [
    Option<"jsonFile", "json-file", "std::string", /*default=*/"\"\"",
           "Also write the report as JSON to this file">,
    Option<"tensorAlignment", "tensor-alignment", "int64_t", /*default=*/"1",
           "Bytes each input and output takes are rounded up to (a power of "
           "two)">,
    Option<"top", "top", "int64_t", /*default=*/"10",
           "Buffers live at the peak listed one by one">,
  ];
}

#endif // MIXPREC_CODEGEN_PASSES_TD
