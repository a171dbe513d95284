"""torchvision's classification models through mpt.compile, one builder
per family at its smallest variant, num_classes=10, batch 4 (8 and 2 for
two), the smallest input it takes: FP32 training against PyTorch judged by their distance from
a float64 PyTorch run of the same steps (batch norm on tiny batches is
chaotic: PyTorch's own FP32 parts from float64 within a few steps), bf16
and f16 AMP that learn, and the eval forward. The distance judged is the
losses' (the largest relative difference of a step's loss); the trained
state's (every parameter and running statistic, relative, in L2) is
printed beside it, with the compile time and the best step time of each
system.

CI runs the cheapest families; `pytest -m zoo` runs the whole zoo (the
families mixprec.torch still refuses are in REFUSED, with the reason)."""
import collections
import copy
import time

import pytest
import torch
import torch.nn.functional as F
import torchvision.models as models
import torchvision.ops
from torch import nn

import mixprec.torch as mpt

# maxvit's and swin's builders call torch.meshgrid without indexing=.
pytestmark = pytest.mark.filterwarnings("ignore:torch.meshgrid")

BATCH = 4
FP32_STEPS = 3
# f16's loss scale starts at 2^16 and halves at each overflow: the first
# steps of a deep model are skipped. regnet_x's weight gradients reach 5e5
# at scale 1 (PyTorch FP32, this batch), past f16's 65504: its scale must
# fall to 2^-3, 19 halvings, before a step applies, below the default
# min-scale of 1 (Apex's, Megatron's, DeepSpeed's); PyTorch's GradScaler
# has no floor, and neither has this f16 run.
AMP_STEPS = {"bf16": 20, "f16": 40}
AMP_OPTIONS = {"bf16": None, "f16": "min-scale=5.96e-08"}
LR = 0.005
# mixprec's distance from float64 may be this many times PyTorch FP32's
# (plus a floor for runs where PyTorch's is 0 to the last bit).
DISTANCE_FACTOR, DISTANCE_FLOOR = 3.0, 1e-6


def loss_fn(model, x, y):
    return F.cross_entropy(model(x), y)


def googlenet_loss(model, x, y):
    """GoogLeNet's training loss (Szegedy et al., 2015): its two auxiliary
    classifiers' losses added with weight 0.3."""
    out = model(x)
    return F.cross_entropy(out.logits, y) + 0.3 * (
        F.cross_entropy(out.aux_logits1, y) +
        F.cross_entropy(out.aux_logits2, y))


# torchvision's builder (called with num_classes=10 and `options`); the
# smallest input size it takes; whether CI runs it; the batch
# (efficientnet_b0's batch norms on 4 images of 1x1 at its last stage are
# chaotic: PyTorch's own FP32 losses part from float64 by 16% in 3 steps);
# the loss.
Family = collections.namedtuple("Family",
                                "builder size cheap batch loss options",
                                defaults=(False, BATCH, loss_fn, {}))
FAMILIES = {
    "alexnet": Family("alexnet", 63),
    "convnext": Family("convnext_tiny", 32),
    "densenet": Family("densenet121", 32),
    "efficientnet": Family("efficientnet_b0", 32, batch=8),
    "efficientnet_v2": Family("efficientnet_v2_s", 32),
    "googlenet": Family("googlenet", 32, loss=googlenet_loss,
                        options=dict(aux_logits=True, init_weights=True)),
    # Without its auxiliary classifier, whose 5x5 pooling needs 299x299
    # images (at 75x75 its input is 3x3).
    "inception_v3": Family("inception_v3", 75,
                           options=dict(aux_logits=False, init_weights=True)),
    # Its windows of 7 after a stride of 32: 224 is its smallest input.
    "maxvit": Family("maxvit_t", 224, batch=2),
    "mnasnet": Family("mnasnet0_5", 32),
    "mobilenet_v2": Family("mobilenet_v2", 32),
    "mobilenet_v3": Family("mobilenet_v3_small", 32, cheap=True),
    "regnet_x": Family("regnet_x_400mf", 32),
    "regnet_y": Family("regnet_y_400mf", 32),
    "resnet": Family("resnet18", 32),
    "resnext": Family("resnext50_32x4d", 32),
    "shufflenet_v2": Family("shufflenet_v2_x0_5", 32),
    "squeezenet": Family("squeezenet1_1", 32, cheap=True),
    "vgg": Family("vgg11", 32),
    "vgg_bn": Family("vgg11_bn", 32),
    "vit": Family("VisionTransformer", 32, options=dict(
        image_size=32, patch_size=8, num_layers=2, num_heads=2,
        hidden_dim=64, mlp_dim=128)),
    "wide_resnet": Family("wide_resnet50_2", 32),
}

# Families mixprec.torch refuses, by the construct it names (README).
REFUSED = {
    "swin": Family("swin_t", 32),
    "swin_v2": Family("swin_v2_t", 32),
}
REFUSAL = ("torchvision.models.swin_transformer._get_relative_position_bias "
           "is not supported")


def model_of(family):
    return getattr(models, family.builder)(num_classes=10, **family.options)


def family_params():
    return [pytest.param(name, marks=() if family.cheap else pytest.mark.zoo)
            for name, family in sorted(FAMILIES.items())]


def build(name, randomness=True):
    """The family's model (seeded) and its batches; without `randomness`
    its dropout and stochastic depth are off (p = 0), so that runs can be
    compared step by step."""
    family = FAMILIES[name]
    torch.manual_seed(0)
    model = model_of(family)
    if not randomness:
        for module in model.modules():
            if isinstance(module, (nn.Dropout,
                                   torchvision.ops.StochasticDepth)):
                module.p = 0.0
    generator = torch.Generator().manual_seed(1)
    batches = [(torch.randn(family.batch, 3, family.size, family.size,
                            generator=generator),
                torch.randint(0, 10, (family.batch,), generator=generator))
               for _ in range(FP32_STEPS)]
    return model, batches


def torch_losses(model, batches, dtype, loss=loss_fn, times=None):
    model = copy.deepcopy(model).to(dtype)
    optimizer = torch.optim.SGD(model.parameters(), lr=LR)
    losses = []
    for x, y in batches:
        started = time.perf_counter()
        optimizer.zero_grad()
        value = loss(model, x.to(dtype), y)
        value.backward()
        optimizer.step()
        losses.append(value.item())
        if times is not None:
            times.append(time.perf_counter() - started)
    return losses, model


def compile_and_train(model, batches, precision, amp_options=None,
                      loss=loss_fn):
    model = copy.deepcopy(model)
    started = time.perf_counter()
    trainer = mpt.compile(model, loss, batches[0],
                          torch.optim.SGD(model.parameters(), lr=LR),
                          precision=precision, amp_options=amp_options)
    compile_seconds = time.perf_counter() - started
    losses, times = [], []
    for batch in batches:
        started = time.perf_counter()
        losses.append(trainer.step(*batch))
        times.append(time.perf_counter() - started)
    trainer.step_seconds = min(times)
    return trainer, losses, compile_seconds


def distance(losses, reference):
    return max(abs(a - b) / abs(b) for a, b in zip(losses, reference))


def state_distance(state, reference):
    """|state - reference| / |reference| over every float tensor of the
    reference state, in float64."""
    squares = norms = 0.0
    for key, value in reference.items():
        if value.is_floating_point():
            squares += float((state[key].double() - value.double()).norm()
                             ** 2)
            norms += float(value.double().norm() ** 2)
    return (squares / norms) ** 0.5


@pytest.mark.parametrize("name", family_params())
def test_family_trains_as_pytorch(name):
    model, batches = build(name, randomness=False)
    fp32_batches = batches[:FP32_STEPS]
    loss = FAMILIES[name].loss
    float64, exact = torch_losses(model, fp32_batches, torch.float64, loss)
    torch_times = []
    float32, trained = torch_losses(model, fp32_batches, torch.float32, loss,
                                    torch_times)
    trainer, losses, seconds = compile_and_train(model, fp32_batches, "fp32",
                                                 loss=loss)
    state = trainer.state_dict()
    ours, theirs = distance(losses, float64), distance(float32, float64)
    print("%s: compile %.1f s, FP32 losses' distance from float64 %.2e "
          "(PyTorch %.2e); the state's %.2e (PyTorch %.2e); best step "
          "%.1f ms (PyTorch %.1f ms)" % (
              name, seconds, ours, theirs,
              state_distance(state, exact.state_dict()),
              state_distance(trained.state_dict(), exact.state_dict()),
              1e3 * trainer.step_seconds, 1e3 * min(torch_times)))
    assert ours <= DISTANCE_FACTOR * theirs + DISTANCE_FLOOR, (losses,
                                                               float32,
                                                               float64)
    # The eval forward of mixprec's trained weights (and running
    # statistics) is PyTorch's with them.
    # Some modules (mnasnet's) read the version their state was saved by.
    state._metadata = trained.state_dict()._metadata
    trained.load_state_dict(state)
    trained.eval()
    with torch.no_grad():
        expected = trained(batches[0][0])
    assert torch.allclose(trainer.forward(batches[0][0]), expected,
                          rtol=1e-3, atol=1e-4, equal_nan=True)


@pytest.mark.zoo
@pytest.mark.parametrize("precision", ["bf16", "f16"])
@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_family_learns_in_amp(name, precision):
    # The same batch, stepped: the loss falls (dropout off: its noise on a
    # batch of 4 hides the trend).
    model, batches = build(name, randomness=False)
    _, losses, _ = compile_and_train(model,
                                     [batches[0]] * AMP_STEPS[precision],
                                     precision, AMP_OPTIONS[precision],
                                     FAMILIES[name].loss)
    print("%s %s: losses %s" % (name, precision,
                                " ".join("%.3f" % v for v in losses)))
    assert losses[-1] < losses[0], losses


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_family_is_refused_by_name(name):
    family = REFUSED[name]
    torch.manual_seed(0)
    model = model_of(family)
    size = family.size
    x, y = torch.randn(2, 3, size, size), torch.randint(0, 10, (2,))
    with pytest.raises(mpt.UnsupportedError, match=REFUSAL):
        mpt.compile(model, loss_fn, (x, y),
                    torch.optim.SGD(model.parameters(), lr=LR))
