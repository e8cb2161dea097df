"""The tokenizer and text tokviz opens on when nothing else is asked for (shipped in resources/)."""
from __future__ import annotations

from importlib import resources
from pathlib import Path

DEFAULT_TOKENIZER = "tokviz-demo.model"
SAMPLE_TEXT = "sample.txt"
PARALLEL_SAMPLE = "parallel"


def resource_path(name: str) -> Path:
    """A file of resources/: installed as the package `tokviz.resources`, or beside the source
    tree when tokviz runs from a checkout."""
    try:
        return Path(str(resources.files("tokviz.resources").joinpath(name)))
    except ModuleNotFoundError:
        return Path(__file__).resolve().parents[1] / "resources" / name


def default_tokenizer_path() -> Path:
    """A byte-level BPE tokenizer that tokviz trained on `training.txt` (see resources/README.md)."""
    return resource_path(DEFAULT_TOKENIZER)


def sample_text_path() -> Path:
    return resource_path(SAMPLE_TEXT)


def parallel_sample_path() -> Path:
    """A folder of parallel text: whatis(1) in 18 languages (see resources/parallel/README.md)."""
    return resource_path(PARALLEL_SAMPLE)


def sample_text() -> str:
    return sample_text_path().read_text(encoding="utf-8")
