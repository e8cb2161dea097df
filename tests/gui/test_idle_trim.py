"""While the app is in use, what Python frees goes back to the system within seconds (the app runs on
glibc's allocator, tokviz/launch.py, and the idle clean-up trims its heaps)."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tokviz.launch import APP_ENVIRONMENT, wants_app_environment

SCRIPT = r"""
import sys, time
from PySide6.QtCore import QCoreApplication, QEventLoop, QTimer
from tokviz.gui.platform import tune_allocator
from tokviz.gui.window import idle as idle_module
from tokviz.gui.window.idle import IdleCleanup
TRIM_EVERY_MS = getattr(idle_module, "TRIM_EVERY_MS", 4000)

def rss_mb():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024

def wait(ms):
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()

app = QCoreApplication([])
tune_allocator()
idle = IdleCleanup(lambda: False)
before = rss_mb()
keep = []
garbage = [str(i) * 3 for i in range(3_000_000)]  # (small objects, as a tokenizer's are)
for i in range(0, len(garbage), 1000):
    keep.append(garbage[i])  # (a few survivors among them, as happens in a session)
peak = rss_mb()
del garbage
wait(2 * TRIM_EVERY_MS + 500)
print(before, peak, rss_mb())
"""


@pytest.mark.slow
@pytest.mark.skipif(not wants_app_environment({}), reason="glibc's heaps")
def test_freed_memory_goes_back_to_the_system_while_the_app_runs():
    env = {**os.environ, **APP_ENVIRONMENT, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=120)
    before, peak, after = map(float, done.stdout.split())
    assert peak - before > 150, done.stdout  # (the objects took that much)
    assert after - before < 0.25 * (peak - before), (before, peak, after)
