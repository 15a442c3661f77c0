"""Rank 1 raises while rank 0 waits in a collective: the job must stop, not hang.

usage: python failing_rank.py
"""


import minitorch_meta as mt
import minitorch_meta.distributed as dist

dist.init()
if dist.get_rank() == 1:
    raise RuntimeError("boom on rank 1")
tensor = mt.ones(3)
dist.all_reduce(tensor)  # rank 0 would wait here forever without the abort
print("rank 0 was not stopped", flush=True)
