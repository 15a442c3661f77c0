"""The linear-algebra kernels (``qr``, ``inv``, ``solve``, ``cholesky``, ``slogdet``,
``eigh``, ``svd``, ``eig``) over ``xp.linalg``, mixed into ``XpBackend``.

NumPy (LAPACK) and CuPy (cuSOLVER) take stacks of matrices ``(..., m, n)`` in every routine
used here. They report a matrix they cannot factor differently: NumPy raises
``LinAlgError`` for the whole stack, CuPy (unless ``cupyx.errstate(linalg='raise')`` is on)
returns NaN or inf in that matrix's result. ``_factor`` turns both into LAPACK's ``info``
per matrix; it looks for where each failing matrix broke (getrf's rounding in
``xp_singular.py``, ``_first_non_positive_minor``) only after a failure, so the common
path is one call (plus, for ``inv`` and ``solve``, the screen of ``xp_singular.py``).
"""

from __future__ import annotations


class LinalgKernels:
    """``qr``, ``inv``, ``solve``, ``cholesky``, ``slogdet``, ``eigh``, ``svd``, ``eig``."""

    xp = None

    def qr(self, a, mode="reduced"):
        # LAPACK's geqrf/orgqr in NumPy, cuSOLVER in CuPy; both keep float32 as float32.
        if mode == "r":
            return None, self.xp.linalg.qr(a, mode="r")
        return self.xp.linalg.qr(a, mode=mode)

    def inv(self, a):
        # which matrices are singular: as PyTorch's LAPACK decides (xp_singular.py)
        return self._lu_checked(self.xp.linalg.inv, a)

    def solve(self, a, b):
        xp = self.xp
        # Broadcast the batch dims here: NumPy's solve does, CuPy's may not.
        batch = _broadcast(a.shape[:-2], b.shape[:-2])
        a = xp.broadcast_to(a, batch + a.shape[-2:])
        b = xp.broadcast_to(b, batch + b.shape[-2:])
        return self._lu_checked(xp.linalg.solve, a, b)

    def cholesky(self, a):
        return self._factor(self.xp.linalg.cholesky, (a,), a.shape,
                            self._first_non_positive_minor)

    def slogdet(self, a):
        sign, logabsdet = self.xp.linalg.slogdet(a)
        return sign.astype(a.dtype, copy=False), logabsdet.astype(a.dtype, copy=False)

    def eigh(self, a, upper):
        return self.xp.linalg.eigh(a, UPLO="U" if upper else "L")

    def svd(self, a, full_matrices, compute_uv):
        if not compute_uv:
            return None, self.xp.linalg.svd(a, compute_uv=False), None
        return self.xp.linalg.svd(a, full_matrices=full_matrices)

    def eig(self, a, compute_v):
        xp = self.xp
        # NumPy returns real arrays when every eigenvalue is real; both libraries' values
        # are made complex here (complex64 for float32: NumPy computes it in float64)
        dtype = xp.result_type(a.dtype, xp.complex64)
        if a.size == 0:  # NumPy's geev wrapper refuses an empty stack
            return (xp.empty(a.shape[:-1], dtype),
                    xp.empty(a.shape, dtype) if compute_v else None)
        if not hasattr(xp.linalg, "eig"):
            raise NotImplementedError(
                "linalg.eig on CUDA needs CuPy 14 or newer (cupy.linalg.eig, over cuSOLVER's "
                "geev from CUDA 12.6); upgrade CuPy, or move the matrix to the CPU first "
                "(A.cpu())")
        if not compute_v:
            return xp.linalg.eigvals(a).astype(dtype, copy=False), None
        w, v = xp.linalg.eig(a)
        return w.astype(dtype, copy=False), v.astype(dtype, copy=False)

    # -- failures --------------------------------------------------------------------
    def _factor(self, call, arrays, out_shape, first_failure):
        """``call(*arrays)`` and an int32 ``info`` per matrix (see the module docstring).

        ``arrays`` share their batch shape; a failed matrix's result is NaN."""
        xp = self.xp
        a = arrays[0]
        info = xp.zeros(a.shape[:-2], xp.int32)
        if a.size == 0:
            return xp.empty(out_shape, a.dtype), info
        try:
            out = call(*arrays)
        except xp.linalg.LinAlgError:
            out = None
        if out is not None:
            # CuPy's sign of failure; a NaN or inf already in the input is no failure.
            broken = ~xp.isfinite(out).all(axis=(-2, -1)) & xp.isfinite(a).all(axis=(-2, -1))
            if not bool(broken.any()):
                return out, info
            return out, xp.where(broken, first_failure(a), 0).astype(xp.int32)
        return self._factor_one_by_one(call, arrays, out_shape, first_failure)

    def _factor_one_by_one(self, call, arrays, out_shape, first_failure):
        """NumPy's path after a failure: each matrix on its own, to know which failed."""
        xp = self.xp
        batch = arrays[0].shape[:-2]
        flat = [x.reshape((-1,) + x.shape[-2:]) for x in arrays]
        out = xp.full((flat[0].shape[0],) + tuple(out_shape[-2:]), xp.nan, arrays[0].dtype)
        failed = xp.zeros(flat[0].shape[0], bool)
        for k in range(flat[0].shape[0]):
            try:
                out[k] = call(*(x[k] for x in flat))
            except xp.linalg.LinAlgError:
                failed[k] = True
        info = xp.zeros(failed.shape, xp.int32)
        if bool(failed.any()):
            info[failed] = first_failure(flat[0][failed])
        missed = failed & (info == 0)
        if bool(missed.any()):
            if first_failure == self._getrf_info:
                # the library met a zero pivot that MKL's rounding does not (xp_singular.py)
                out[missed] = self._solve_with_lu(*self._as_systems([x[missed] for x in flat]))
            else:  # a failure the search missed (a minor lost to rounding) still counts
                info[missed] = flat[0].shape[-1]
        return out.reshape(out_shape), info.reshape(batch)

    def _as_systems(self, arrays) -> tuple:
        """``(A, B)`` of ``inv``'s ``(A,)`` (``B`` the identity) or ``solve``'s ``(A, B)``."""
        if len(arrays) == 2:
            return tuple(arrays)
        a = arrays[0]
        return a, self.xp.broadcast_to(self.xp.eye(a.shape[-1], dtype=a.dtype), a.shape).copy()

    def _first_non_positive_minor(self, a):
        """potrf's info: the order of the first leading minor of the symmetric matrix held
        in ``a``'s lower triangle that is not positive (Sylvester's criterion), else 0."""
        xp = self.xp
        sym = xp.tril(a) + xp.swapaxes(xp.tril(a, -1), -1, -2)
        info = xp.zeros(a.shape[:-2], xp.int64)
        for k in range(a.shape[-1], 0, -1):
            sign, _ = xp.linalg.slogdet(sym[..., :k, :k])
            info = xp.where(sign <= 0, k, info)
        return info


def _broadcast(a: tuple, b: tuple) -> tuple:
    """Two batch shapes broadcast together (the op's shape rule has checked that they do)."""
    width = max(len(a), len(b))
    a, b = (1,) * (width - len(a)) + a, (1,) * (width - len(b)) + b
    return tuple(y if x == 1 else x for x, y in zip(a, b))
