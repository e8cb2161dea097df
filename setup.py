"""Builds tokviz's optional C extension (tokviz._native); the metadata lives in pyproject.toml.

The extension is optional: when no C compiler is available (or the build fails for any other
reason) the install goes on without it, prints why, and tokviz runs on its pure-Python path.
`python3 -c "import tokviz.native as n; print(n.available, n.reason)"` tells which path is in use.
"""
from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class OptionalBuildExt(build_ext):
    """build_ext that warns instead of failing: the extension only makes tokviz faster."""

    failed = False

    def run(self):
        tables = unidata_tables_for_this_python(Path(self.build_temp))
        made = [str(h) for folder in tables for h in sorted(Path(folder).glob("*.h"))]
        for ext in self.extensions:
            if UNIDATA in ext.include_dirs:
                ext.include_dirs = tables + ext.include_dirs
                ext.depends = ext.depends + made  # (a table made again and changed rebuilds the module)
        try:
            super().run()
        except Exception as exc:  # no compiler at all (distutils raises its own error classes)
            if not self.failed:  # (otherwise: the in-place copy of what was not built; already said)
                self._warn(exc)
            return
        if not self.inplace:
            self._copy_into_source_tree()

    def _copy_into_source_tree(self):
        """Also put the built module beside the sources (as `build_ext --inplace` and editable
        installs do): `python3 -m pytest` run from a checkout imports tokviz from the checkout, and
        must find the extension that `pip install .` just built."""
        for ext in self.extensions:
            built = Path(self.get_ext_fullpath(ext.name))
            target = Path(__file__).resolve().parent / self.get_ext_filename(ext.name)
            if built.exists() and target.parent.is_dir():
                # A copy beside the target, then a rename: overwriting a module in place would
                # corrupt it for a process that has it loaded (and leave half a file on failure).
                partial = target.with_name(target.name + ".partial")
                try:
                    shutil.copyfile(built, partial)
                    os.replace(partial, target)
                except OSError as exc:
                    print(f"note: could not copy {built.name} into the source tree: {exc}", file=sys.stderr)

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as exc:
            self._warn(exc)

    def _warn(self, exc: Exception) -> None:
        self.failed = True
        bar = "*" * 78
        print(
            f"\n{bar}\nWARNING: tokviz's C extension could not be built ({exc}).\n"
            "tokviz will work on its pure-Python path, only slower. Install a C compiler and the\n"
            f"Python headers (Debian/Ubuntu: apt-get install build-essential python3-dev) and reinstall.\n{bar}\n",
            file=sys.stderr,
        )


SRC = "tokviz/native/src"
UNIDATA = f"{SRC}/unidata"  # tables generated from unicodedata: committed for the oldest supported Python
COMPILE = ["-O3", "-std=gnu11", "-Wall", "-Wno-unused-function"]


def unidata_tables_for_this_python(build_temp: Path) -> list[str]:
    """Include folders to search before UNIDATA (tokviz/native/unidata_build.py, loaded by path)."""
    import importlib.util

    here = Path(__file__).resolve().parent
    spec = importlib.util.spec_from_file_location("unidata_build", here / "tokviz" / "native" / "unidata_build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.tables_for_this_python(here / UNIDATA, build_temp)


def native_module(name: str, sources: list[str], depends: list[str] = ()) -> Extension:
    """One of tokviz's C modules (tokviz.<name>), built from tokviz/native/src; each is optional
    on its own: one that fails to build leaves the others, and tokviz falls back to Python for it."""
    return Extension(
        f"tokviz.{name}",
        sources=[f"{SRC}/{s}" for s in sources],
        depends=[f"{SRC}/{d}" for d in depends],
        include_dirs=[SRC, UNIDATA],
        extra_compile_args=COMPILE,
        extra_link_args=["-pthread"],
    )


modules = [
    # encoders: byte-level BPE (with the pre-tokenizer scanners), WordPiece, HF Unigram, .model reading
    native_module("_native", ["_native.c", "sp_pieces.c", "models.c", "bert_pre.c", "bytelevel_tables.c", "text_checks.c", "char_atoms.c", "id_ints.c"],
                  ["scan.h", "scan_bits.h", "text_checks.h", "unicode_tables.h", "unidata/nfc_tables.h", "sp_pieces.h", "bytelevel_tables.h",
                   "models.h", "models_common.h",
                   "bert_pre.h", "unidata/bert_tables.h", "piece_cache.h", "batch.h", "char_atoms.h", "id_ints.h"]),
    # the Unigram trainer's core: seeds, EM over the lattices, pruning (tokviz/train/unigram.py)
    native_module("_unigramtrain", ["unigram_train.c"]),
    # BPE training core: piece counting on threads, incremental merge learning
    native_module("_bpetrain", ["bpe_train.c"], ["scan.h", "unicode_tables.h"]),
    # sentencepiece .model encoding end to end: normalizer, Unigram / BPE, byte fallback
    native_module("_spnative", ["sp_native.c", "id_ints.c"], ["models_common.h", "piece_cache.h", "batch.h", "id_ints.h"]),
    # "".join of a big file's pieces without holding the GIL (core/token_array.py)
    native_module("_textjoin", ["text_join.c"]),
    # worker threads that pause while the UI thread is busy (gui/ui_gate.py)
    native_module("_uigate", ["ui_gate.c"]),
]

setup(ext_modules=modules, cmdclass={"build_ext": OptionalBuildExt})
