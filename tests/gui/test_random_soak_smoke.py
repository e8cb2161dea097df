"""The random-action soak (benchmarks/random_soak.py) in small: a quarter of a minute of seeded random
use of the real window ends with no error, no Python warning, the window's top-level widgets back to
their count and nothing left running; its report and verdict are made."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def random_soak():
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location("tokviz_random_soak", BENCH / "random_soak.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # (its dataclasses look their module up)
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop("tokviz_random_soak", None)
        sys.path.remove(str(BENCH))


@pytest.mark.slow
def test_a_short_random_session_leaves_nothing_behind(qtbot, random_soak):
    result = random_soak.run(0.25, seed=3, base_minutes=0.05, stacks=True, log=lambda _line: None)
    assert result["actions"] >= 20 and len(result["counts"]) >= 5
    assert result["errors"] == []
    assert result["python_warnings"] == {}
    assert result["end"]["top_level_widgets"] <= result["base"]["top_level_widgets"] + random_soak.WIDGETS_SLACK
    report = random_soak.report(result)
    assert "verdict:" in report and f"seed {result['seed']}" in report
