import time, numpy as np
import minitorch_meta as mt, torch
from minitorch_meta.backends.xp_winograd import use_winograd
print("winograd?", use_winograd(64, 16, 32, (1, 5), (1, 1), (1, 1), (1, 996), np.dtype(np.float32)))
x_np = np.random.default_rng(0).standard_normal((64, 16, 1000)).astype(np.float32)
def run(lib, what):
    m = lib.nn.Conv1d(16, 32, 5)
    x = lib.tensor(x_np, requires_grad=True)
    def step():
        y = m(x)
        if what == "fb": y.sum().backward()
    for _ in range(3): step()
    ts = []
    for _ in range(20):
        t = time.perf_counter(); step(); ts.append(time.perf_counter() - t)
    return round(min(ts)*1e3, 1), round(float(np.median(ts))*1e3, 1)
for what in ("f", "fb"):
    for _ in range(2):
        print(what, "ours ", run(mt, what), "torch", run(torch, what))
