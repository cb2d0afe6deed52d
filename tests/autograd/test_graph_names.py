"""The graph minigrad records is PyTorch's: same node names, same ``next_functions`` (arity, order).

Each case builds one expression on minigrad and on PyTorch from the same numbers, walks both
graphs breadth first from the output's ``grad_fn``, and compares every node's name and the
name and ``output_nr`` of every edge. Cases in ``DIFFERENT`` are where minigrad's graph is
knowingly not PyTorch's (listed with the reason in docs/compatibility.md, "Where minigrad's graph
differs from PyTorch's"): there only the root node must match the name documented.
"""

# ruff: noqa: E731, E501  (the table of cases reads best as one lambda a line)

from __future__ import annotations

import numpy as np
import pytest
from _reference import plain, reference
from _torch import require_torch

import minigrad

# PyTorch's name() of a leaf's node is its C++ name; its repr is ``<AccumulateGrad object ...>``.
_TORCH_LEAF = "torch::autograd::AccumulateGrad"


def walk(out) -> list:
    """``[(name, [(child name or None, output_nr), ...]), ...]`` for every node, breadth first."""
    root = out.grad_fn
    seen, queue, rows = {id(root)}, [root], []
    while queue:
        node = queue.pop(0)
        edges = []
        for child, output_nr in node.next_functions:
            edges.append((None if child is None else child.name().replace(_TORCH_LEAF, "AccumulateGrad"),
                          output_nr))
            if child is not None and id(child) not in seen:
                seen.add(id(child))
                queue.append(child)
        rows.append((node.name().replace(_TORCH_LEAF, "AccumulateGrad"), edges))
    return rows


class _Inputs:
    """Seeded random inputs, the same numbers for both libraries when ``reset`` before each build."""

    def reset(self) -> None:
        self.rng = np.random.default_rng(0)


_inputs = _Inputs()


def rand(lib, *shape, grad=True):
    return lib.tensor(_inputs.rng.standard_normal(shape).astype(np.float32), requires_grad=grad)


def ints(lib, data):
    return lib.tensor(np.array(data, dtype=np.int64))


def with_seed(lib, build):
    """``build(lib)`` after seeding ``lib``: layers initialised from the same seed (the graph is what matters)."""
    lib.manual_seed(0)
    return build(lib)


CASES = {}
CASES["add"] = lambda m: rand(m,3) + rand(m,3)
CASES["add_scalar"] = lambda m: (rand(m,3) * 2) + 1
CASES["rmul"] = lambda m: 2 * rand(m,3)
CASES["radd"] = lambda m: 1 + rand(m,3)
CASES["sub"] = lambda m: rand(m,3) - rand(m,3)
CASES["rsub"] = lambda m: 1 - rand(m,3)
CASES["div"] = lambda m: rand(m,3) / rand(m,3)
CASES["rdiv"] = lambda m: 1 / rand(m,3)
CASES["div_scalar"] = lambda m: rand(m,3) / 2
CASES["pow"] = lambda m: rand(m,3) ** 2
CASES["pow_t"] = lambda m: rand(m,3).abs() ** rand(m,3)
CASES["rpow"] = lambda m: 2 ** rand(m,3)
CASES["neg"] = lambda m: -rand(m,3)
CASES["add_nograd"] = lambda m: rand(m,3) + rand(m,3, grad=False)
CASES["nograd_add"] = lambda m: rand(m,3, grad=False) + rand(m,3)
CASES["mul_bcast"] = lambda m: rand(m,2,3) * rand(m,3)
CASES["exp"] = lambda m: rand(m,3).exp()
CASES["log"] = lambda m: rand(m,3).abs().log()
CASES["sqrt"] = lambda m: rand(m,3).abs().sqrt()
CASES["sin"] = lambda m: rand(m,3).sin()
CASES["cos"] = lambda m: rand(m,3).cos()
CASES["tanh"] = lambda m: rand(m,3).tanh()
CASES["sigmoid"] = lambda m: rand(m,3).sigmoid()
CASES["relu"] = lambda m: rand(m,3).relu()
CASES["F.relu"] = lambda m: m.nn.functional.relu(rand(m,3))
CASES["nn.ReLU"] = lambda m: m.nn.ReLU()(rand(m,3))
CASES["nn.Tanh"] = lambda m: m.nn.Tanh()(rand(m,3))
CASES["nn.Sigmoid"] = lambda m: m.nn.Sigmoid()(rand(m,3))
CASES["leaky_relu"] = lambda m: m.nn.functional.leaky_relu(rand(m,3))
CASES["gelu"] = lambda m: m.nn.functional.gelu(rand(m,3))
CASES["elu"] = lambda m: m.nn.functional.elu(rand(m,3))
CASES["silu"] = lambda m: m.nn.functional.silu(rand(m,3))
CASES["softplus"] = lambda m: m.nn.functional.softplus(rand(m,3))
CASES["abs"] = lambda m: rand(m,3).abs()
CASES["clamp"] = lambda m: rand(m,3).clamp(-0.5, 0.5)
CASES["clamp_min"] = lambda m: rand(m,3).clamp(min=0)
CASES["maximum"] = lambda m: m.maximum(rand(m,3), rand(m,3))
CASES["minimum"] = lambda m: m.minimum(rand(m,3), rand(m,3))
CASES["sum"] = lambda m: rand(m,2,3).sum()
CASES["sum_dim"] = lambda m: rand(m,2,3).sum(1)
CASES["sum_keep"] = lambda m: rand(m,2,3).sum(dim=1, keepdim=True)
CASES["mean"] = lambda m: rand(m,2,3).mean()
CASES["mean_dim"] = lambda m: rand(m,2,3).mean(0)
CASES["var"] = lambda m: rand(m,2,3).var()
CASES["var_dim"] = lambda m: rand(m,2,3).var(1)
CASES["std"] = lambda m: rand(m,2,3).std()
CASES["max"] = lambda m: rand(m,2,3).max()
CASES["max_dim"] = lambda m: rand(m,2,3).max(1)[0]
CASES["min_dim"] = lambda m: rand(m,2,3).min(1).values
CASES["amax"] = lambda m: rand(m,2,3).amax(1)
CASES["prod"] = lambda m: rand(m,2,3).prod()
CASES["norm"] = lambda m: rand(m,2,3).norm()
CASES["logsumexp"] = lambda m: rand(m,2,3).logsumexp(1)
CASES["softmax"] = lambda m: rand(m,2,3).softmax(1)
CASES["F.softmax"] = lambda m: m.nn.functional.softmax(rand(m,2,3), dim=-1)
CASES["log_softmax"] = lambda m: rand(m,2,3).log_softmax(1)
CASES["matmul_2d"] = lambda m: rand(m,2,3) @ rand(m,3,4)
CASES["mm"] = lambda m: rand(m,2,3).mm(rand(m,3,4))
CASES["matmul_mv"] = lambda m: rand(m,2,3) @ rand(m,3)
CASES["matmul_vm"] = lambda m: rand(m,3) @ rand(m,3,4)
CASES["matmul_dot"] = lambda m: rand(m,3) @ rand(m,3)
CASES["matmul_3d"] = lambda m: rand(m,2,2,3) @ rand(m,2,3,4)
CASES["matmul_3d_2d"] = lambda m: rand(m,2,2,3) @ rand(m,3,4)
CASES["matmul_3d_1d"] = lambda m: rand(m, 2, 3, 4) @ rand(m, 4)
CASES["matmul_4d_4d"] = lambda m: rand(m, 2, 2, 3, 4) @ rand(m, 2, 2, 4, 5)
CASES["matmul_4d_2d"] = lambda m: rand(m, 5, 2, 3, 4) @ rand(m, 4, 5)
CASES["matmul_bcast"] = lambda m: rand(m, 2, 1, 3, 4) @ rand(m, 3, 4, 5)
CASES["matmul_2d_3d"] = lambda m: rand(m, 3, 4) @ rand(m, 2, 4, 5)
CASES["matmul_3d_batch1"] = lambda m: rand(m, 2, 3, 4) @ rand(m, 1, 4, 5)
CASES["attention_scores"] = lambda m: (lambda q, k: (q @ k.transpose(-2, -1) * 8 ** -0.5).softmax(-1))(rand(m, 2, 5, 8), rand(m, 2, 5, 8))
CASES["bmm"] = lambda m: m.bmm(rand(m,2,2,3), rand(m,2,3,4))
CASES["t"] = lambda m: rand(m,2,3).t()
CASES["T"] = lambda m: rand(m,2,3).T
CASES["transpose"] = lambda m: rand(m,2,3,4).transpose(0, 2)
CASES["permute"] = lambda m: rand(m,2,3,4).permute(2, 0, 1)
CASES["reshape"] = lambda m: rand(m,2,3).reshape(3, 2)
CASES["view"] = lambda m: rand(m,2,3).view(6)
CASES["reshape_alias"] = lambda m: rand(m, 2, 3, 4).transpose(1, 2).reshape(2, 4, 3)
CASES["view_nc"] = lambda m: rand(m,2,3).t().reshape(6)
CASES["flatten"] = lambda m: rand(m,2,3,4).flatten(1)
CASES["nn.Flatten"] = lambda m: m.nn.Flatten()(rand(m,2,3,4))
CASES["squeeze"] = lambda m: rand(m,2,1,3).squeeze(1)
CASES["squeeze_all"] = lambda m: rand(m,2,1,3).squeeze()
CASES["unsqueeze"] = lambda m: rand(m,2,3).unsqueeze(0)
CASES["expand"] = lambda m: rand(m,1,3).expand(4, 3)
CASES["expand_as"] = lambda m: rand(m,1,3).expand_as(rand(m,4,3, grad=False))
CASES["getitem_int"] = lambda m: rand(m,4,3)[1]
CASES["getitem_slice"] = lambda m: rand(m,4,3)[1:3]
CASES["getitem_slice2"] = lambda m: rand(m,4,3)[:, 1:]
CASES["getitem_none"] = lambda m: rand(m,4,3)[None]
CASES["getitem_int_slice"] = lambda m: rand(m,4,3)[1, 1:]
CASES["getitem_index"] = lambda m: rand(m,4,3)[ints(m,[0,2])]
CASES["getitem_bool"] = lambda m: (lambda x: x[x > 0])(rand(m,4,3))
CASES["getitem_2arr"] = lambda m: rand(m,4,3)[ints(m,[0,2]), ints(m,[1,1])]
CASES["getitem_arange"] = lambda m: rand(m,4,3)[m.arange(4), ints(m,[0,1,2,0])]
CASES["getitem_mixed"] = lambda m: rand(m, 4, 3, 5)[None, 1:3, ..., 2]
CASES["getitem_ellipsis_slice"] = lambda m: rand(m, 4, 3, 5)[..., 1:4]
CASES["getitem_full_slices"] = lambda m: rand(m, 4, 3)[:, :]
CASES["getitem_two_none"] = lambda m: rand(m, 4)[None, :, None]
CASES["cat"] = lambda m: m.cat([rand(m,2,3), rand(m,1,3)])
CASES["stack"] = lambda m: m.stack([rand(m,2,3), rand(m,2,3)])
CASES["where"] = lambda m: (lambda x: m.where(x > 0, x, rand(m,2,3)))(rand(m,2,3))
CASES["where_scalar"] = lambda m: (lambda x: m.where(x > 0, x, 0.0))(rand(m,2,3))
CASES["masked_fill"] = lambda m: (lambda x: x.masked_fill(x > 0, float("-inf")))(rand(m,2,3))
CASES["tril"] = lambda m: rand(m,3,3).tril()
CASES["split"] = lambda m: rand(m,4,3).split(2)[1]
CASES["chunk"] = lambda m: rand(m,4,3).chunk(2)[0]
CASES["unbind"] = lambda m: rand(m,4,3).unbind()[0]
CASES["gather"] = lambda m: rand(m,4,3).gather(1, ints(m,[[0],[1],[2],[0]]))
CASES["clone"] = lambda m: rand(m,3).clone()
CASES["contiguous"] = lambda m: rand(m,2,3).t().contiguous()
CASES["to_double"] = lambda m: rand(m,3).double()
CASES["linear_2d"] = lambda m: m.nn.functional.linear(rand(m,2,3), rand(m,4,3), rand(m,4))
CASES["linear_nobias"] = lambda m: m.nn.functional.linear(rand(m,2,3), rand(m,4,3))
CASES["linear_1d"] = lambda m: m.nn.functional.linear(rand(m,3), rand(m,4,3), rand(m,4))
CASES["linear_1d_nobias"] = lambda m: m.nn.functional.linear(rand(m,3), rand(m,4,3))
CASES["linear_3d"] = lambda m: m.nn.functional.linear(rand(m,2,5,3), rand(m,4,3), rand(m,4))
CASES["linear_3d_nobias"] = lambda m: m.nn.functional.linear(rand(m,2,5,3), rand(m,4,3))
CASES["linear_x_nograd"] = lambda m: m.nn.functional.linear(rand(m,2,3, grad=False), rand(m,4,3), rand(m,4))
CASES["nn.Linear"] = lambda m: with_seed(m, lambda m: m.nn.Linear(3, 4)(rand(m,2,3)))
CASES["mlp"] = lambda m: with_seed(m, lambda m: m.nn.Sequential(m.nn.Linear(3,4), m.nn.ReLU(), m.nn.Linear(4,2))(rand(m,5,3, grad=False)))
CASES["conv2d"] = lambda m: m.nn.functional.conv2d(rand(m,1,2,5,5), rand(m,3,2,3,3), rand(m,3))
CASES["conv2d_nobias"] = lambda m: m.nn.functional.conv2d(rand(m,1,2,5,5), rand(m,3,2,3,3))
CASES["conv2d_unbatched"] = lambda m: m.nn.functional.conv2d(rand(m,2,5,5), rand(m,3,2,3,3), rand(m,3))
CASES["nn.Conv2d"] = lambda m: with_seed(m, lambda m: m.nn.Conv2d(2, 3, 3)(rand(m,1,2,5,5, grad=False)))
CASES["conv1d"] = lambda m: m.nn.functional.conv1d(rand(m,1,2,7), rand(m,3,2,3), rand(m,3))
CASES["conv1d_same_nobias"] = lambda m: m.nn.functional.conv1d(rand(m, 2, 2, 7), rand(m, 3, 2, 3), padding="same")
CASES["nn.Conv1d"] = lambda m: with_seed(m, lambda m: m.nn.Conv1d(2, 3, 3, stride=2)(rand(m, 1, 2, 9, grad=False)))
CASES["conv1d_unbatched"] = lambda m: m.nn.functional.conv1d(rand(m, 2, 7), rand(m, 3, 2, 3), rand(m, 3))
CASES["max_pool2d"] = lambda m: m.nn.functional.max_pool2d(rand(m,1,2,4,4), 2)
CASES["nn.MaxPool2d"] = lambda m: m.nn.MaxPool2d(2)(rand(m,1,2,4,4))
CASES["avg_pool2d"] = lambda m: m.nn.functional.avg_pool2d(rand(m,1,2,4,4), 2)
CASES["max_pool1d"] = lambda m: m.nn.functional.max_pool1d(rand(m,1,2,4), 2)
CASES["avg_pool1d"] = lambda m: m.nn.functional.avg_pool1d(rand(m,1,2,4), 2)
CASES["adaptive_avg_pool2d"] = lambda m: m.nn.functional.adaptive_avg_pool2d(rand(m,1,2,4,4), 1)
CASES["adaptive_avg_pool2d_2"] = lambda m: m.nn.functional.adaptive_avg_pool2d(rand(m, 1, 2, 5, 5), 2)
CASES["batchnorm1d"] = lambda m: with_seed(m, lambda m: m.nn.BatchNorm1d(3)(rand(m,4,3)))
CASES["batchnorm2d"] = lambda m: with_seed(m, lambda m: m.nn.BatchNorm2d(2)(rand(m,2,2,3,3)))
CASES["batchnorm2d_eval"] = lambda m: with_seed(m, lambda m: m.nn.BatchNorm2d(2).eval()(rand(m,2,2,3,3)))
CASES["layernorm"] = lambda m: with_seed(m, lambda m: m.nn.LayerNorm(3)(rand(m,2,3)))
CASES["embedding"] = lambda m: with_seed(m, lambda m: m.nn.Embedding(5, 3)(ints(m,[[0,4],[1,1]])))
CASES["F.embedding"] = lambda m: m.nn.functional.embedding(ints(m,[0,4]), rand(m,5,3))
CASES["dropout"] = lambda m: with_seed(m, lambda m: m.nn.functional.dropout(rand(m,4,3), 0.5))
CASES["nn.Dropout"] = lambda m: with_seed(m, lambda m: m.nn.Dropout(0.5)(rand(m,4,3)))
CASES["cross_entropy"] = lambda m: m.nn.functional.cross_entropy(rand(m,4,3), ints(m,[0,1,2,0]))
CASES["nn.CrossEntropyLoss"] = lambda m: m.nn.CrossEntropyLoss()(rand(m,4,3), ints(m,[0,1,2,0]))
CASES["cross_entropy_sum"] = lambda m: m.nn.functional.cross_entropy(rand(m,4,3), ints(m,[0,1,2,0]), reduction="sum")
CASES["cross_entropy_none"] = lambda m: m.nn.functional.cross_entropy(rand(m,4,3), ints(m,[0,1,2,0]), reduction="none")
CASES["cross_entropy_ls"] = lambda m: m.nn.functional.cross_entropy(rand(m,4,3), ints(m,[0,1,2,0]), label_smoothing=0.1)
CASES["cross_entropy_3d"] = lambda m: m.nn.functional.cross_entropy(rand(m,4,3,2), ints(m,[[0,1],[2,0],[1,1],[0,0]]))
CASES["nll_loss"] = lambda m: m.nn.functional.nll_loss(rand(m,4,3), ints(m,[0,1,2,0]))
CASES["mse_loss"] = lambda m: m.nn.functional.mse_loss(rand(m,4,3), rand(m,4,3))
CASES["nn.MSELoss"] = lambda m: m.nn.MSELoss()(rand(m,4,3), rand(m,4,3, grad=False))
CASES["l1_loss"] = lambda m: m.nn.functional.l1_loss(rand(m,4,3), rand(m,4,3))
CASES["bce"] = lambda m: m.nn.functional.binary_cross_entropy(rand(m,4).sigmoid(), rand(m,4, grad=False).sigmoid())
CASES["bce_logits"] = lambda m: m.nn.functional.binary_cross_entropy_with_logits(rand(m,4), rand(m,4, grad=False).sigmoid())
CASES["smooth_l1"] = lambda m: m.nn.functional.smooth_l1_loss(rand(m,4,3), rand(m,4,3))
CASES["pad"] = lambda m: m.nn.functional.pad(rand(m,1,2,3,3), (1, 1, 1, 1))
CASES["cumsum"] = lambda m: rand(m,4).cumsum(0)
CASES["sort"] = lambda m: rand(m,4).sort()[0]
CASES["topk"] = lambda m: rand(m,4).topk(2)[0]
CASES["normalize"] = lambda m: m.nn.functional.normalize(rand(m,2,3), dim=1)
CASES["cosine_similarity"] = lambda m: m.nn.functional.cosine_similarity(rand(m,2,3), rand(m,2,3))
CASES["einsum"] = lambda m: m.einsum("ij,jk->ik", rand(m,2,3), rand(m,3,4))
CASES["repeat"] = lambda m: rand(m,2,3).repeat(2, 1)
CASES["flip"] = lambda m: rand(m,2,3).flip(0)
CASES["roll"] = lambda m: rand(m,2,3).roll(1, 0)
CASES["narrow"] = lambda m: rand(m,4,3).narrow(0, 1, 2)
CASES["index_select"] = lambda m: rand(m,4,3).index_select(0, ints(m,[0,2]))
CASES["square"] = lambda m: rand(m,3).square()
CASES["rsqrt"] = lambda m: rand(m,3).abs().rsqrt()
CASES["add_inplace"] = lambda m: (lambda y: y.add_(1))(rand(m,3) * 1)
CASES["iadd"] = lambda m: (lambda a, b: (a.__iadd__(b)))(rand(m,3) * 1, rand(m,3))
CASES["relu_inplace"] = lambda m: m.nn.functional.relu(rand(m,3) * 1, inplace=True)
CASES["cnn_flatten"] = lambda m: with_seed(m, lambda m: m.nn.Sequential(m.nn.Conv2d(1, 2, 3), m.nn.ReLU(), m.nn.MaxPool2d(2), m.nn.Flatten(), m.nn.Linear(8, 3))(rand(m, 2, 1, 6, 6, grad=False)))
CASES["detach_chain"] = lambda m: rand(m,3).detach().requires_grad_() * 2

# idioms of course code (makemore, micrograd, a GPT block)
CASES["sel_last"] = lambda m: rand(m,2,3,4)[:, -1, :]
CASES["sel_ellipsis"] = lambda m: rand(m,2,3,4)[..., 0]
CASES["slice_mid"] = lambda m: rand(m,2,3,4)[:, 1:3]
CASES["slice_step"] = lambda m: rand(m,6,3)[::2]
CASES["int_int"] = lambda m: rand(m,4,3)[1, 2]
CASES["none_slice"] = lambda m: rand(m,4,3)[:, None]
CASES["list_index"] = lambda m: rand(m,4,3)[[0, 2]]
CASES["range_index"] = lambda m: rand(m,4,3)[range(4), [0,1,2,0]]
CASES["emb_view"] = lambda m: (lambda table, x: table[x].view(x.shape[0], -1))(rand(m,27,2), ints(m,[[1,2,3],[4,5,6]]))
CASES["max_keep_values"] = lambda m: rand(m,4,3).max(1, keepdim=True).values
CASES["logit_sub_max"] = lambda m: (lambda x: x - x.max(1, keepdim=True).values.detach())(rand(m,4,3))
CASES["counts_norm"] = lambda m: (lambda c: c * c.sum(1, keepdims=True) ** -1)(rand(m,4,3).exp())
CASES["bn_by_hand"] = lambda m: (lambda h: (h - h.mean(0, keepdim=True)) / (h.var(0, keepdim=True, unbiased=True) + 1e-5) ** 0.5)(rand(m,4,3))
CASES["logprobs_pick"] = lambda m: -(rand(m,4,3).log_softmax(1))[range(4), [0,1,2,0]].mean()
CASES["masked_softmax"] = lambda m: (lambda w: w.masked_fill(m.tril(m.ones(3,3)) == 0, float('-inf')).softmax(-1))(rand(m,2,3,3))
CASES["F.gelu_tanh"] = lambda m: m.nn.functional.gelu(rand(m,3), approximate="tanh")
CASES["x_T_matmul"] = lambda m: rand(m,3,2).T @ rand(m,3,4)
CASES["scalar_micrograd"] = lambda m: (lambda a, b: (a * b + b ** 3).relu() * -2)(rand(m,1), rand(m,1))
CASES["std_dim"] = lambda m: rand(m,4,3).std(0)
CASES["min_all"] = lambda m: rand(m,4,3).min()
CASES["abs_sum"] = lambda m: rand(m,4,3).abs().sum()
CASES["cat_dim1"] = lambda m: m.cat([rand(m,2,3), rand(m,2,1)], 1)
CASES["unsqueeze_neg"] = lambda m: rand(m,2,3).unsqueeze(-1)
CASES["flatten_3d"] = lambda m: rand(m,2,3,4).flatten()
CASES["view_minus1"] = lambda m: rand(m,2,3,4).view(-1, 4)
CASES["sigmoid_bce"] = lambda m: m.nn.BCELoss()(rand(m,4).sigmoid(), rand(m,4, grad=False).sigmoid())
CASES["layer_norm_F"] = lambda m: m.nn.functional.layer_norm(rand(m,2,3), (3,))
CASES["layer_norm_noaffine"] = lambda m: m.nn.functional.layer_norm(rand(m,2,3), (3,))
CASES["batchnorm_noaffine"] = lambda m: with_seed(m, lambda m: m.nn.BatchNorm1d(3, affine=False)(rand(m,4,3)))
CASES["softmax_dim0"] = lambda m: m.softmax(rand(m,3,2), 0)
CASES["exp_pow"] = lambda m: rand(m,3).exp().pow(2)
CASES["sub_mean"] = lambda m: (lambda x: x - x.mean())(rand(m,3))
CASES["where_nograd_cond"] = lambda m: m.where(rand(m,3, grad=False) > 0, rand(m,3), rand(m,3, grad=False))
CASES["split_sizes"] = lambda m: rand(m,5,3).split([2, 3])[1]

# Where minigrad's graph is not PyTorch's (docs/compatibility.md, "Where minigrad's graph differs from
# PyTorch's"): the root node's name.
DIFFERENT = {
    "matmul_2d_3d": "BmmBackward0",       # PyTorch transposes and clones around an mm
    "matmul_3d_batch1": "UnsafeViewBackward0",
    "matmul_bcast": "UnsafeViewBackward0",  # copying the broadcast batch: PyTorch adds a CloneBackward0  # PyTorch squeezes the batch of 1 and folds into an mm
    "view_nc": "UnsafeViewBackward0",     # PyTorch also has CloneBackward0 (minigrad copies in one node)
    "cross_entropy_ls": "CrossEntropyBackward0",  # one fused node; PyTorch composes 10 nodes
    "cross_entropy_3d": "NllLossBackward0",  # PyTorch: NllLoss2DBackward0 <- ViewBackward0
    "l1_loss": "L1LossBackward0",         # one node; PyTorch composes Mean <- Abs <- Sub
    "cosine_similarity": "SumBackward1",  # norms clamped in one node; PyTorch clones them
    "einsum": "EinsumBackward0",          # one node; PyTorch permutes, views and calls bmm
}


def _graphs(name: str) -> tuple:
    """minigrad's graph and PyTorch's (recorded, as plain lists: see ``_reference``)."""
    def theirs(torch):
        _inputs.reset()
        return walk(CASES[name](torch))

    theirs_graph = reference(theirs)
    _inputs.reset()
    return plain(walk(CASES[name](minigrad))), theirs_graph


@pytest.mark.parametrize("name", [name for name in CASES if name not in DIFFERENT])
def test_graph_is_pytorchs(name):
    ours, theirs = _graphs(name)
    assert ours == theirs


@pytest.mark.parametrize("name", sorted(DIFFERENT))
def test_documented_difference(name):
    ours, theirs = _graphs(name)
    assert ours != theirs, f"{name} now matches PyTorch: move it out of DIFFERENT and the docs"
    assert ours[0][0] == DIFFERENT[name]


def test_every_case_is_covered():
    assert set(DIFFERENT) <= set(CASES) and len(CASES) >= 150


def test_accumulate_grad_is_reached_through_next_functions_and_holds_the_leaf():
    w = minigrad.randn(3, requires_grad=True)
    out = 2 * w + 1
    (mul, _), (number, _) = out.grad_fn.next_functions
    assert mul.name() == "MulBackward0" and number is None
    leaf = mul.next_functions[0][0]
    assert leaf.variable is w and repr(leaf).startswith("<AccumulateGrad object at ")
    assert repr(out.grad_fn).startswith("<AddBackward0 object at ")


def test_conv1d_in_one_node_still_refuses_a_changed_input():
    """conv1d's node saves height-1 views of its input: they share the input's version counter."""
    x = minigrad.randn(1, 2, 7, requires_grad=True) * 1
    out = minigrad.nn.functional.conv1d(x, minigrad.randn(3, 2, 3, requires_grad=True))
    assert out.grad_fn.name() == "ConvolutionBackward0"
    with minigrad.no_grad():
        x.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


@pytest.mark.parametrize("key", [(1, slice(1, None)), (1, 2), (None, slice(1, 3), Ellipsis, 0)],
                         ids=["int_slice", "int_int", "none_slice_ellipsis_int"])
def test_one_view_per_index_gives_pytorchs_values_gradients_and_in_place_changes(key):
    torch = require_torch()
    array = np.random.default_rng(4).standard_normal((3, 4, 2))
    results = []
    for lib in (minigrad, torch):
        leaf = lib.tensor(array, requires_grad=True)
        base = leaf * 1
        view = base[key]
        view.mul_(3)  # through the chain of views into base
        (base * base).sum().backward()
        results.append((base.detach().numpy().copy(), leaf.grad.numpy()))
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)
    x = minigrad.tensor(array, requires_grad=True)
    assert minigrad.autograd.gradcheck(lambda t: t[key], (x,))
