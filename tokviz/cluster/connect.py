"""Reaching a Dask scheduler, or starting a LocalCluster of worker processes on this machine."""
from __future__ import annotations

import logging
import threading

from ..errors import Cancelled, TokvizError
from ..interrupts import held

INSTALL_HINT = 'Dask distributed is not installed: pip install "tokviz[cluster]"'


def require_distributed():
    """The `distributed` module, or a TokvizError saying how to install it."""
    try:
        import distributed
    except ImportError:
        raise TokvizError(INSTALL_HINT) from None
    return distributed


class Cluster:
    """A Dask client, and the LocalCluster it started if any; close() (or `with`) ends what it started.

    `scheduler`: "tcp://HOST:PORT" of a running scheduler; else `workers` processes are started
    here (one thread each: the tasks are the parallelism).  `timeout`: seconds to reach the
    scheduler before a TokvizError naming it.  `range_bytes`: the size of a task's byte range."""

    def __init__(self, scheduler: str | None = None, workers: int | None = None, *, timeout: float = 5.0,
                 range_bytes: int = 64 << 20):
        distributed = require_distributed()
        self.range_bytes = range_bytes
        if (scheduler is None) == (workers is None):
            raise TokvizError("give either a scheduler address or a number of workers")
        self.local = None
        if scheduler is None:
            if workers < 1:
                raise TokvizError(f"the number of workers must be at least 1, not {workers}")
            # (a task's error is raised here, naming the file: the workers' log of it would repeat it)
            # Made with SIGINT and SIGTERM held: a half-made cluster would outlive an interrupt, and
            # the worker processes keep SIGINT blocked (they are closed from here, not by Ctrl+C).
            # multiprocessing's resource tracker is started first: starting it unblocks SIGINT in
            # the thread that starts it, which would then hand that on to the workers.
            from multiprocessing import resource_tracker

            resource_tracker.ensure_running()
            try:
                with held():
                    self.local = distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                                          dashboard_address=":0", silence_logs=logging.CRITICAL)
                    self.address = self.local.scheduler_address
                    self.client = distributed.Client(self.local)
            except BaseException:
                self.close()
                raise
        else:
            self.address = scheduler
            try:
                self.client = distributed.Client(scheduler, timeout=f"{timeout}s")
            except (OSError, TimeoutError, ValueError) as exc:
                raise TokvizError(f"cannot reach the Dask scheduler at {scheduler} within {timeout:g} s "
                                  f"({type(exc).__name__}: {exc})") from None

    @property
    def dashboard_link(self) -> str | None:
        try:
            return self.client.dashboard_link
        except Exception:  # no dashboard (bokeh not installed)
            return None

    def close(self) -> None:
        client = getattr(self, "client", None)
        if client is not None:
            client.close()
        if self.local is not None:
            self.local.close()

    def __enter__(self) -> "Cluster":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def connect(scheduler: str | None = None, workers: int | None = None, *, cancel=None, poll: float = 0.1,
            **options) -> Cluster:
    """Cluster(scheduler, workers, **options), given up as soon as `cancel` (a callable or an
    Event) says so while connecting or starting workers: Cancelled is raised at once, and the
    cluster, once made, is closed on the thread that was making it."""
    if cancel is None:
        return Cluster(scheduler, workers, **options)
    from ..core.streaming import is_cancelled

    lock = threading.Lock()
    made: dict = {}
    finished = threading.Event()

    def make() -> None:
        try:
            cluster = Cluster(scheduler, workers, **options)
        except BaseException as exc:  # (handed to the caller below)
            made["error"] = exc
        else:
            with lock:
                given_up = made.get("given_up", False)
                made["cluster"] = cluster
            if given_up:
                cluster.close()
        finally:
            finished.set()

    threading.Thread(target=make, name="tokviz-connect", daemon=True).start()
    while not finished.wait(poll):
        if is_cancelled(cancel):
            with lock:
                made["given_up"] = True
                cluster = made.get("cluster")
            if cluster is not None:
                cluster.close()
            raise Cancelled(f"cancelled while {'connecting to ' + scheduler if scheduler else 'starting workers'}")
    if "error" in made:
        raise made["error"]
    return made["cluster"]
