"""Reverse-mode automatic differentiation: Functions, the backward engine, gradcheck.

``Function`` is how every differentiable operation is written (built-in or your own);
``backward``/``grad`` run the engine (``create_graph=True`` records the backward pass too,
for gradients of gradients); ``gradcheck`` checks a Function against finite differences and
``gradgradcheck`` its gradients; ``functional`` has ``vjp``, ``jvp``, ``jacobian``, ``hessian``,
``hvp`` and ``vhp``; ``detect_anomaly`` finds the operation whose backward made a NaN;
``BackwardStepper`` walks through a backward pass one node at a time.
"""

from minigrad.autograd import functional, profiler
from minigrad.autograd.anomaly import detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from minigrad.autograd.api import backward, grad
from minigrad.autograd.function import Function, FunctionCtx, once_differentiable  # noqa: I001
from minigrad.autograd.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    no_grad,
    set_grad_enabled,
)
from minigrad.autograd.gradcheck import GradcheckError, gradcheck, gradgradcheck
from minigrad.autograd.stepper import BackwardStep, BackwardStepper
from minigrad.autograd.variable import Variable

__all__ = ["Function", "FunctionCtx", "once_differentiable", "backward", "grad", "gradcheck", "gradgradcheck",
           "GradcheckError", "detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled", "no_grad",
           "enable_grad", "inference_mode", "set_grad_enabled", "is_grad_enabled", "BackwardStepper",
           "BackwardStep", "Variable", "functional", "profiler"]
