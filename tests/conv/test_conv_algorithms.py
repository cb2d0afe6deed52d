"""The conv algorithms, at array level: each agrees with PyTorch and with the others, the tuned
im2col driver agrees with the plain default, rot180's pieces do what they say, rot180 / naive
really compute their own way, and the default runs the plain file's functions."""

import inspect
import math
import sys
import warnings

import numpy
import pytest
from _torch import require_torch
from conv_reference import CASE_IDS, CASES, ConvCase, output_grad, torch_conv

from minigrad.ops.conv import algo_im2col, algo_im2col_tuned, algo_naive, algo_rot180, depthwise
from minigrad.ops.conv import im2col as im2col_module
from minigrad.ops.conv.algorithms import ALGORITHMS, DEPTHWISE, algorithm_functions


def _run(module, case, x, weight, grad_out):
    """The algorithm's functions as Conv2dFunction uses them: forward, prepare δ, both gradients."""
    out, saved = module.forward(x, weight, *case.settings)
    delta = module.prepare_grad_output(grad_out, weight.shape, case.stride, case.groups)
    grad_w = module.grad_weight(x, delta, weight.shape, *case.settings, saved=saved)
    grad_x = module.grad_input(delta, weight, x.shape, *case.settings)
    return {"out": out, "x": grad_x, "weight": grad_w}


def _routed(case, itemsize=8):
    """The functions that the default 'im2col' runs for this case (depthwise.py's for depthwise ones)."""
    return algorithm_functions("im2col", case.input_shape, case.weight_shape, case.settings, itemsize)


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
@pytest.mark.parametrize("name", list(ALGORITHMS))
def test_forward_and_both_gradients_match_torch(name, case):
    x, weight, _ = case.arrays(seed=3)
    grad_out = output_grad(case)
    expected = torch_conv(case, x, weight, None, grad_out)
    ours = _run(ALGORITHMS[name], case, x, weight, grad_out)
    for key in ("out", "x", "weight"):
        assert ours[key].shape == expected[key].shape, key
        numpy.testing.assert_allclose(ours[key], expected[key], rtol=1e-10, atol=1e-10, err_msg=key)


@pytest.mark.parametrize("rows_per_band", [1, 2])
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_im2col_in_bands_of_output_rows_matches_torch(case, rows_per_band, monkeypatch):
    """Bands of one row, or of about two (some bands shorter), give PyTorch's values."""
    x, weight, _ = case.arrays(seed=6)
    grad_out = output_grad(case, seed=7)
    n, (h_out, w_out) = x.shape[0], grad_out.shape[2:]
    column_rows = x.shape[1] * weight.shape[2] * weight.shape[3]
    monkeypatch.setattr(algo_im2col_tuned, "BAND_BYTES", rows_per_band * column_rows * w_out * n * x.itemsize)
    bands = algo_im2col_tuned._bands(numpy, h_out, column_rows, w_out, n, x.itemsize)
    assert max(b.stop - b.start for b in bands) <= rows_per_band + 1
    assert len(bands) > 1 or h_out <= 2
    expected = torch_conv(case, x, weight, None, grad_out)
    ours = _run(algo_im2col_tuned, case, x, weight, grad_out)
    for key in ("out", "x", "weight"):
        numpy.testing.assert_allclose(ours[key], expected[key], rtol=1e-10, atol=1e-10, err_msg=key)


@pytest.mark.parametrize(("h_out", "row_bytes", "sizes"), [
    (14, 1 << 20, [3, 3, 3, 3, 2]),         # 14 MiB in 3 MiB bands: 5 bands of at most 3 rows ...
    (10, 384 << 10, [10]),                  # ... 3.75 MiB stays one band
    (3, 64 << 20, [1, 1, 1]),               # a row bigger than a band is a band of its own
    (7, 1 << 10, [7]),
])
def test_bands_cover_the_output_rows_once_in_order(h_out, row_bytes, sizes, monkeypatch):
    monkeypatch.setattr(algo_im2col_tuned, "BAND_BYTES", 3 << 20)
    bands = algo_im2col_tuned._bands(numpy, h_out, column_rows=row_bytes, w_out=1, n=1, itemsize=1)
    assert [r for b in bands for r in range(b.start, b.stop)] == list(range(h_out))
    assert [b.stop - b.start for b in bands] == sizes


@pytest.mark.parametrize("band_bytes, kept", [(3 << 20, True), (1, False)])
def test_im2col_keeps_one_small_band_of_columns_for_grad_weight(band_bytes, kept, monkeypatch):
    """One small band: the forward's columns serve grad_weight. Several: it makes them again. Same dW."""
    monkeypatch.setattr(algo_im2col_tuned, "BAND_BYTES", band_bytes)
    monkeypatch.setattr(algo_im2col_tuned, "KEPT_COLUMNS_BYTES", 3 << 20)
    case = next(c for c in CASES if c.groups == 1 and c.n > 1 and c.size[0] > 3)
    x, weight, _ = case.arrays(seed=8)
    grad_out = output_grad(case, seed=9)
    _, (source, cols) = algo_im2col_tuned.forward(x, weight, *case.settings)
    assert (cols is not None) == kept
    if kept:
        numpy.testing.assert_array_equal(cols, im2col_module.im2col(x, weight.shape[2:], *case.settings[:3]))
    from_cache = algo_im2col_tuned.grad_weight(x, grad_out, weight.shape, *case.settings,
                                               saved=(source, cols))
    from_scratch = algo_im2col_tuned.grad_weight(x, grad_out, weight.shape, *case.settings)
    numpy.testing.assert_allclose(from_cache, from_scratch, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("case", CASES[::3], ids=CASE_IDS[::3])
def test_the_three_algorithms_agree_with_each_other(case):
    x, weight, _ = case.arrays(seed=4)
    grad_out = output_grad(case, seed=5)
    results = {name: _run(module, case, x, weight, grad_out) for name, module in ALGORITHMS.items()}
    for key in ("out", "x", "weight"):
        numpy.testing.assert_allclose(results["rot180"][key], results["im2col"][key], rtol=1e-10, atol=1e-10)
        numpy.testing.assert_allclose(results["naive"][key], results["im2col"][key], rtol=1e-10, atol=1e-10)
        numpy.testing.assert_allclose(results["im2col_tuned"][key], results["im2col"][key], rtol=1e-10,
                                      atol=1e-10)


@pytest.mark.parametrize("name", list(ALGORITHMS))
def test_rows_the_forward_never_saw_get_zero_gradient(name):
    """8 rows, kernel 3, stride 3: windows cover rows 0-5; rows 6 and 7 must get exactly 0."""
    case = ConvCase("uncovered", 1, 2, (8, 8), 2, (3, 3), (3, 3))
    x, weight, _ = case.arrays()
    grad_x = ALGORITHMS[name].grad_input(output_grad(case), weight, x.shape, *case.settings)
    assert grad_x.shape == x.shape
    assert numpy.all(grad_x[:, :, 6:, :] == 0) and numpy.all(grad_x[:, :, :, 6:] == 0)
    assert numpy.all(grad_x[:, :, :6, :6] != 0)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize("name", list(ALGORITHMS))
def test_dtype_is_kept(name, dtype):
    case = ConvCase("small", 1, 2, (4, 4), 2, (3, 3), padding=(1, 1))
    x, weight, _ = (a.astype(dtype) for a in case.arrays())
    result = _run(ALGORITHMS[name], case, x, weight, output_grad(case).astype(dtype))
    assert all(value.dtype == dtype for value in result.values())


# --- rot180's pieces, each against an independent construction -----------------------------------

def test_rotate_kernel_flips_both_axes_and_swaps_channels_per_group():
    torch = require_torch()
    weight = numpy.random.default_rng(0).standard_normal((6, 2, 3, 2))    # 6 out, 4 in, groups 2
    rotated = algo_rot180.rotate_kernel(weight, groups=2)
    assert rotated.shape == (4, 3, 3, 2)                                   # (C_in, C_out/G, kh, kw)
    flipped = torch.flip(torch.tensor(weight), dims=(2, 3)).numpy()
    for g in range(2):
        block = flipped[3 * g:3 * (g + 1)]                                 # (3 out, 2 in, kh, kw)
        numpy.testing.assert_array_equal(rotated[2 * g:2 * (g + 1)], block.transpose(1, 0, 2, 3))
    assert rotated[0, 0, 0, 0] == weight[0, 0, 2, 1]


def test_dilate_and_pad_grad_places_each_delta_stride_apart_inside_a_zero_frame():
    delta = numpy.arange(1.0, 7.0).reshape(1, 1, 2, 3)
    # kernel 3x2, dilation (1, 2): frame of d·(k−1) = 2 rows and 2 columns; padded input 7x9.
    full = algo_rot180.dilate_and_pad_grad(delta, (3, 2), (3, 2), (1, 2), (7, 9))
    assert full.shape == (1, 1, 7 + 2, 9 + 2)
    expected = numpy.zeros((9, 11))
    for h in range(2):
        for w in range(3):
            expected[2 + 3 * h, 2 + 2 * w] = delta[0, 0, h, w]
    numpy.testing.assert_array_equal(full[0, 0], expected)


@pytest.mark.parametrize("case", [CASES[i] for i in (2, 6, 15)], ids=[CASE_IDS[i] for i in (2, 6, 15)])
def test_correlate_is_torch_conv2d_without_padding(case):
    torch = require_torch()
    x, weight, _ = case.arrays()
    expected = torch.nn.functional.conv2d(torch.tensor(x), torch.tensor(weight), None, case.stride, 0,
                                          case.dilation, case.groups).numpy()
    ours = algo_rot180.correlate(x, weight, case.stride, case.dilation, case.groups)
    numpy.testing.assert_allclose(ours, expected, rtol=1e-10, atol=1e-10)


def test_grad_input_is_the_full_correlation_with_the_rotated_kernel():
    """Assemble dx from the three named pieces by hand and compare with PyTorch's dx."""
    torch = require_torch()
    case = CASES[6]
    x, weight, _ = case.arrays()
    grad_out = output_grad(case)
    padded = tuple(case.size[a] + 2 * case.padding[a] for a in (0, 1))
    full = algo_rot180.dilate_and_pad_grad(grad_out, case.stride, case.kernel, case.dilation, padded)
    rotated = algo_rot180.rotate_kernel(weight, case.groups)
    grad_padded = torch.nn.functional.conv2d(torch.tensor(full), torch.tensor(rotated.copy()), None, 1, 0,
                                             case.dilation, case.groups).numpy()
    ph, pw = case.padding
    expected = torch_conv(case, x, weight, None, grad_out)["x"]
    numpy.testing.assert_allclose(grad_padded[:, :, ph:ph + case.size[0], pw:pw + case.size[1]], expected,
                                  rtol=1e-10, atol=1e-10)


# --- rot180 and naive compute their own way ----------------------------------------------------------

class _ForbiddenCallError(AssertionError):
    pass


COLUMN_FUNCTIONS = ("im2col", "col2im", "im2col_rows", "col2im_rows")


@pytest.fixture
def im2col_forbidden(monkeypatch):
    """Make im2col / col2im (whole or by bands of rows) raise, wherever a module could look them up."""
    def refuse(*args, **kwargs):
        raise _ForbiddenCallError("im2col/col2im was called")

    for module in (im2col_module, algo_im2col, algo_im2col_tuned, algo_rot180, algo_naive):
        for name in COLUMN_FUNCTIONS:
            monkeypatch.setattr(module, name, refuse, raising=False)


def _calls_to(functions, run):
    """Names of ``functions`` (original objects, by code) called while ``run()`` executes."""
    codes = {f.__code__: f.__name__ for f in functions}
    seen = set()

    def profiler(frame, event, arg):
        if event == "call" and frame.f_code in codes:
            seen.add(codes[frame.f_code])

    sys.setprofile(profiler)
    try:
        run()
    finally:
        sys.setprofile(None)
    return seen


@pytest.mark.parametrize("name", ["rot180", "naive"])
def test_rot180_and_naive_never_use_im2col_or_col2im(name, im2col_forbidden):
    module = ALGORITHMS[name]
    case = CASES[15]
    x, weight, _ = case.arrays()
    grad_out = output_grad(case)
    expected = torch_conv(case, x, weight, None, grad_out)
    ours = _run(module, case, x, weight, grad_out)   # any patched name would raise here
    numpy.testing.assert_allclose(ours["x"], expected["x"], rtol=1e-10, atol=1e-10)


def test_the_forbidding_fixture_does_stop_the_im2col_algorithm(im2col_forbidden):
    case = CASES[0]
    x, weight, _ = case.arrays()
    for module in (algo_im2col, algo_im2col_tuned):
        with pytest.raises(_ForbiddenCallError):
            module.forward(x, weight, *case.settings)


@pytest.mark.parametrize("name", ["rot180", "naive"])
def test_no_call_reaches_the_original_im2col_code(name):
    """Even a reference saved before any patching would show up here, by its code object."""
    originals = [getattr(im2col_module, name) for name in COLUMN_FUNCTIONS]
    case = CASES[7]
    x, weight, _ = case.arrays()
    grad_out = output_grad(case)
    assert _calls_to(originals, lambda: _run(ALGORITHMS[name], case, x, weight, grad_out)) == set()
    # ... while the im2col algorithm does reach them, so the probe itself works.
    assert _calls_to(originals, lambda: _run(algo_im2col_tuned, case, x, weight, grad_out)) == \
        {"im2col_rows", "col2im_rows"}


def test_im2col_algorithm_sums_taps_directly_for_depthwise_only():
    """Stride-1 depthwise cases skip the column matrix; strided depthwise and 2 channels per group use it."""
    assert [_routed(case) is DEPTHWISE for case in (CASES[8], CASES[16], CASES[6], CASES[15])] == \
        [True, True, False, False]
    originals = [getattr(im2col_module, name) for name in COLUMN_FUNCTIONS]
    uses_columns = {"im2col", "col2im", "im2col_rows", "col2im_rows"}
    for case, expected in ((CASES[8], set()), (CASES[16], set()), (CASES[6], uses_columns),
                           (CASES[15], uses_columns)):
        arrays = case.arrays()[:2] + (output_grad(case),)
        run = lambda c=case, a=arrays: _run(_routed(c), c, *a)  # noqa: E731
        assert _calls_to(originals, run) == expected, case.name


def test_naive_really_loops_once_per_output_value():
    """The naive forward takes one Python step per (n, c_out, h, w): count them with a profiler."""
    case = ConvCase("tiny", 2, 2, (4, 5), 3, (2, 2))
    x, weight, _ = case.arrays()
    steps = []

    def profiler(frame, event, arg):
        if event == "call" and frame.f_code is algo_naive._receptive_field.__code__:
            steps.append(1)

    sys.setprofile(profiler)
    try:
        algo_naive.forward(x, weight, *case.settings)
    finally:
        sys.setprofile(None)
    assert len(steps) == 2 * 3 * 3 * 4


def test_prepare_grad_output_changes_the_layout_not_the_values():
    case = CASES[7]
    grad_out = output_grad(case)
    prepared = _routed(case).prepare_grad_output(grad_out, case.weight_shape, case.stride, case.groups)
    numpy.testing.assert_array_equal(prepared, grad_out)
    assert prepared.transpose(1, 2, 3, 0).flags.c_contiguous        # (C, H, W, N) in memory
    depthwise_case = CASES[8]
    delta = output_grad(depthwise_case)
    prepared = _routed(depthwise_case).prepare_grad_output(delta, depthwise_case.weight_shape,
                                                           depthwise_case.stride, depthwise_case.groups)
    assert prepared is delta


# --- the tuned driver against the plain file ----------------------------------------------------------

def _random_settings(seed):
    """A seeded random valid convolution: groups (depthwise too), stride, padding, dilation, odd sizes."""
    rng = numpy.random.default_rng(seed)
    groups = int(rng.choice([1, 1, 2, 3]))
    c_in = groups * int(rng.integers(1, 3))
    c_out = groups * int(rng.integers(1, 4))
    kernel = tuple(int(k) for k in rng.integers(1, 5, size=2))
    stride = tuple(int(s) for s in rng.choice([1, 1, 2, 3], size=2))
    padding = tuple(int(p) for p in rng.integers(0, 3, size=2))
    dilation = tuple(int(d) for d in rng.choice([1, 1, 2], size=2))
    smallest = [max(1, dilation[a] * (kernel[a] - 1) + 1 - 2 * padding[a]) for a in (0, 1)]
    size = tuple(int(smallest[a] + rng.integers(0, 7)) for a in (0, 1))
    return ConvCase(f"random{seed}", int(rng.choice([1, 2, 5])), c_in, size, c_out, kernel, stride, padding,
                    dilation, groups)


RANDOM_CASES = [_random_settings(seed) for seed in range(40)]
assert any(case.groups == case.c_in > 1 and case.stride == (1, 1) for case in RANDOM_CASES + CASES)


@pytest.mark.parametrize("bands", ["one band", "bands of one row"])
@pytest.mark.parametrize("case", CASES + RANDOM_CASES, ids=CASE_IDS + [c.name for c in RANDOM_CASES])
def test_the_tuned_im2col_computes_what_the_plain_one_does(case, bands, monkeypatch):
    """'im2col_tuned' (bands, kept columns) and the default's depthwise path give the plain file's numbers."""
    if bands == "bands of one row":
        monkeypatch.setattr(algo_im2col_tuned, "BAND_BYTES", 1)
    x, weight, _ = case.arrays(seed=21)
    grad_out = output_grad(case, seed=22)
    plain = _run(algo_im2col, case, x, weight, grad_out)
    tuned = _run(DEPTHWISE if _routed(case) is DEPTHWISE else algo_im2col_tuned, case, x, weight, grad_out)
    for key in ("out", "x", "weight"):
        assert tuned[key].shape == plain[key].shape, key
        numpy.testing.assert_allclose(tuned[key], plain[key], rtol=1e-10, atol=1e-10, err_msg=key)


DEPTHWISE_BLOCKS_CASE = ConvCase("depthwise-5ch-multiplier2", 1, 5, (5, 7), 10, (3, 2),
                                 (1, 1), (1, 2), (2, 1), 5)


@pytest.mark.parametrize("channels_per_block", [1, 2, 5])
def test_depthwise_in_blocks_of_channels_matches_naive_and_torch(channels_per_block, monkeypatch):
    """Copies and products made one channel at a time, two (the last block shorter), or all at once: the same
    numbers as the naive definition and PyTorch, in float64 (batch 1, odd sizes, padding, dilation)."""
    case = DEPTHWISE_BLOCKS_CASE
    assert _routed(case) is DEPTHWISE
    blocks = []
    original = depthwise._by_blocks

    def counted(c, shapes, dtype, xp, work):
        channel_bytes = sum(math.prod(shape) for shape in shapes) * xp.dtype(dtype).itemsize
        monkeypatch.setattr(depthwise, "COLUMN_BLOCK_BYTES", channels_per_block * channel_bytes)
        def each_block(channels, *buffers):
            blocks.append(channels)
            work(channels, *buffers)

        original(c, shapes, dtype, xp, each_block)

    monkeypatch.setattr(depthwise, "_by_blocks", counted)
    monkeypatch.setattr(depthwise, "product_threads", lambda xp: 1)   # one thread: the blocks in order
    x, weight, _ = case.arrays(seed=25)
    grad_out = output_grad(case, seed=26)
    ours = _run(DEPTHWISE, case, x, weight, grad_out)
    naive = _run(algo_naive, case, x, weight, grad_out)
    expected = torch_conv(case, x, weight, None, grad_out)
    starts = list(range(0, case.c_in, channels_per_block))
    assert blocks == 3 * [slice(a, min(a + channels_per_block, case.c_in)) for a in starts]
    for key in ("out", "x", "weight"):
        assert ours[key].dtype == numpy.float64, key
        numpy.testing.assert_allclose(ours[key], naive[key], rtol=1e-10, atol=1e-10, err_msg=key)
        numpy.testing.assert_allclose(ours[key], expected[key], rtol=1e-10, atol=1e-10, err_msg=key)


@pytest.mark.parametrize("padding", [(1, 1), (0, 2)])
def test_depthwise_gradients_with_inf_and_nan_are_pytorchs(padding):
    """The depthwise products also multiply δ's zeros around the rows with x (grad_weight) and the
    frame's zeros with W (grad_input): with inf or NaN there, the plain file's exact sums answer,
    as PyTorch's do (inf stays inf, no NaN from 0 · inf), and NumPy warns of nothing."""
    require_torch()
    case = ConvCase("depthwise-inf", 2, 3, (5, 6), 6, (3, 3), (1, 1), padding, (1, 1), 3)
    assert _routed(case) is DEPTHWISE
    x, weight, _ = case.arrays(seed=28)
    x[0, 0, 2, 0], x[1, 2, 4, 5], x[1, 1, 0, 3] = numpy.inf, -numpy.inf, numpy.nan
    weight[4, 0, 1, 1] = numpy.inf
    grad_out = output_grad(case, seed=29)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours = _run(DEPTHWISE, case, x, weight, grad_out)
    expected = torch_conv(case, x, weight, None, grad_out)
    for key in ("out", "x", "weight"):
        assert numpy.isinf(expected[key]).any(), key        # the case reaches what it is for
        numpy.testing.assert_allclose(ours[key], expected[key], rtol=1e-10, atol=1e-10, err_msg=key)
    finite_weight = numpy.where(numpy.isfinite(weight), weight, 1.0)
    assert numpy.isfinite(depthwise.grad_input(grad_out, finite_weight, x.shape, *case.settings)).all()


def test_depthwise_takes_an_empty_batch():
    """No images: empty outputs and dx, dW all zeros (as the plain file and PyTorch give)."""
    case = ConvCase("depthwise-empty-batch", 0, 4, (5, 5), 8, (3, 3), (1, 1), (1, 1), (1, 1), 4)
    assert _routed(case) is DEPTHWISE
    x, weight, _ = case.arrays(seed=27)
    ours = _run(DEPTHWISE, case, x, weight, output_grad(case))
    plain = _run(algo_im2col, case, x, weight, output_grad(case))
    assert ours["out"].shape == (0, 8, 5, 5) and ours["x"].shape == x.shape
    numpy.testing.assert_array_equal(ours["weight"], numpy.zeros(weight.shape))
    numpy.testing.assert_array_equal(plain["weight"], ours["weight"])


def _depthwise_geometry(seed):
    """A seeded random depthwise case: multipliers 1–3, kernels 1–4, dilations 1–3, paddings 0–4 (also
    wider than the kernel reaches, and unequal), widths that the padding keeps, narrows or widens."""
    rng = numpy.random.default_rng(seed)
    channels, multiplier = int(rng.integers(2, 5)), int(rng.integers(1, 4))
    pairs = rng.integers([1, 1, 1], [5, 4, 5], size=(2, 3)).T          # rows: kernel, dilation, padding
    kernel, dilation, padding = ((int(a), int(b)) for a, b in pairs)
    size = tuple(max(1, dilation[a] * (kernel[a] - 1) + 1 - 2 * padding[a]) + int(rng.integers(0, 6))
                 for a in (0, 1))
    return ConvCase(f"depthwise-random{seed}", int(rng.integers(1, 3)), channels, size, channels * multiplier,
                    kernel, (1, 1), padding, dilation, channels)


DEPTHWISE_RANDOM_CASES = [_depthwise_geometry(seed) for seed in range(120)]
# The grid reaches every kind of row: the image's own width, narrower rows (cropped), wider (zeros after).
assert {numpy.sign(c.dilation[1] * (c.kernel[1] - 1) - 2 * c.padding[1]) for c in DEPTHWISE_RANDOM_CASES} \
    == {-1, 0, 1}


@pytest.mark.parametrize("case", DEPTHWISE_RANDOM_CASES, ids=[c.name for c in DEPTHWISE_RANDOM_CASES])
def test_depthwise_matches_the_plain_file_over_random_geometry(case):
    """depthwise.py's rows (R = max(W_in, W_out)), zeroed wrapped reads and cropped rows give the plain
    file's numbers, float64, for the forward and both gradients, with or without the forward's saved x."""
    assert _routed(case) is DEPTHWISE
    x, weight, _ = case.arrays(seed=30)
    grad_out = output_grad(case, seed=31)
    ours, plain = _run(DEPTHWISE, case, x, weight, grad_out), _run(algo_im2col, case, x, weight, grad_out)
    ours["weight, made again"] = depthwise.grad_weight(x, grad_out, weight.shape, *case.settings)
    plain["weight, made again"] = plain["weight"]
    for key in ours:
        assert ours[key].shape == plain[key].shape, key
        numpy.testing.assert_allclose(ours[key], plain[key], rtol=1e-10, atol=1e-10, err_msg=key)


def test_the_plain_im2col_file_is_one_screen():
    """The default stays at Chainer's proportions (its formulas, no tuning)."""
    source = open(algo_im2col.__file__, encoding="utf-8").read()
    assert len(source.splitlines()) <= 85
    assert "band" not in source.lower().replace("batched", "")
    for formula in ("# Y_g = W_g · cols_g", "# dW_g = δ_g · cols_gᵀ", "# dcols_g = W_gᵀ · δ_g",
                    "# dx = col2im(dcols)"):
        assert source.count(formula) == 1, formula   # each formula one visible line


def test_the_default_keeps_its_columns_for_grad_weight():
    """The forward's columns serve grad_weight; without them (``nn.grad``) it makes them again. Same dW."""
    case = CASES[6]
    x, weight, _ = case.arrays(seed=23)
    grad_out = output_grad(case, seed=24)
    _, saved = algo_im2col.forward(x, weight, *case.settings)
    numpy.testing.assert_array_equal(saved, im2col_module.im2col(x, weight.shape[2:], *case.settings[:3]))
    expected = torch_conv(case, x, weight, None, grad_out)["weight"]
    for kept in (saved, None):
        ours = algo_im2col.grad_weight(x, grad_out, weight.shape, *case.settings, saved=kept)
        numpy.testing.assert_allclose(ours, expected, rtol=1e-10, atol=1e-10)


def test_the_default_hands_large_columns_to_the_bands(monkeypatch):
    """Columns larger than BANDED_FROM_BYTES go to algo_im2col_tuned.py (bands): the layer's numbers
    are PyTorch's all the same, through conv2d's forward and backward; smaller ones stay plain."""
    import minigrad as mg
    from minigrad.ops.conv import algorithms, conv2d

    case = CASES[6]
    size = algorithms.column_bytes(case.input_shape, case.weight_shape, case.settings, 8)
    assert _routed(case) is ALGORITHMS["im2col"]
    monkeypatch.setattr(algorithms, "BANDED_FROM_BYTES", size - 1)
    monkeypatch.setattr(algo_im2col_tuned, "BAND_BYTES", size // 3)   # several bands, columns made again
    assert _routed(case) is ALGORITHMS["im2col_tuned"]
    assert _routed(case, itemsize=4) is ALGORITHMS["im2col"]          # float32: half the bytes
    x, weight, bias = case.arrays(seed=25)
    grad_out = output_grad(case, seed=26)
    leaves = [mg.tensor(a, requires_grad=True) for a in (x, weight, bias)]
    out = conv2d(*leaves, *case.settings)
    out.backward(mg.tensor(grad_out))
    expected = torch_conv(case, x, weight, bias, grad_out)
    for ours, name in [(out, "out"), (leaves[0].grad, "x"), (leaves[1].grad, "weight")]:
        numpy.testing.assert_allclose(ours.detach().numpy(), expected[name], rtol=1e-10, atol=1e-10,
                                      err_msg=name)


def test_the_plain_files_former_name_selects_it():
    from minigrad.ops.conv.algorithms import check_algorithm

    assert check_algorithm("im2col_plain") == "im2col"
    with pytest.raises(ValueError, match="unknown convolution algorithm 'im2col_fast'"):
        check_algorithm("im2col_fast")


def test_the_default_algorithm_is_the_plain_files_functions():
    """'im2col' (what nn.Conv2d runs) maps, statically, to algo_im2col.py's own functions."""
    from minigrad.ops.conv.algorithms import get_conv_algorithm

    assert get_conv_algorithm() == "im2col"
    assert ALGORITHMS["im2col"] == (algo_im2col.forward, algo_im2col.prepare_grad_output,
                                    algo_im2col.grad_weight, algo_im2col.grad_input)
    assert _routed(CASES[6]) is ALGORITHMS["im2col"]


def test_a_default_conv2d_step_executes_the_plain_files_conv_functions():
    """Under a profiler, a default nn.Conv2d forward and backward (create_graph or not) calls the
    conv maths in algo_im2col.py and im2col.py only: nothing of the tuned driver, rot180 or naive."""
    import minigrad as mg

    conv_folder = algo_im2col.__file__.rsplit("algo_im2col.py", 1)[0]
    executed = set()

    def profiler(frame, event, arg):
        if event == "call" and frame.f_code.co_filename.startswith(conv_folder):
            executed.add((frame.f_code.co_filename[len(conv_folder):], frame.f_code.co_name))

    layer = mg.nn.Conv2d(3, 4, 3, padding=1)
    x = mg.randn(2, 3, 6, 5, requires_grad=True)
    sys.setprofile(profiler)
    try:
        layer(x).square().sum().backward()
    finally:
        sys.setprofile(None)
    maths = {(file, name) for file, name in executed if file.startswith(("algo_", "im2col", "depthwise"))}
    assert {("algo_im2col.py", name) for name in ("forward", "prepare_grad_output", "grad_weight",
                                                  "grad_input")} <= maths
    assert {file for file, _ in maths} == {"algo_im2col.py", "im2col.py"}
    assert x.grad is not None and layer.weight.grad is not None


# --- one interface, and a reading path ---------------------------------------------------------------

def _parameters(function):
    return list(inspect.signature(function).parameters)


MODULES = {"im2col": algo_im2col, "im2col_tuned": algo_im2col_tuned, "rot180": algo_rot180,
           "naive": algo_naive, "depthwise": depthwise}


@pytest.mark.parametrize("name", list(MODULES))
def test_every_algorithm_module_has_the_same_four_functions(name):
    """The interface algorithms.py documents, parameter for parameter (no optional extras, no hasattr),
    and ALGORITHMS lists each file's own functions."""
    module = MODULES[name]
    settings = ["stride", "padding", "dilation", "groups"]
    assert _parameters(module.forward) == ["x", "weight", *settings]
    assert _parameters(module.prepare_grad_output) == ["grad_out", "weight_shape", "stride", "groups"]
    assert _parameters(module.grad_weight) == ["x", "grad_out", "weight_shape", *settings, "saved"]
    assert _parameters(module.grad_input) == ["grad_out", "weight", "input_shape", *settings]
    functions = DEPTHWISE if name == "depthwise" else ALGORITHMS[name]
    assert functions == (module.forward, module.prepare_grad_output, module.grad_weight, module.grad_input)


def test_the_backward_names_its_formulas_and_the_files_that_compute_them():
    from minigrad.ops.conv.functional import Conv2dFunction

    doc = Conv2dFunction.backward.__doc__
    for piece in ("dx = col2im(Wᵀ · δ)", "dW = δ · colsᵀ", "db = Σ_{n,h,w} δ", "algo_im2col.py"):
        assert piece in doc, piece
    first_line = algo_im2col_tuned.__doc__.splitlines()[0]
    assert "algo_im2col.py" in first_line and "read that file first" in first_line.lower()
    assert "BANDED_FROM_BYTES" in algo_im2col_tuned.__doc__   # which layers the default hands it
    assert "docs/performance.md" in algo_im2col_tuned.__doc__
    assert "default" in algo_im2col.__doc__.splitlines()[0]
