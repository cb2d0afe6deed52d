"""The derive level: statements with the setting and the definitions, hints that unlock one by one.

The guided level (the handouts as they are) states each final formula; a unit that wants
students to *derive* them makes the copy with ``make DIR --derive``: each file's statement
is replaced by the one below (what is computed, the shapes, what to derive — never the
result), and each blank's hint keeps only its label (``grad_input``, not the product that
gives it). ``python -m minigrad.exercises hint NAME`` then shows the next hint of that
exercise, one step at a time, and notes in the student's folder how many were used.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from pathlib import Path

from minigrad.exercises._student import split_statement

HINTS_FILE = ".minigrad-hints.json"


@dataclass(frozen=True)
class Level:
    statement: str
    hints: tuple[str, ...]


DERIVE = {
    "broadcasting": Level(
        """Exercise 1 — elementwise ops and broadcasting (derive level).

``Mul`` computes c = a ⊙ b and ``Div`` computes c = a ⊘ b, where a and b broadcast to
c's shape (NumPy's rules: missing leading axes and axes of size 1 are stretched).
``backward`` receives grad = ∂L/∂c and returns ∂L/∂a and ∂L/∂b, each of its input's shape.
``sum_to_shape(grad, shape)`` undoes a broadcast. Derive each gradient from the
definition of c elementwise, then ask what a stretched axis means for the chain rule.
""",
        ("Write c[i] for one element: which elements of a does c[i] depend on, and how?",
         "An element of a that was stretched along an axis is used by every c on that axis: the "
         "chain rule adds the contributions — a sum over the stretched axes.",
         "∂(a/b)/∂b = −a/b²; then sum each gradient back to its input's shape with sum_to_shape.")),
    "linear": Level(
        """Exercise 2 — the ``Linear`` Function (derive level).

y = x Wᵀ + b with x (N, in), W (out, in), b (out,), y (N, out); x may have extra leading
dimensions (*, in). ``backward`` receives grad = ∂L/∂y and returns ∂L/∂x, ∂L/∂W and ∂L/∂b
(None for an input with ``ctx.needs_input_grad[i]`` False). Derive each from
y[n, o] = Σ_i x[n, i] W[o, i] + b[o], one element at a time.
""",
        ("Write ∂L/∂x[n, i] = Σ_o ∂L/∂y[n, o] · ∂y[n, o]/∂x[n, i]. Which factor survives?",
         "Each gradient has the shape of what it differentiates: (N, in), (out, in), (out,). "
         "Let the shapes tell you which matrix to transpose.",
         "b[o] is used by every row n: its gradient sums over the batch (and the leading dimensions).")),
    "softmax_xent": Level(
        """Exercise 3 — softmax and cross-entropy (derive level).

For logits z (N, C) and targets t (N,): p = softmax(z) per row, logp = log p, and the loss
is the mean over rows of −logp[n, t[n]]. Write ``Softmax``'s backward (a vector-Jacobian
product, without building the Jacobian), ``NLLLoss``'s backward, and the fused
``CrossEntropy`` backward. Derive ∂p_i/∂z_j first; then the fused gradient, and say why it
is better than chaining the two.
""",
        ("∂p_i/∂z_j = p_i (δ_ij − p_j). Multiply by grad_i and sum over i.",
         "NLL's loss touches one element per row; remember the mean and the upstream gradient.",
         "Chain softmax, log and NLL by hand: most terms cancel, leaving something with p and a one-hot.")),
    "relu_maxpool": Level(
        """Exercise 4 — ReLU and max-pooling (derive level).

ReLU: y = max(x, 0) elementwise. Max-pooling: each output is the maximum of a k×k window
(stride s) of its channel. Write both backwards. Decide what the gradient is where ReLU's
input is exactly 0 (as PyTorch does), which element of a window receives the gradient when
several tie, and what happens where windows overlap.
""",
        ("A max or a ReLU routes the gradient: it goes where the output came from, and nowhere else.",
         "PyTorch: ReLU's gradient at x == 0 is 0; a window's gradient goes to its first maximum.",
         "Overlapping windows can pick the same element: the contributions add.")),
    "conv_im2col": Level(
        """Exercise 5 — Conv2d backward by im2col (derive level).

The forward unfolds x into columns (im2col: (N, C·kh·kw, L), one column per output
position) and computes each group's output as a matrix product of the weights
(O, C·kh·kw) with the columns. Write the backward: ∂L/∂W, ∂L/∂x and ∂L/∂b, with stride,
padding, dilation and groups. Derive them from the matrix product, as in exercise 2.
""",
        ("The forward is a Linear layer on the columns: reuse what you derived there.",
         "The gradient of the columns must be folded back onto x: col2im adds where windows overlap.",
         "The bias is used at every output position of every image.")),
    "conv_rot180": Level(
        """Exercise 6 — Conv2d backward as correlations (derive level).

Conv2d (PyTorch's, a cross-correlation) with stride s, padding p and dilation d:
y[n, o, i, j] = Σ_c,u,v W[o, c, u, v] · x_pad[n, c, s·i + d·u, s·j + d·v].
Write ∂L/∂x and ∂L/∂W as correlations, with the helpers the file asks for. Derive which
x elements each y element touches, then reverse that relation.
""",
        ("Fix one x element: which (i, j, u, v) reach it? Write ∂L/∂x as a sum over them.",
         "The sum is a correlation of δ with the kernel flipped in both spatial axes and with its in- and "
         "out-channels swapped; a stride puts zeros between δ's elements.",
         "For ∂L/∂W, the roles of x and δ swap: stride and dilation swap too.")),
    "batchnorm": Level(
        """Exercise 7 — BatchNorm backward in one expression (derive level).

Training-mode BatchNorm over the batch (and spatial) axes, per channel:
μ = mean(x), σ² = mean((x − μ)²), x̂ = (x − μ)/√(σ² + ε), y = γ x̂ + β.
Write ``backward`` as one expression for ∂L/∂x (not step by step), and ∂L/∂γ, ∂L/∂β.
Derive it by hand through the three paths by which x reaches the loss.
""",
        ("β and γ are used at every position of their channel: their gradients are sums.",
         "x reaches L through x̂ directly, through μ and through σ²: write the three terms.",
         "Put the three terms over a common factor γ/(m·√(σ² + ε)); the sums of g and g·x̂ remain.")),
    "sgd": Level(
        """Exercise 8 — SGD with momentum, Nesterov and weight decay (derive level).

Implement ``SGD.step`` exactly as PyTorch's ``torch.optim.SGD`` documents it: weight decay,
momentum with dampening, Nesterov, and the first step's momentum buffer. Read PyTorch's
documented algorithm (its pseudocode) and translate it; a parameter without a gradient is
skipped.
""",
        ("Weight decay is added to the gradient before anything else.",
         "The first step's buffer is the gradient itself — a copy, never the gradient tensor.",
         "Nesterov steps along g + momentum · buffer, not along the buffer.")),
    "capstone": Level(
        """Exercise 9 — capstone: your own CNN trains MNIST (derive level).

Assemble the Functions of exercises 2–5 and your SGD (8) into the statement's CNN and
train it for one epoch: write ``ConvNet.forward`` with every step one of your Functions, and
the body of the training loop.
""",
        ("conv → ReLU → max-pool twice, then flatten and two linear layers with a ReLU between.",
         "A training step: zero the gradients, the loss of the batch, backward, one optimiser step.",
         "A loss that stays at ln 10 ≈ 2.30 means nothing is learnt: check zero_grad, step and lr.")),
    "im2col": Level(
        """Exercise 10 — im2col and col2im (derive level).

``im2col(x, kernel_size, stride, padding, dilation)`` returns PyTorch's ``F.unfold`` of x
(N, C, H, W): (N, C·kh·kw, L), one column per position of a kh×kw window (stride, zero
padding and dilation as in conv2d), rows ordered (c, i, j), positions row-major.
``col2im(cols, input_shape, ...)`` is its adjoint, ``F.fold``. Work out which element of
x each entry of cols is, and write both without a loop over pixels.
""",
        ("Entry (c, i, j) of column (h, w) is x_pad[c, h·s + i·d, w·s + j·d]: fix (i, j) and let h, w run.",
         "For a fixed tap (i, j) that is one strided slice of x_pad: loop over the taps only.",
         "The adjoint adds where im2col copied: windows that overlap add up; crop the padding last.")),
    "conv_loops": Level(
        """Exercise 11 — a convolution as loops (derive level).

Write PyTorch's conv2d (a cross-correlation, one stride and one zero padding for both
axes) with loops over the images, filters and output positions, then ∂L/∂x, ∂L/∂w and
∂L/∂b given ∂L/∂out, each as its own function. Derive each gradient from the forward's
sum by asking which outputs each input element reaches.
""",
        ("out[n, f, i, j] is the window of x_pad at (i·s, j·s) times w[f], summed, plus b[f].",
         "Each output's window of x receives dout · w[f]; each w[f] receives dout times the window.",
         "b[f] is used by every image and every position: its gradient is a sum.")),
    "engine": Level(
        """Exercise 12 — the backward engine (derive level).

Write ``loss.backward()`` yourself on minigrad's recorded graph: ``tensor.grad_fn`` is a
node, ``node.next_functions`` its inputs' nodes (an ``AccumulateGrad`` node, with the leaf
in ``node.variable``, for a leaf), ``call_backward(node, [grad])`` one gradient per input.
Decide in which order the nodes must run, and what a node that receives several
gradients, or a leaf whose ``.grad`` is already set, must do.
""",
        ("A node may run only once every gradient for it has arrived: after every node it feeds.",
         "Depth-first from the root, appending a node after its inputs, gives the reverse of that order.",
         "A tensor used twice receives two gradients: their sum is its gradient (and .grad adds up too).")),
}


def derive_level(name: str, handout: str) -> str:
    """``handout`` (a guided-level file) at the derive level: its statement and its blanks' hints."""
    _, code = split_statement(handout)
    statement = DERIVE[name].statement.rstrip("\n")
    # a blank's hint keeps its label (before the first colon), not the formula after it
    code = _without_formulas(code)
    def blank(match: re.Match) -> str:
        return f"raise NotImplementedError({_label(ast.literal_eval(match.group('hint')))!r})"

    code = re.sub(r"""raise NotImplementedError\((?P<hint>(['"]).*\2)\)$""", blank, code, flags=re.M)
    return f'"""{statement}\n\nHints, one at a time: python -m minigrad.exercises hint {name}\n"""\n\n{code}'


def _label(hint: str) -> str:
    """A blank's hint at the derive level: its label (``grad_input``), never the formula after it."""
    label = hint.split(":")[0].strip()
    plain = ":" in hint and re.fullmatch(r"[\w ,().]+", label) and label.count("(") == label.count(")")
    return label if plain else "write this part"


def _without_formulas(code: str) -> str:
    """``code`` with the docstring of every class and function that holds a blank cut to its
    definition: ``y = x Wᵀ + b;  ∂L/∂x = grad·W, ...`` keeps ``y = x Wᵀ + b``, and one without a
    ``;`` (a helper's recipe, as rot180's) says only where the task is stated."""
    lines = code.splitlines(keepends=True)
    for node in sorted(ast.walk(ast.parse(code)), key=lambda n: -getattr(n, "lineno", 0)):
        if not isinstance(node, (ast.FunctionDef, ast.ClassDef)) or ast.get_docstring(node) is None:
            continue
        if not any(isinstance(n, ast.Raise) for n in ast.walk(node)):
            continue
        first = node.body[0]
        text = ast.get_docstring(node, clean=True) or ""
        head = text.splitlines()[0]
        short = head.split(";")[0].strip() if ";" in head else "What it computes: see the statement above."
        opening = lines[first.lineno - 1]
        indent = opening[:len(opening) - len(opening.lstrip())]
        lines[first.lineno - 1:first.end_lineno] = [f'{indent}"""{short}"""\n']
    return "".join(lines)


def next_hint(name: str, folder: Path) -> str:
    """The next hint of exercise ``name``; the count used is noted in ``folder/.minigrad-hints.json``."""
    hints = DERIVE[name].hints
    path = folder / HINTS_FILE
    used: dict[str, int] = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    shown = min(used.get(name, 0) + 1, len(hints))
    used[name] = shown
    path.write_text(json.dumps(used, indent=1) + "\n", encoding="utf-8")
    lines = [f"hint {i} of {len(hints)}: {hint}" for i, hint in enumerate(hints[:shown], start=1)]
    if shown == len(hints):
        lines.append("(that was the last hint)")
    return "\n".join(lines)
