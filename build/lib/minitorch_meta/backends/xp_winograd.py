"""Winograd convolution (Lavin & Gray's F(m x m', r x r')), written once over ``self.xp``.

A mixin of ``XpBackend`` beside ``ConvKernels``: it uses ``self.xp``, ``self._as_strided``
and the im2col kernels' ``_padded_nhwc`` and ``_add_patches`` and, like every shared kernel,
never names ``numpy`` (a test enforces it).

Why: a stride-1 convolution with many channels spends its time in im2col GEMMs that
multiply ``KH * KW * C * O`` products per output pixel. Winograd's minimal filtering cuts
each 8 x 8 input tile, for a block of ``m x m'`` outputs (``m = 8 - KH + 1``), to 64
products per (input channel, filter) pair: for 5 x 5 kernels 64 instead of 400. The rest
is three small linear maps (input, filter and output transforms), each one GEMM here.
Measured on the lecture net's second layer (32 -> 64 channels, 5 x 5, batch 256), with
OpenBLAS's AVX2 kernels: forward 1.3 ms against 3.1 with im2col, backward 2.4 against 5.2.

Numerics: exact in exact arithmetic; in float32 the transforms' rounding gives errors of
about 1e-5 of the output's largest value (im2col: about 5e-7), as with the Winograd
kernels of cuDNN and NNPACK. So it is chosen only where it clearly pays
(``use_winograd``), and only for float32 and float64 (float64 errors are about 1e-14).

Layout: the tiles are gathered *frequency-major*, ``(64, tiles * N, C)``, so that each
transform is a single GEMM over all tiles and the 64 per-frequency products are one batched
GEMM, ``(tiles * N, C) @ (C, O)`` each.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from typing import NamedTuple

from .chunking import samples_per_chunk

# The input tile's side: 8 interpolation points (7 finite and infinity), the largest set
# whose transforms stay accurate in float32 (cuDNN and NNPACK use the same for F(6, 3)).
TILE = 8
POINTS = (0, 1, -1, 2, -2, Fraction(1, 2), Fraction(-1, 2))
# Winograd is used when im2col would multiply at least this many times as many products
# (the transforms counted in). Measured with OpenBLAS's AVX2 kernels, forward + backward,
# predicted saving -> time against im2col: lecture net's second layer (32 -> 64, 5x5)
# 2.2-2.4 -> 0.48-0.68; 16 -> 32 (5x5) 1.55 -> 0.67; 64 -> 64 (3x3) 1.19 -> 0.81;
# 32 -> 32 (3x3) 0.74 -> 1.13; LeNet's second layer (6 -> 16) 0.57 -> 1.89. The break-even
# lies near 0.9; this keeps a margin.
MIN_PRODUCT_SAVING = 1.25
# Inference makes its tiles this many bytes of samples at a time (as im2col's inference
# does), so that a large input needs no whole-batch temporaries.
CHUNK_BYTES = 4 * 2**20


class WinogradSaved(NamedTuple):
    """What the Winograd forward keeps for backward."""

    v: object            # (64, tiles * N, C): the transformed input tiles
    u: object            # (64, C, O): the transformed filters
    x_shape: tuple       # (N, C, H, W)
    padded_shape: tuple  # (N, H', W', C): the zero-padded channels-last input, whole tiles
    w_shape: tuple       # (O, C, KH, KW)
    padding: tuple       # (top, bottom, left, right)
    out_hw: tuple        # (OH, OW)


def use_winograd(batch, in_channels, out_channels, kernel, stride, dilation, out_hw,
                 dtype) -> bool:
    """Whether ``conv2d`` should take the Winograd path for this convolution.

    Only stride 1 without dilation, kernels of 2 to 7 taps a side, float32 or float64, and
    only when im2col would multiply at least ``MIN_PRODUCT_SAVING`` times as many products
    as Winograd (its transforms, and the filters' transform once per call, counted in).
    """
    (KH, KW), (OH, OW) = kernel, out_hw
    if tuple(stride) != (1, 1) or tuple(dilation) != (1, 1):
        return False
    if not (2 <= KH < TILE and 2 <= KW < TILE) or dtype.kind != "f" or dtype.itemsize < 4:
        return False
    C, O = in_channels, out_channels
    (mh, mw), (TH, TW) = _tiling(kernel, out_hw)
    tiles = batch * TH * TW
    frequencies = TILE * TILE
    winograd = (tiles * (frequencies * frequencies * C + frequencies * C * O
                         + frequencies * mh * mw * O)
                + frequencies * KH * KW * C * O)
    im2col = batch * OH * OW * KH * KW * C * O
    return im2col >= MIN_PRODUCT_SAVING * winograd


@cache
def toom_cook(outputs: int, taps: int):
    """The 1-D transforms of F(outputs, taps) on ``TILE`` points, as exact rationals.

    Returns ``(AT, G, BT)``, shaped (outputs, TILE), (TILE, taps) and (TILE, TILE), such
    that for a tile ``d`` of TILE inputs and a filter ``g`` of ``taps`` values,
    ``AT @ ((G @ g) * (BT @ d))`` is the correlation ``y[i] = sum_k d[i + k] * g[k]``.
    Row ``i < TILE - 1`` of ``BT`` holds the coefficients of ``prod_{l != i} (x - p_l)``,
    ``G`` evaluates the filter at the points (scaled by that product's value at ``p_i``),
    ``AT`` evaluates the output's polynomial; the last row or column is the point at infinity.
    """
    if outputs + taps - 1 != TILE:
        raise ValueError(f"toom_cook: outputs + taps - 1 must be {TILE}, got "
                         f"{outputs} + {taps} - 1")
    points = [Fraction(p) for p in POINTS]
    finite = len(points)
    at = [[p ** j for p in points] + [Fraction(int(j == outputs - 1))] for j in range(outputs)]
    g = []
    for i, p in enumerate(points):
        scale = _product(p - q for k, q in enumerate(points) if k != i)
        g.append([p ** k / scale for k in range(taps)])
    g.append([Fraction(int(k == taps - 1)) for k in range(taps)])
    bt = [_polynomial(q for k, q in enumerate(points) if k != i) + [Fraction(0)]
          for i in range(finite)]
    bt.append(_polynomial(points))
    return at, g, bt


def _product(values) -> Fraction:
    result = Fraction(1)
    for v in values:
        result *= v
    return result


def _polynomial(roots) -> list:
    """Coefficients, lowest degree first, of ``prod (x - root)``."""
    coefficients = [Fraction(1)]
    for root in roots:
        # times x (shifted up one degree), minus root times itself
        coefficients = [shifted - root * same
                        for shifted, same in zip([Fraction(0)] + coefficients, coefficients + [0])]
    return coefficients


class WinogradKernels:
    """``_winograd_conv2d`` and ``_winograd_backward``, channels-last like im2col's."""

    def _winograd_conv2d(self, x, w, b, padding, out_hw, for_backward):
        """Cross-correlation of ``x`` (N, C, H, W) with ``w`` (O, C, KH, KW), stride 1.

        Returns the output as an NCHW-shaped view of NHWC storage (as ``conv2d`` does) and,
        when ``for_backward``, a ``WinogradSaved``. Without backward (inference) the tiles
        are made ``CHUNK_BYTES`` of samples at a time, so large inputs need no whole-batch
        temporaries.
        """
        xp = self.xp
        N, C = x.shape[:2]
        O, _, KH, KW = w.shape
        OH, OW = out_hw
        (mh, mw), (TH, TW) = _tiling((KH, KW), out_hw)
        top, bottom, left, right = padding
        # Zero rows and columns past the input, so the last tiles are whole.
        x_nhwc = self._padded_nhwc(x, (top, bottom + TH * mh - OH, left, right + TW * mw - OW))
        maps = self._winograd_maps(KH, KW, x.dtype)
        taps = w.transpose(2, 3, 1, 0).reshape(KH * KW, C * O)
        u = xp.matmul(maps[1], taps).reshape(TILE * TILE, C, O)
        y = xp.empty((N, TH, mh, TW, mw, O), x.dtype)
        if for_backward:
            v = self._winograd_tiles(x_nhwc, u, maps, y)
        else:
            step = samples_per_chunk(TILE * TILE * TH * TW * C * x.itemsize, CHUNK_BYTES)
            for start in range(0, N, step):
                self._winograd_tiles(x_nhwc[start:start + step], u, maps, y[start:start + step])
        y = y.reshape(N, TH * mh, TW * mw, O)
        if (TH * mh, TW * mw) != (OH, OW):
            y = xp.ascontiguousarray(y[:, :OH, :OW])
        if b is not None:
            y += b
        saved = None
        if for_backward:
            saved = WinogradSaved(v, u, x.shape, x_nhwc.shape, w.shape, padding, out_hw)
        return y.transpose(0, 3, 1, 2), saved

    def _winograd_tiles(self, x_nhwc, u, maps, out):
        """Fill ``out`` (N, TH, mh, TW, mw, O) from the padded channels-last ``x_nhwc``;
        returns the transformed input tiles, (64, tiles * N, C)."""
        xp = self.xp
        input_map, _, output_map = maps
        N, TH, mh, TW, mw, O = out.shape
        C = x_nhwc.shape[3]
        sN, sH, sW, sC = x_nhwc.strides
        windows = self._as_strided(x_nhwc, shape=(TILE, TILE, TH, TW, N, C),
                                   strides=(sH, sW, sH * mh, sW * mw, sN, sC))
        tiles = xp.empty(windows.shape, x_nhwc.dtype)
        tiles[...] = windows  # frequency-major: one GEMM transforms every tile
        v = xp.matmul(input_map, tiles.reshape(TILE * TILE, -1))
        v = v.reshape(TILE * TILE, TH * TW * N, C)
        products = xp.matmul(v, u)  # (64, tiles * N, O): one small GEMM per frequency
        blocks = xp.matmul(output_map, products.reshape(TILE * TILE, -1))
        out[...] = blocks.reshape(mh, mw, TH, TW, N, O).transpose(4, 2, 0, 3, 1, 5)
        return v

    def _winograd_backward(self, gy, saved, needs_input_grad):
        """Gradients of the input, weight and bias: the transposes of the forward's maps."""
        xp = self.xp
        N, C, H, W = saved.x_shape
        O, _, KH, KW = saved.w_shape
        OH, OW = saved.out_hw
        (mh, mw), (TH, TW) = _tiling((KH, KW), saved.out_hw)
        input_map, filter_map, output_map = self._winograd_maps(KH, KW, gy.dtype)
        gy_nhwc = gy.transpose(0, 2, 3, 1)
        whole = gy_nhwc
        if (TH * mh, TW * mw) != (OH, OW):  # outputs past the edge get zero gradient
            whole = xp.zeros((N, TH * mh, TW * mw, O), gy.dtype)
            whole[:, :OH, :OW] = gy_nhwc
        blocks = xp.empty((mh, mw, TH, TW, N, O), gy.dtype)
        blocks[...] = whole.reshape(N, TH, mh, TW, mw, O).transpose(2, 4, 1, 3, 0, 5)
        products = xp.matmul(output_map.T, blocks.reshape(mh * mw, -1))
        products = products.reshape(TILE * TILE, TH * TW * N, O)
        gx = gw = gb = None
        if needs_input_grad[1]:
            gu = xp.matmul(saved.v.transpose(0, 2, 1), products)  # (64, C, O)
            taps = xp.matmul(filter_map.T, gu.reshape(TILE * TILE, C * O))
            gw = xp.ascontiguousarray(taps.reshape(KH, KW, C, O).transpose(3, 2, 0, 1))
        if len(needs_input_grad) > 2 and needs_input_grad[2]:
            gb = gy_nhwc.reshape(N * OH * OW, O).sum(axis=0)
        if needs_input_grad[0]:
            gv = xp.matmul(products, saved.u.transpose(0, 2, 1))  # (64, tiles * N, C)
            tiles = xp.matmul(input_map.T, gv.reshape(TILE * TILE, -1))
            tiles = tiles.reshape(TILE, TILE, TH, TW, N, C).transpose(4, 2, 3, 0, 1, 5)
            gx_pad = xp.zeros(saved.padded_shape, gy.dtype)
            # Neighbouring tiles overlap by KH - 1 rows and KW - 1 columns: each tile is a
            # patch of ``mw`` outputs spanning TILE columns, its rows ``mh`` apart.
            self._add_patches(gx_pad, tiles, mw, (mh, 1), (1, 1))
            top, _, left, _ = saved.padding
            gx = gx_pad[:, top:top + H, left:left + W, :].transpose(0, 3, 1, 2)
        return gx, gw, gb

    def _winograd_maps(self, KH, KW, dtype):
        """The 2-D transforms as matrices on row-major 8 x 8 tiles: input (64, 64), filter
        (64, KH*KW) and output (mh*mw, 64), Kronecker products of the 1-D ones.

        Built once per kernel size and dtype on each backend (so on CUDA they live on the
        backend's device) and reused: building them took about 0.1 ms a call, 4 % of the
        lecture net's step at batch 64. The kernels only read them.
        """
        key = (KH, KW, dtype)
        maps = self._winograd_map_cache.get(key)
        if maps is None:
            maps = self._winograd_map_cache[key] = self._build_winograd_maps(KH, KW, dtype)
        return maps

    def _build_winograd_maps(self, KH, KW, dtype):
        xp = self.xp
        at_h, g_h, bt = toom_cook(TILE - KH + 1, KH)
        at_w, g_w, _ = toom_cook(TILE - KW + 1, KW)

        def matrix(rows):
            return xp.asarray([[float(v) for v in row] for row in rows], dtype=dtype)

        bt = matrix(bt)
        return (xp.kron(bt, bt), xp.kron(matrix(g_h), matrix(g_w)),
                xp.kron(matrix(at_h), matrix(at_w)))


def _tiling(kernel, out_hw):
    """Outputs per tile ``(mh, mw)`` and tiles per image ``(TH, TW)``."""
    KH, KW = kernel
    mh, mw = TILE - KH + 1, TILE - KW + 1
    return (mh, mw), (-(-out_hw[0] // mh), -(-out_hw[1] // mw))
