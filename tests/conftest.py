"""Shared pytest set-up: Qt renders offscreen unless the caller chose a platform, and the app's
settings (recent files, window layout) go to a scratch file, never to the user's own; and the
first_cases marker (pyproject.toml lists the markers)."""
import os
import tempfile

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["TOKVIZ_SETTINGS"] = os.path.join(tempfile.mkdtemp(prefix="tokviz-tests-"), "settings.ini")


@pytest.hookimpl(tryfirst=True)  # (before -m deselects by marker)
def pytest_collection_modifyitems(config, items):
    """@pytest.mark.first_cases(k) on a parametrized test: its first k cases (of those not marked
    slow already) run by default, the others are marked slow (`-m slow` runs them; CI does)."""
    seen: dict = {}
    for item in items:
        marker = item.get_closest_marker("first_cases")
        if marker is None or item.get_closest_marker("slow") is not None:
            continue
        key = (item.path, item.cls, getattr(item, "originalname", item.name))
        seen[key] = seen.get(key, 0) + 1
        if seen[key] > marker.args[0]:
            item.add_marker(pytest.mark.slow)
