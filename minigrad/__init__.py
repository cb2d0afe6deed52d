"""minigrad: a deep-learning framework in plain NumPy, with PyTorch's API, for learning backprop.

``import minigrad as torch`` runs PyTorch code that stays inside the subset listed
in the project's SPEC. This file only re-exports the public names.

The package in layers, each building on the ones below (docs/architecture.md draws them)::

    teaching tools  viz/, autograd/stepper.py, exercises/, testing.py
    training        optim/, data/ (utils/data.py is PyTorch's name for it)
    nn              nn/modules/ (the layers), nn/functional.py, nn/init.py, nn/grad.py, nn/utils/
    ops             ops/: the maths, one Function per operation, forward and backward side by side
    core            tensor.py, functions.py (mg.sum, ...), autograd/ (Function, the backward engine)
    arrays          backend.py (NumPy or CuPy), dtypes.py, creation.py, random.py, serialization.py,
                    memory.py, threads.py

    compat/ holds PyTorch's module paths that are not the core (``minigrad.cuda``,
    ``minigrad.backends``, ``minigrad.accelerator``, ``minigrad.utils.data``, the legacy tensor
    types, the names left out on purpose); each is importable under PyTorch's path.

    performance/ (the thread pool, memory-order copies) and ops/conv/algo_im2col_tuned.py are
    speed only: optional reading, computing exactly what the plain code computes.
"""
# ruff: noqa: I001, A004, F401  (import order matters: the Tensor first, then what builds on it)

from minigrad._version import __version__
from minigrad.tensor import Size, Tensor
from minigrad import autograd, backend, dtypes, memory
from minigrad.compat import accelerator, backends, cuda  # PyTorch's device modules
from minigrad.autograd import (
    enable_grad,
    inference_mode,
    is_anomaly_enabled,
    is_grad_enabled,
    no_grad,
    set_grad_enabled,
)
from minigrad.autograd.grad_mode import is_inference_mode_enabled
from minigrad.backend import Device, device, get_default_device, set_backend, set_default_device
from minigrad.creation import (arange, as_tensor, empty, empty_like, eye, from_numpy, full, full_like,
                               logspace,
                               linspace, ones, ones_like, rand, rand_like, randint, randn, randn_like,
                               randperm, tensor, zeros, zeros_like)
from minigrad.dtypes import (bool, dtype, float16, float32, float64, get_default_dtype, int8, int16, int32,
                             int64, promote_types, result_type, set_default_dtype, uint8)
from minigrad.functions import *  # noqa: F403  (sum, mean, exp, cat, where, ...)
from minigrad.functions import abs, max, min, pow, sum
from minigrad.compat.legacy import (BoolTensor, ByteTensor, CharTensor, DoubleTensor, FloatTensor,
                                    HalfTensor, IntTensor, LongTensor, ShortTensor)
from minigrad.random import Generator, get_rng_state, initial_seed, manual_seed, seed, set_rng_state
from minigrad._formatting import set_printoptions
from minigrad.serialization import load, save
from minigrad.threads import (get_num_interop_threads, get_num_threads, set_num_interop_threads,
                              set_num_threads)
from minigrad import data, linalg, nn, optim  # torch.nn, torch.optim, torch.linalg's det, inv, cross
from minigrad.compat import utils  # torch.utils.data
from minigrad.compat import return_types  # the (values, indices) named tuples of max(dim) and min(dim)
from minigrad import testing  # torch.testing.assert_close as in PyTorch

float = float32  # noqa: A001  (PyTorch's aliases)
double = float64
half = float16
long = int64
int = int32  # noqa: A001
short = int16

__all__ = ["__version__", "Tensor", "Size", "accelerator", "autograd", "backend", "backends", "cuda",
           "memory", "set_printoptions", "get_num_threads", "set_num_threads", "get_num_interop_threads",
           "set_num_interop_threads", "dtypes", "no_grad", "enable_grad", "is_anomaly_enabled",
           "inference_mode", "set_grad_enabled", "is_grad_enabled",
           "is_inference_mode_enabled",
           "device", "Device", "set_backend", "set_default_device", "get_default_device",
           "tensor", "as_tensor", "from_numpy", "zeros", "ones", "empty", "full", "eye", "arange", "linspace",
           "rand", "randn", "randint", "randperm", "zeros_like", "ones_like", "empty_like", "full_like",
           "rand_like", "randn_like", "dtype", "float16", "float32", "float64", "int8", "int16", "int32",
           "int64", "uint8", "bool", "float", "double", "half", "long", "int", "short", "get_default_dtype",
           "set_default_dtype", "promote_types", "result_type", "Generator", "manual_seed", "seed",
           "initial_seed", "get_rng_state", "set_rng_state", "data", "utils", "return_types", "save", "load",
           "nn", "optim", "FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor",
           "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor"]

# Course surface found by the survey in docs/compatibility.md; names left out on purpose raise
# NotImplementedError (minigrad/compat/unsupported.py) instead of AttributeError.
from minigrad.compat import xpu  # noqa: E402
from minigrad.ops.sampling import bernoulli, normal  # noqa: E402
from minigrad.dtypes import finfo, iinfo  # noqa: E402
from minigrad.compat.unsupported import module_getattr as _module_getattr  # noqa: E402
from minigrad.compat import register_pytorch_paths as _register_pytorch_paths  # noqa: E402

_register_pytorch_paths()  # import minigrad.cuda, minigrad.backends.cudnn, ... as in PyTorch

from math import e, inf, nan, pi  # noqa: E402  (torch.inf, torch.pi ...)
__all__ += ["xpu", "normal", "bernoulli", "finfo", "iinfo", "inf", "nan", "pi", "e", "linalg", "logspace"]
__getattr__ = _module_getattr("minigrad")
