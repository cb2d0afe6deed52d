"""PyTorch names that teaching programs use beyond the core: copying tensors and models,
plotting tensors, ``torch.backends``, the default device, ``Variable`` and the legacy typed
constructors. Each compared with PyTorch where PyTorch gives an answer."""

import copy
import importlib.util

import numpy
import pytest
from _reference import reference
from _torch import require_torch

import minigrad as mg
import minigrad.nn as nn
from minigrad import backend

from .helpers import assert_misuse_raises_like_torch, to_numpy

# --- copy.copy and copy.deepcopy --------------------------------------------------------------


def test_copy_of_a_tensor_is_a_new_leaf_on_the_same_data_as_pytorchs():
    torch = require_torch()
    for lib in (mg, torch):
        leaf = lib.ones(3, requires_grad=True)
        leaf.grad = lib.full((3,), 2.0)
        leaf.note = "kept"
        copied = copy.copy(leaf)
        assert copied is not leaf and type(copied) is type(leaf)
        assert copied.requires_grad and copied.is_leaf and copied.grad is None and copied.note == "kept"
        computed = copy.copy(leaf * 2)
        assert computed.requires_grad and computed.grad_fn is None, lib.__name__
        plain = lib.arange(4.0)
        alias = copy.copy(plain)
        with lib.no_grad():
            alias[0] = 9.0
        assert plain[0].item() == 9.0, f"{lib.__name__}: copy.copy does not share the data"


def test_deepcopy_of_a_leaf_copies_data_grad_and_attributes():
    leaf = mg.tensor([1.0, 2.0], requires_grad=True)
    leaf.grad = mg.tensor([0.5, 0.5])
    leaf.tags = ["weights"]
    clone = copy.deepcopy(leaf)
    assert clone.requires_grad and clone.is_leaf and clone.device == leaf.device
    assert clone.array is not leaf.array and clone.grad.array is not leaf.grad.array
    assert to_numpy(clone.grad).tolist() == [0.5, 0.5] and clone.tags == ["weights"]
    assert clone.tags is not leaf.tags
    with mg.no_grad():
        clone.mul_(3.0)
    assert to_numpy(leaf).tolist() == [1.0, 2.0]


def test_deepcopy_of_a_computed_tensor_raises_pytorchs_error():
    assert_misuse_raises_like_torch(lambda m: copy.deepcopy(m.ones(2, requires_grad=True) * 2),
                                    ["Only Tensors created explicitly by the user (graph leaves)"])


def test_deepcopy_keeps_views_sharing_the_copy_of_their_base_as_pytorch():
    torch = require_torch()
    for lib in (mg, torch):
        base = lib.arange(6.0)
        view = base[2:4]
        new_view, new_base = copy.deepcopy([view, base])
        new_view[0] = 100.0
        assert new_base[2].item() == 100.0 and base[2].item() == 2.0, lib.__name__
        alone = copy.deepcopy(view)  # a view copied alone is a copy of its own values
        assert alone.tolist() == [2.0, 3.0]


def test_deepcopy_of_a_model_trains_apart_from_the_original():
    mg.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    twin = copy.deepcopy(model)
    for ours, theirs in zip(model.parameters(), twin.parameters()):
        assert isinstance(theirs, nn.Parameter) and theirs.requires_grad
        assert ours.array is not theirs.array
        numpy.testing.assert_array_equal(to_numpy(ours), to_numpy(theirs))
    before = [to_numpy(p).copy() for p in model.parameters()]
    optimiser = mg.optim.SGD(twin.parameters(), lr=0.1)
    x, y = mg.randn(8, 3), mg.randn(8, 1)
    for _ in range(3):
        optimiser.zero_grad()
        ((twin(x) - y) ** 2).mean().backward()
        optimiser.step()
    for original, saved in zip(model.parameters(), before):
        numpy.testing.assert_array_equal(to_numpy(original), saved)  # untouched by the twin's training
        assert original.grad is None
    assert any((to_numpy(p) != s).any() for p, s in zip(twin.parameters(), before))


def test_deepcopy_of_an_optimiser_state_dict_is_independent_and_loads_back():
    model = nn.Linear(2, 2)
    optimiser = mg.optim.Adam(model.parameters(), lr=0.01)
    model(mg.ones(1, 2)).sum().backward()
    optimiser.step()
    saved = copy.deepcopy(optimiser.state_dict())
    moment = optimiser.state_dict()["state"][0]["exp_avg"]
    assert saved["state"][0]["exp_avg"].array is not moment.array
    optimiser.step()  # changes the live state, not the saved one
    assert not numpy.array_equal(to_numpy(saved["state"][0]["exp_avg"]), to_numpy(moment))
    fresh = mg.optim.Adam(model.parameters(), lr=0.01)
    fresh.load_state_dict(saved)
    numpy.testing.assert_array_equal(to_numpy(fresh.state_dict()["state"][0]["exp_avg"]),
                                     to_numpy(saved["state"][0]["exp_avg"]))
    twin = copy.deepcopy(optimiser)  # the whole optimiser (with copies of its parameters)
    assert twin.param_groups[0]["params"][0] is not model.weight


def test_matplotlib_plots_a_cpu_tensor_like_a_numpy_array():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    xs = mg.arange(5.0, device="cpu")
    figure, axes = plt.subplots()
    try:
        (line,) = axes.plot(xs, xs ** 2)
        numpy.testing.assert_array_equal(line.get_ydata(), [0.0, 1.0, 4.0, 9.0, 16.0])
        (alone,) = axes.plot(mg.tensor([3.0, 1.0, 2.0], device="cpu"))
        numpy.testing.assert_array_equal(alone.get_ydata(), [3.0, 1.0, 2.0])
        counts, _, _ = axes.hist(mg.tensor([0.0, 0.0, 1.0], device="cpu"), bins=2)
        assert counts.tolist() == [2.0, 1.0]
        image = axes.imshow(mg.eye(3, device="cpu"))
        numpy.testing.assert_array_equal(image.get_array(), numpy.eye(3))
    finally:
        plt.close(figure)
    assert numpy.asarray(mg.tensor([1.5, 2.5], device="cpu")).tolist() == [1.5, 2.5]


# --- torch.backends ---------------------------------------------------------------------------


def test_every_pytorch_module_path_imports():
    """minigrad.compat's modules are importable under PyTorch's paths (``import minigrad.cuda``,
    ``from minigrad.backends import cudnn``, ``import minigrad.utils.data.sampler``), as the same
    module objects that ``mg.cuda`` and friends are."""
    from minigrad.compat import PYTORCH_PATHS

    for path in PYTORCH_PATHS:
        module = importlib.import_module(f"minigrad.{path}")
        assert module is importlib.import_module(f"minigrad.compat.{path}"), path
        parent, _, name = f"minigrad.{path}".rpartition(".")
        assert getattr(importlib.import_module(parent), name) is module, path


# What a PyTorch CPU build answers holds where CuPy is absent; scripts/gpu-check.sh runs these
# tests on a GPU machine, where minigrad rightly answers as a CUDA build.
CUPY_INSTALLED = importlib.util.find_spec("cupy") is not None
cpu_build_only = pytest.mark.skipif(CUPY_INSTALLED, reason="answers as a CPU build; CuPy is installed here")


@cpu_build_only
def test_backends_answer_as_a_pytorch_cpu_build():
    torch = require_torch()
    import minigrad.backends.cudnn
    import minigrad.backends.mps

    assert minigrad.backends.mps is mg.backends.mps and minigrad.backends.cudnn is mg.backends.cudnn
    assert mg.backends.mps.is_available() is torch.backends.mps.is_available() is False
    assert mg.backends.mps.is_built() is torch.backends.mps.is_built() is False
    assert mg.backends.mkldnn.is_available() is torch.backends.mkldnn.is_available()
    for flag in ("enabled", "benchmark", "deterministic", "allow_tf32"):
        assert getattr(mg.backends.cudnn, flag) is getattr(torch.backends.cudnn, flag), flag
    for flag in ("allow_tf32", "allow_fp16_reduced_precision_reduction"):
        assert getattr(mg.backends.cuda.matmul, flag) is getattr(torch.backends.cuda.matmul, flag), flag
    assert mg.backends.cuda.is_built() is False  # no CuPy on this machine, as a CPU build
    assert mg.backends.mkldnn.enabled is True


def test_cudnn_is_available_exactly_when_minigrads_cuda_device_is(device):
    assert mg.backends.cudnn.is_available() is mg.cuda.is_available()
    assert mg.cuda.is_available() is (device.type == "cuda") or CUPY_INSTALLED
    if device.type == "cpu" and not CUPY_INSTALLED:
        assert mg.backends.cudnn.version() is None


def test_backend_flags_are_settable_and_refuse_non_bools_like_pytorch():
    torch = require_torch()
    cudnn = mg.backends.cudnn
    try:
        cudnn.benchmark, cudnn.deterministic = True, True
        assert cudnn.benchmark and cudnn.deterministic
        with cudnn.flags(enabled=False):
            assert cudnn.enabled is False and cudnn.benchmark is False
        assert cudnn.enabled is True and cudnn.benchmark is True
        mg.backends.cuda.matmul.allow_tf32 = True
        assert mg.backends.cuda.matmul.allow_tf32 is True
    finally:
        cudnn.benchmark, cudnn.deterministic = False, False
        mg.backends.cuda.matmul.allow_tf32 = False
    for lib in (torch, mg):
        with pytest.raises(RuntimeError, match="expects a bool"):
            lib.backends.cudnn.benchmark = "yes"
        with pytest.raises(RuntimeError, match="expects a bool"):
            lib.backends.cuda.matmul.allow_tf32 = 1
        with pytest.raises(AttributeError, match="Unknown attribute"):
            lib.backends.cuda.matmul.allow_everything = True
    assert cudnn.benchmark is False


# --- the default device -----------------------------------------------------------------------

def test_get_default_device_starts_on_the_cpu_as_pytorch():
    torch = require_torch()
    mg.set_default_device(None)
    assert mg.get_default_device() == mg.device("cpu")
    assert repr(mg.get_default_device()) == repr(torch.get_default_device())


def test_set_default_device_and_set_backend_are_one_setting(cuda_standin):
    try:
        mg.set_backend("cupy")
        assert mg.get_default_device() == mg.device("cuda", 0) and backend.default_device() == "cuda"
        mg.set_default_device("cpu")
        assert backend.default_device() == "cpu" and mg.zeros(1).device == "cpu"
        mg.set_default_device("cuda")
        assert mg.zeros(1).device == "cuda" and mg.tensor([1.0]).device == "cuda"
        assert repr(mg.get_default_device()) == "device(type='cuda', index=0)"
        mg.set_default_device(None)
        assert mg.get_default_device() == "cpu"
    finally:
        mg.set_default_device(None)


def test_device_as_a_context_manager_sets_the_default_for_factories_and_layers(cuda_standin):
    mg.set_default_device("cpu")
    try:
        with mg.device("cuda") as chosen:
            assert chosen == mg.device("cuda")
            made = [mg.zeros(2), mg.ones(2, 2), mg.tensor([1, 2]), mg.arange(3), mg.randn(2), mg.rand(1),
                    mg.full((2,), 3.0), mg.eye(2), mg.linspace(0, 1, 3), mg.empty(1), mg.randint(5, (2,)),
                    mg.as_tensor(numpy.ones(2))]
            assert all(t.device == "cuda" for t in made), [t.device for t in made]
            layer = nn.Linear(2, 3)
            assert layer.weight.device == "cuda" and layer.bias.device == "cuda"
            assert mg.zeros(1, device="cpu").device == "cpu"  # an explicit device= wins
            assert mg.from_numpy(numpy.ones(1)).device == "cpu"  # NumPy memory stays where it is
            with mg.device("cpu"):
                assert mg.zeros(1).device == "cpu" and mg.get_default_device() == "cpu"
            assert mg.zeros(1).device == "cuda"
        assert mg.get_default_device() == "cpu" and mg.zeros(1).device == "cpu"
        with pytest.raises(ValueError), mg.device("cuda"):
            raise ValueError("leaves the block")
        assert mg.get_default_device() == "cpu"
    finally:
        mg.set_default_device(None)


@cpu_build_only
def test_a_cuda_default_without_a_gpu_fails_when_a_tensor_is_made_as_pytorch(device):
    if device.type == "cuda":
        pytest.skip("here 'cuda' is usable (the stand-in)")
    torch = require_torch()
    for lib in (torch, mg):
        lib.set_default_device("cuda")  # accepted: nothing is allocated yet
        try:
            with pytest.raises(AssertionError):
                lib.zeros(2)
            with pytest.raises(AssertionError):
                lib.get_default_device()  # 'cuda:<current index>' needs a GPU to ask
        finally:
            lib.set_default_device(None)
        with pytest.raises(AssertionError), lib.device("cuda"):
            lib.ones(1)
        assert lib.zeros(1).device.type == "cpu"
    with pytest.raises(backend.CudaUnavailableError, match="CUDA is not available"):
        with mg.device("cuda"):
            mg.tensor([1.0])


def test_set_default_device_misuse_raises_like_pytorch(device):
    try:
        assert_misuse_raises_like_torch(lambda m: m.set_default_device("abacus"), ["abacus"])
        if device.type == "cpu":
            assert_misuse_raises_like_torch(lambda m: m.set_default_device(3), ["accelerator", "3"])
    finally:
        mg.set_default_device(None)
        require_torch().set_default_device(None)


# --- Variable and the legacy typed constructors -----------------------------------------------

LEGACY_NAMES = ["FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor", "ShortTensor",
                "CharTensor", "ByteTensor", "BoolTensor"]

LEGACY_CASES = {
    "from_list": lambda m, kind: kind([1, 0, 2]),
    "from_nested_list": lambda m, kind: kind([[1, 2], [3, 4]]),
    "from_floats": lambda m, kind: kind([1.5, -0.0, 2.75]),
    "from_bools": lambda m, kind: kind([True, False]),
    "from_tuple_is_data": lambda m, kind: kind((2, 3)),
    "from_numpy": lambda m, kind: kind(numpy.array([1.0, 2.0])),
    "empty_list": lambda m, kind: kind([]),
    "nothing": lambda m, kind: kind(),
    "with_cpu_device": lambda m, kind: kind([1, 2], device="cpu"),
}


@pytest.mark.parametrize("case", LEGACY_CASES)
@pytest.mark.parametrize("name", LEGACY_NAMES)
def test_legacy_typed_constructors_make_what_pytorchs_make(name, case):
    build = LEGACY_CASES[case]

    def torch_built(torch):
        theirs = build(torch, getattr(torch, name))
        return theirs, theirs.type()

    ours = build(mg, getattr(mg, name))
    theirs, their_type = reference(torch_built)
    assert type(ours) is mg.Tensor and ours.device == "cpu"
    assert ours.dtype.name == str(theirs.dtype) and ours.shape == tuple(theirs.shape)
    numpy.testing.assert_array_equal(to_numpy(ours), theirs)
    assert ours.type() == their_type == f"torch.{name}"
    assert isinstance(ours, getattr(mg, name)) and isinstance(ours, mg.autograd.Variable)


@pytest.mark.parametrize("name", LEGACY_NAMES)
def test_legacy_constructor_from_sizes_and_isinstance_as_pytorch(name):
    torch = require_torch()
    ours, theirs = getattr(mg, name)(2, 3), getattr(torch, name)(2, 3)
    assert ours.shape == tuple(theirs.shape) == (2, 3) and ours.dtype.name == str(theirs.dtype)[6:]
    assert getattr(mg, name)(mg.Size([4])).shape == (4,)
    for other in LEGACY_NAMES:
        assert isinstance(ours, getattr(mg, other)) is isinstance(theirs, getattr(torch, other)), other
    assert not issubclass(getattr(mg, name), mg.Tensor)
    assert repr(getattr(mg, name)) == f"<class 'minigrad.{name}'>"


def test_legacy_constructor_from_a_tensor_shares_its_data_and_graph():
    source = mg.tensor([1.0, 2.0], requires_grad=True)
    alias = mg.FloatTensor(source)
    assert alias.grad_fn is not None and alias.shape == (2,)
    alias.sum().backward()
    assert to_numpy(source.grad).tolist() == [1.0, 1.0]
    plain = mg.tensor([3, 4])
    same = mg.LongTensor(plain)
    same[0] = 9
    assert plain[0].item() == 9


def test_type_converts_with_a_legacy_type_or_its_name_as_pytorch(device):
    torch = require_torch()
    for lib in (mg, torch):
        ones = lib.ones(2, device="cpu")
        assert ones.type(lib.LongTensor).dtype == lib.int64
        assert ones.type("torch.IntTensor").dtype == lib.int32
        assert ones.type(lib.float64).type() == "torch.DoubleTensor"
        assert ones.bool().type() == "torch.BoolTensor"
        assert ones.type(lib.FloatTensor) is ones
    if device.type == "cuda":  # the legacy names say where the tensor is; a legacy type moves it
        on_gpu = mg.ones(2)
        assert on_gpu.type() == "torch.cuda.FloatTensor" and on_gpu.long().type() == "torch.cuda.LongTensor"
        assert on_gpu.type(mg.DoubleTensor).device == "cpu" and on_gpu.type(mg.float64).device == "cuda"
        assert mg.ones(2, device="cpu").type("torch.cuda.LongTensor").device == "cuda"


LEGACY_MISUSE = {
    "cuda_device": (lambda m: m.FloatTensor([1.0], device="cuda"), ["cpu", "cuda"]),
    "other_dtype_tensor": (lambda m: m.FloatTensor(m.tensor([1, 2])), ["int64"]),
    "float_scalar": (lambda m: m.FloatTensor(2.5), ["sequence", "float"]),
    "string": (lambda m: m.LongTensor("ab"), ["str"]),
    "negative_size": (lambda m: m.FloatTensor(-1), ["negative dimension -1"]),
    "ragged": (lambda m: m.FloatTensor([[1, 2], [3]]), ["expected sequence of length 2 at dim 1 (got 1)"]),
    "overflow_int32": (lambda m: m.IntTensor([2 ** 40]), ["int32", "overflow"]),
    "overflow_uint8": (lambda m: m.ByteTensor([1, 300]), ["uint8", "overflow"]),
    "size_and_float": (lambda m: m.FloatTensor(2, 3.0), ["float"]),
    "variable_of_a_list": (lambda m: m.autograd.Variable([1, 2]),
                           ["Variable data has to be a tensor", "list"]),
    "variable_of_ints_requiring_grad": (lambda m: m.autograd.Variable(m.tensor([1, 2]), requires_grad=True),
                                        ["floating point"]),
}


@pytest.mark.parametrize("name", LEGACY_MISUSE)
def test_legacy_misuse_raises_like_pytorch(name):
    misuse, pieces = LEGACY_MISUSE[name]
    assert_misuse_raises_like_torch(misuse, pieces)


def test_variable_returns_a_leaf_tensor_on_the_same_data_as_pytorch():
    torch = require_torch()
    from minigrad.autograd import Variable

    for lib, make in ((mg, Variable), (torch, torch.autograd.Variable)):
        data = lib.ones(2)
        wrapped = make(data, requires_grad=True)
        assert type(wrapped) is lib.Tensor and wrapped is not data
        assert wrapped.requires_grad and wrapped.is_leaf and not data.requires_grad
        (wrapped * 3).sum().backward()
        assert wrapped.grad.tolist() == [3.0, 3.0]
        with lib.no_grad():
            wrapped.mul_(2)
        assert data.tolist() == [2.0, 2.0], f"{lib.__name__}: Variable does not share the data"
        computed = lib.ones(2, requires_grad=True) * 2
        cut = make(computed)
        assert cut.grad_fn is None and not cut.requires_grad
        assert make().shape == (0,) and isinstance(data, make) and not isinstance(3, make)
        with pytest.warns(UserWarning, match="volatile"):
            make(data, volatile=True)


# --- repr: rows, summaries and suffixes laid out as PyTorch's --------------------------------------

def _repr_examples() -> list:
    """(array, dtype, autograd) triples: rows of every length around the 80-column limits, matrices,
    higher dimensions, summarised tensors, wide and tiny ranges, NaN/inf, -0., ints and bools."""
    rng = numpy.random.default_rng(13)
    examples = []
    for n in [*range(1, 31), 47, 64, 100]:
        for scale in (1.0, 1000.0, 1e-3, 1e6):
            examples.append((rng.standard_normal(n) * scale, "float32", "leaf"))
            examples.append((numpy.round(rng.standard_normal(n) * scale), "float64", "grad_fn"))
    for rows in (1, 2, 5):
        for columns in range(5, 14):
            examples.append((rng.standard_normal((rows, columns)) * 10, "float64", "leaf"))
            examples.append((rng.standard_normal((rows, columns)), "float32", "grad_fn"))
    for shape in [(2, 3, 4), (2, 2, 2, 2), (2000,), (40, 40), (3, 500), (11, 11, 11)]:
        examples.append((rng.standard_normal(shape), "float32", "plain"))
        examples.append((rng.standard_normal(shape) * 1e9, "float64", "leaf"))
        examples.append((numpy.round(rng.standard_normal(shape) * 100), "int64", "plain"))
        examples.append((rng.standard_normal(shape) > 0, "bool", "plain"))
    special = numpy.array([numpy.nan, numpy.inf, -numpy.inf, -0.0, 0.0, 1.5, -2.0])
    examples += [(special, "float32", "leaf"), (-numpy.zeros(3), "float32", "plain"),
                 (numpy.zeros((2, 0)), "float64", "leaf"), (numpy.array(3.25), "float32", "leaf"),
                 (numpy.array([1e-9, 1.0]), "float16", "plain"), (numpy.arange(30), "int32", "plain")]
    return examples


def test_repr_matches_pytorch_character_for_character():
    torch = require_torch()
    examples = _repr_examples()
    assert len(examples) > 340
    wrapped = 0
    for values, dtype, autograd in examples:
        reprs = []
        for lib in (mg, torch):
            kwargs = {"device": "cpu"} if lib is mg else {}
            t = lib.tensor(values, dtype=getattr(lib, dtype), **kwargs)
            if autograd != "plain":
                t.requires_grad_()
            reprs.append(repr(t * 2 if autograd == "grad_fn" else t))
        ours, theirs = reprs
        assert ours == theirs.replace("torch.", "minigrad."), f"\n{ours}\n---\n{theirs}"
        wrapped += theirs.splitlines()[-1].lstrip().startswith(("requires_grad=", "dtype=", "grad_fn="))
    assert wrapped > 20, f"only {wrapped} examples put a suffix on a line of its own"


def test_repr_moves_a_suffix_that_does_not_fit_to_a_new_line():
    rows = mg.arange(20.0, device="cpu").reshape(2, 10).requires_grad_()
    assert repr(rows) == ("tensor([[ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9.],\n"
                          "        [10., 11., 12., 13., 14., 15., 16., 17., 18., 19.]],\n"
                          "       requires_grad=True)")
    assert repr(rows.double() * 2).endswith("]],\n       dtype=minigrad.float64, grad_fn=<MulBackward0>)")
    short = mg.tensor([1.0, 2.0], device="cpu", requires_grad=True)
    assert repr(short) == "tensor([1., 2.], requires_grad=True)"


def test_deepcopy_of_a_detached_or_no_grad_view_of_a_computed_tensor_works_as_pytorch():
    torch = require_torch()
    for lib in (mg, torch):
        computed = lib.ones(4, requires_grad=True) * 2
        detached = copy.deepcopy(computed.detach())
        with lib.no_grad():
            window = computed[1:3]
        copied = copy.deepcopy(window)
        assert detached.tolist() == [2.0] * 4 and copied.tolist() == [2.0, 2.0], lib.__name__
        assert not detached.requires_grad and copied.grad_fn is None
        with lib.no_grad():
            copied[0] = 5.0
        assert computed[1].item() == 2.0
