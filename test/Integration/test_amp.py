"""Mixed-precision training through the trainer ABI (mixprec-compile --amp):
the loss-scale rule step for step, the seed's two failures shown and fixed
(gradient underflow, lost updates), an overflow in real data skipped without
losing anything, FP32/FP16/BF16 digits accuracy, and checkpoints."""
import json
import re
import subprocess

import numpy as np
import pytest

import mixprec
import reference_models
from harness import compile_mlir, snapshot, to_numpy
from mixprec import ModelError
from mlir_text import linear_sum_model
from test_train_step import mlp_source

# Every test runs on the CPU library and on its CUDA build (simulated).
pytestmark = pytest.mark.usefixtures("backend")

# The batches of mlir_text.linear_sum_model: one clean, one that overflows.
CLEAN = np.full((1, 4), 0.01, np.float32)
OVERFLOW = np.array([[1e5, 0.01, 0.01, 0.01]], np.float32)


def scaler_state(trainer):
    return (float(trainer.get("train.loss_scale")),
            int(trainer.get("train.loss_scale_tracker")),
            int(trainer.get("train.loss_scale_hysteresis")),
            trainer.skipped)


def test_loss_scale_rule_step_for_step():
    # init 1024, growth every 2 clean steps, hysteresis 2, scale in
    # [256, 4096]. Expected (scale, tracker, hysteresis left, skipped)
    # after each step, worked out by hand from docs/design.md section 1.
    model = compile_mlir(linear_sum_model("#mixprec.adam<>"), (
        "--amp=precision=f16 init-scale=1024 growth-interval=2 "
        "hysteresis=2 min-scale=256 max-scale=4096",))
    script = [
        ("clean", (1024, 1, 2, False)),
        ("clean", (2048, 0, 2, False)),     # 2 clean steps: grow
        ("overflow", (2048, 0, 1, True)),   # hysteresis absorbs one
        ("overflow", (1024, 0, 1, True)),   # then back off
        ("overflow", (512, 0, 1, True)),
        ("overflow", (256, 0, 1, True)),
        ("overflow", (256, 0, 1, True)),    # floor at min-scale
        ("clean", (256, 1, 1, False)),
        ("clean", (512, 0, 2, False)),      # growth resets hysteresis
        ("clean", (512, 1, 2, False)),
        ("clean", (1024, 0, 2, False)),
        ("clean", (1024, 1, 2, False)),
        ("clean", (2048, 0, 2, False)),
        ("clean", (2048, 1, 2, False)),
        ("clean", (4096, 0, 2, False)),
        ("clean", (4096, 1, 2, False)),
        ("clean", (4096, 0, 2, False)),     # capped at max-scale
        ("overflow", (4096, 0, 1, True)),
        ("clean", (4096, 1, 1, False)),     # a clean step keeps hysteresis
        ("overflow", (2048, 0, 1, True)),
    ]
    trainer = model.trainer()
    applied = skipped = 0
    for index, (kind, expected) in enumerate(script):
        before = {s.name: trainer.get(s.name).tobytes() for s in model.state}
        trainer.step([CLEAN if kind == "clean" else OVERFLOW], 1e-3)
        assert scaler_state(trainer) == expected, (index, kind)
        if kind == "overflow":
            skipped += 1
            assert trainer.nonfinite_parameters == ["w"]
            # Weights, moments and the step count are bit-identical.
            for name in ("w", "train.w.exp_avg", "train.w.exp_avg_sq",
                         "train.step_count"):
                assert trainer.get(name).tobytes() == before[name], name
        else:
            applied += 1
            assert trainer.nonfinite_parameters == []
            assert trainer.get("w").tobytes() != before["w"]
        assert trainer.step_count == applied
        assert trainer.skipped_steps == skipped
        assert trainer.loss_scale == expected[0]


def train_digits(model, steps=600, lr=0.1, poison=None):
    """SGD steps on the digits batches, then the test accuracy; `poison`
    (step, value) writes value into that step's batch."""
    x_train, y_train, x_test, y_test = reference_models.digits()
    trainer = model.trainer()
    for step, index in enumerate(reference_models.batches(len(x_train), 64,
                                                          steps)):
        x = to_numpy(x_train[index]).copy()
        if poison and step == poison[0]:
            x[3, 17] = poison[1]
        trainer.step([x, to_numpy(y_train[index])], lr)
    (logits,) = trainer.evaluate("predict", [to_numpy(x_test)])
    return trainer, float((logits.argmax(1) == y_test.numpy()).mean())


@pytest.fixture(scope="module")
def accuracies(backend):
    options = {"fp32": ("--autodiff",), "f16": ("--amp=precision=f16",),
               "bf16": ("--amp=precision=bf16",)}
    return {name: train_digits(compile_mlir(mlp_source(), option))[1]
            for name, option in options.items()}


def test_digits_in_fp32_f16_and_bf16(accuracies):
    assert min(accuracies.values()) >= 0.96, accuracies
    assert max(accuracies.values()) - min(accuracies.values()) <= 0.01, \
        accuracies


def tiny_loss_source():
    """The MLP with its loss multiplied by 1e-6: FP16 gradients underflow."""
    text = mlp_source()
    old = "    return %loss : tensor<f32>\n"
    assert text.count(old) == 1
    return text.replace(old, (
        "    %tiny = mixprec.constant dense<1.0e-6> : tensor<f32>\n"
        "    %small = mixprec.mul %loss, %tiny : tensor<f32>, tensor<f32>\n"
        "    return %small : tensor<f32>\n"))


def test_underflow_shown_and_fixed_by_dynamic_loss_scaling():
    # The gradients are divided back by the learning rate (SGD is linear in
    # the gradient): lr 0.1 / 1e-6.
    lr = 0.1 / 1e-6
    results = {}
    for name, option in (("fp32", "--autodiff"),
                         ("unscaled", "--amp=precision=f16 "
                                      "loss-scaling=none"),
                         ("dynamic", "--amp=precision=f16")):
        trainer, accuracy = train_digits(
            compile_mlir(tiny_loss_source(), (option,)), lr=lr)
        results[name] = accuracy
    assert results["unscaled"] < 0.5, results
    assert results["fp32"] >= 0.96, results
    assert abs(results["dynamic"] - results["fp32"]) <= 0.01, results


def test_lost_update_shown_and_fixed_by_master_weights():
    # Plain SGD, gradient 1, lr 1e-4: 1000 updates of 1e-4 on a weight of
    # 1.0. In FP16 each one is below half an ulp (2^-12) and rounds away.
    x = np.ones((1, 4), np.float32)
    finals = {}
    for name, option in (("fp16 weights", "--amp=precision=f16 "
                          "master-weights=none loss-scaling=none"),
                         ("fp32 masters", "--amp=precision=f16")):
        model = compile_mlir(linear_sum_model("#mixprec.sgd<>"), (option,))
        trainer = model.trainer()
        dtype = {s.name: s.numpy_dtype for s in model.state}["w"]
        for _ in range(1000):
            trainer.step([x], 1e-4)
        finals[name] = (dtype, trainer.get("w").astype(np.float64))
    dtype, w = finals["fp16 weights"]
    assert dtype == np.float16 and np.all(w == 1.0), finals
    dtype, w = finals["fp32 masters"]
    assert dtype == np.float32
    np.testing.assert_allclose(w, 0.9, atol=1e-3)


def test_overflow_in_real_data_is_skipped_and_training_converges():
    model = compile_mlir(mlp_source(), ("--amp=precision=f16",))
    x_train, y_train, x_test, y_test = reference_models.digits()
    trainer = model.trainer()
    batches = list(reference_models.batches(len(x_train), 64, 600))
    for index in batches[:300]:
        trainer.step([to_numpy(x_train[index]), to_numpy(y_train[index])],
                     0.1)
    before = {s.name: trainer.get(s.name).tobytes() for s in model.state}
    scale = trainer.loss_scale
    poisoned = to_numpy(x_train[batches[300]]).copy()
    poisoned[5, 20] = 70000.0  # above 65504: Inf in FP16
    trainer.step([poisoned, to_numpy(y_train[batches[300]])], 0.1)
    assert trainer.skipped and trainer.skipped_steps == 1
    assert trainer.loss_scale == scale / 2
    assert trainer.nonfinite_parameters == [
        "fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias"]
    for spec in model.state:
        if not spec.name.startswith("train.") or \
                spec.name == "train.step_count":
            assert trainer.get(spec.name).tobytes() == before[spec.name], \
                spec.name
    for index in batches[301:]:
        trainer.step([to_numpy(x_train[index]), to_numpy(y_train[index])],
                     0.1)
    assert not trainer.skipped and trainer.skipped_steps == 1
    assert trainer.step_count == 599
    (logits,) = trainer.evaluate("predict", [to_numpy(x_test)])
    assert (logits.argmax(1) == y_test.numpy()).mean() >= 0.96


@pytest.fixture(scope="module")
def amp_mlp(backend):
    return compile_mlir(mlp_source(), ("--amp=precision=f16",))


def run_steps(trainer, batches):
    x_train, y_train, _, _ = reference_models.digits()
    for index in batches:
        trainer.step([to_numpy(x_train[index]), to_numpy(y_train[index])],
                     0.1)


def test_checkpoint_resumes_bit_exactly(amp_mlp, tmp_path):
    batches = list(reference_models.batches(1500, 64, 100))
    uninterrupted = amp_mlp.trainer(seed=3)
    run_steps(uninterrupted, batches[:50])
    path = tmp_path / "step50.ckpt"
    uninterrupted.save(path)
    assert [p.name for p in tmp_path.iterdir()] == ["step50.ckpt"]
    run_steps(uninterrupted, batches[50:])

    resumed = amp_mlp.trainer(seed=99)  # other RNG, fresh weights
    resumed.load(path)
    assert resumed.step_count == 50
    run_steps(resumed, batches[50:])
    assert snapshot(amp_mlp, resumed) == snapshot(amp_mlp, uninterrupted)


@pytest.mark.parametrize("damage, message", [
    (lambda b: b[:-100], "truncated or corrupted"),
    (lambda b: b[:len(b) // 2], "truncated or corrupted"),
    (lambda b: b[:10], "truncated"),
    (lambda b: b[:300] + bytes([b[300] ^ 1]) + b[301:],
     "truncated or corrupted (checksum mismatch)"),
    (lambda b: b"NOTMIXPR" + b[8:], "is not a mixprec checkpoint"),
    (lambda b: b[:8] + (2).to_bytes(4, "little") + b[12:],
     "is checkpoint version 2; this runtime reads 1"),
])
def test_bad_checkpoints_are_refused_and_change_nothing(amp_mlp, tmp_path,
                                                        damage, message):
    trainer = amp_mlp.trainer()
    run_steps(trainer, list(reference_models.batches(1500, 64, 3)))
    good = tmp_path / "good.ckpt"
    trainer.save(good)
    bad = tmp_path / "bad.ckpt"
    bad.write_bytes(damage(good.read_bytes()))
    other = amp_mlp.trainer(seed=1)
    before = snapshot(amp_mlp, other)
    with pytest.raises(ModelError, match=message.replace("(", r"\(")
                       .replace(")", r"\)")):
        other.load(bad)
    assert snapshot(amp_mlp, other) == before


def test_a_checkpoint_of_another_model_is_refused(amp_mlp, tmp_path):
    fp32 = compile_mlir(mlp_source(), ("--autodiff",)).trainer()
    path = tmp_path / "fp32.ckpt"
    fp32.save(path)
    trainer = amp_mlp.trainer()
    before = snapshot(amp_mlp, trainer)
    with pytest.raises(ModelError, match="holds 10 tensors; this model "
                                         "has 16"):
        trainer.load(path)
    assert snapshot(amp_mlp, trainer) == before
    with pytest.raises(ModelError, match="cannot open"):
        trainer.load(tmp_path / "missing.ckpt")


@pytest.mark.parametrize("precision", ["f16", "bf16"])
def test_precision_report_of_the_amp_step(precision, tmp_path):
    # The whole AMP train step (forward, backward, update) of the digits
    # MLP: at least 90% of its FLOPs run in 16-bit tensor-core ops.
    report = tmp_path / "report.json"
    proc = subprocess.run(
        [mixprec.tool_path("mixprec-opt"), mlp_source_path(tmp_path),
         "--mixprec-amp=precision=" + precision,
         "--mixprec-precision-report=json-file=%s" % report, "-o",
         "/dev/null"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    totals = json.loads(report.read_text())
    assert totals["flops_16bit_tensor_core"] >= 0.9 * totals["flops"], totals


def mlp_source_path(directory):
    path = directory / "mlp.mlir"
    path.write_text(mlp_source())
    return path


@pytest.mark.parametrize("options", [
    "precision=bf16 max-grad-norm=1.0",  # no loss scaling
    # Clipped after unscaling (the default 65536 would overflow here: the
    # scaled seed meets the FP16 backward before any gradient exists).
    "precision=f16 init-scale=1024 max-grad-norm=1.0",
])
def test_gradient_clipping_uses_the_unscaled_global_norm(options):
    # loss = sum(x . w) with x = (3, 4, 0, 0): the gradient of w is x, of
    # L2 norm 5, clipped to norm 1 (PyTorch's clip_grad_norm_: times
    # 1 / (5 + 1e-6)). One plain SGD step with lr 1.
    model = compile_mlir(linear_sum_model("#mixprec.sgd<>"),
                         ("--amp=" + options,))
    trainer = model.trainer()
    trainer.step([np.array([[3.0, 4.0, 0.0, 0.0]], np.float32)], 1.0)
    assert not trainer.skipped
    coefficient = np.float32(1.0) / np.float32(5.0 + 1e-6)
    expected = 1.0 - np.array([3.0, 4.0, 0.0, 0.0], np.float32) * coefficient
    np.testing.assert_allclose(trainer.get("w").ravel(), expected, rtol=1e-6)


def test_mixprec_compile_prints_the_memory_report(tmp_path):
    # The AMP step of the digits MLP: each function's plan as the library
    # it wrote holds it, and what is live at the peak, with locations.
    library = tmp_path / "libmlp.so"
    proc = subprocess.run(
        [mixprec.tool_path("mixprec-compile"), mlp_source_path(tmp_path),
         "--amp=precision=f16", "--memory-report", "-o", library],
        capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert library.exists()
    model = mixprec.Model(str(library))
    for name in ("loss", "predict", "train_gradients", "train"):
        section = re.search(r"^memory report for @%s\n((?:  .*\n)+)" % name,
                            proc.stderr, re.M)
        assert section, (name, proc.stderr)
        lines = section.group(1)
        figures = {key: int(value.replace(",", "")) for key, value in
                   re.findall(r"^  (inputs|outputs|workspace|peak) +([\d,]+) "
                              r"bytes", lines, re.M)}
        function = model.function(name)
        assert figures["inputs"] == sum(
            np.dtype(spec.numpy_dtype).itemsize * int(np.prod(spec.shape))
            for spec in function.inputs)
        assert figures["workspace"] == \
            model.function_memory(name).workspace_bytes
        assert figures["peak"] == (figures["inputs"] + figures["outputs"] +
                                   figures["workspace"])
        live = [int(size.replace(",", "")) for size in re.findall(
            r"^ +([\d,]+)  (?:f32|f16|i32)\[[\d, ]*\]  \S+\.mlir:\d+:\d+$",
            lines, re.M)]
        assert live and live == sorted(live, reverse=True), lines
        assert sum(live) <= figures["workspace"]
    # Without a train step, the functions there are.
    proc = subprocess.run(
        [mixprec.tool_path("mixprec-compile"), mlp_source_path(tmp_path),
         "--memory-report", "-o", library], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "memory report for @loss\n" in proc.stderr
    assert "memory report for @train" not in proc.stderr
