"""The installed package holds every module of the source tree (pip install . lists packages explicitly)."""
from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_subpackage_is_installed():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    listed = set(config["packages"])
    source = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for init in (ROOT / "tokviz").rglob("__init__.py")
    }
    assert source, "no packages found under tokviz/"
    assert source - listed == set(), "pyproject.toml's [tool.setuptools] packages misses these"
    for name in listed:
        directory = ROOT / config["package-dir"].get(name, name.replace(".", "/"))
        assert directory.is_dir(), f"{name} is listed but {directory} does not exist"
