"""Running leaf tasks and combining their results in a tree on the workers, with progress and cancel."""
from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Sequence

from ..core.streaming import is_cancelled
from ..errors import Cancelled

FAN_IN = 4  # partial results combined per task


def reduce_tree(client, leaves: Sequence, combine: Callable, *, fan_in: int = FAN_IN, key: str = "tokviz-combine"):
    """The future of combine(...) over `leaves` (futures, in order), combining groups of `fan_in`
    adjacent ones level by level on the workers (order kept: combine need only be associative)."""
    run = uuid.uuid4().hex  # (keys unique per run: a reused key would return an older result)
    level = list(leaves)
    depth = 0
    while len(level) > 1:
        depth += 1
        level = [level[i] if len(level[i:i + fan_in]) == 1 else
                 client.submit(combine, *level[i:i + fan_in], key=f"{key}-{depth}-{i}-{run}")
                 for i in range(0, len(level), fan_in)]
    return level[0]


def wait_result(client, root, leaves: Sequence, weights: Sequence[int], *,
                progress: Callable[[int, int], None] | None = None, cancel=None, poll: float = 0.1):
    """The result of `root`, reporting progress(sum of the weights of finished leaves, total) and
    checking cancel (a callable or Event) every `poll` seconds; on cancel the cluster's tasks are
    cancelled and Cancelled raised; a task's error is raised here.  A list of `leaves` is emptied,
    so that finished leaves are let go."""
    total = sum(weights)
    pending = dict(enumerate(leaves))  # leaves not finished yet: the others are let go (their
    done = 0                           # results stay on the workers only until combined)
    if isinstance(leaves, list):
        leaves.clear()
    try:
        while not root.done():
            if is_cancelled(cancel):
                raise Cancelled(f"cancelled after {done:,} of {total:,} bytes")
            for i, f in list(pending.items()):
                if f.status == "error":
                    f.result()  # raises the task's exception
                if f.status == "finished":
                    done += weights[i]
                    del pending[i]
            if progress is not None:
                progress(done, total)
            time.sleep(poll)
        result = root.result()
    except BaseException:
        client.cancel([root, *pending.values()], force=True)
        raise
    if progress is not None:
        progress(total, total)
    return result
