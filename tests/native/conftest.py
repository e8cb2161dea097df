"""The native tests skip, saying why, when the C extension is not built."""
from __future__ import annotations

import pytest

import tokviz.native


@pytest.fixture(autouse=True)
def _need_native():
    if not tokviz.native.available:
        pytest.skip(f"native encoder not available: {tokviz.native.reason}")
