"""mixprec from Python: compile models with the command-line tools and run
them through the C ABI of the compiled library (mixprec/Runtime/mixprec.h).

    import mixprec
    model = mixprec.compile_file("examples/mlp.mlir")   # or compile_source(text)
    (loss,) = model.call("loss", [x, labels])

Arrays are numpy arrays; bf16 tensors are np.uint16 arrays of raw bf16 bits
(numpy has no bf16 type), see `mixprec.dtypes`.
"""
from .compiler import CompileError, compile_file, compile_source, tool_path
from .plot import plot_history
from .runtime import (Function, MemoryPlan, Model, ModelError, StateSpec,
                      TensorSpec, Trainer, UnknownFunctionError)

__all__ = ["CompileError", "compile_file", "compile_source", "tool_path",
           "Function", "MemoryPlan", "Model", "ModelError", "StateSpec",
           "TensorSpec", "Trainer", "UnknownFunctionError", "plot_history"]
