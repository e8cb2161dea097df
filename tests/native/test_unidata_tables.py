"""The C tables made from `unicodedata` match the running Python's Unicode version (setup.py makes
them again at build time where the committed ones are for another version)."""
from __future__ import annotations

import importlib.util
import unicodedata
from pathlib import Path

import pytest

import tokviz.native as native_glue
from tokviz.core.normalizers import UnicodeForm

_native = pytest.importorskip("tokviz._native")

NATIVE = Path(native_glue.__file__).parent
spec = importlib.util.spec_from_file_location("unidata_build", NATIVE / "unidata_build.py")
unidata_build = importlib.util.module_from_spec(spec)
spec.loader.exec_module(unidata_build)


def test_the_built_tables_are_for_this_pythons_unicode():
    """Otherwise the normal-form quick check and the BERT fast path are off (pure Python: on
    Python 3.12 with 14.0 tables, BERT tokenizer.json files encoded at 0.5 MB/s instead of 50)."""
    assert _native.NORM_UNICODE_VERSION == unicodedata.unidata_version
    assert _native.BERT_UNICODE_VERSION == unicodedata.unidata_version
    assert native_glue.quick_check_form(UnicodeForm("NFC")) == native_glue.NORMAL_FORMS["NFC"]


def test_committed_tables_for_this_version_need_no_build_step(tmp_path):
    committed = NATIVE / "src" / "unidata"
    versions = {unidata_build.recorded_version(committed / h, m) for h, _, m in unidata_build.TABLES}
    if versions != {unicodedata.unidata_version}:
        pytest.skip(f"the committed tables are for Unicode {versions}")
    assert unidata_build.tables_for_this_python(committed, tmp_path) == []
    assert not any(tmp_path.iterdir())


@pytest.mark.slow
def test_tables_for_another_version_are_generated_for_this_one(tmp_path):
    """Committed tables that say another version: both are generated under the build folder for
    this Python's, and the NFC one is what its generator renders."""
    committed = tmp_path / "committed"
    committed.mkdir()
    for header, _, macro in unidata_build.TABLES:
        text = (NATIVE / "src" / "unidata" / header).read_text(encoding="ascii")
        version = unidata_build.recorded_version(NATIVE / "src" / "unidata" / header, macro)
        (committed / header).write_text(text.replace(f'"{version}"', '"0.0.0"'), encoding="ascii")
    dirs = unidata_build.tables_for_this_python(committed, tmp_path / "build")
    assert dirs == [str((tmp_path / "build" / f"unidata-{unicodedata.unidata_version}").resolve())]
    out = Path(dirs[0])
    for header, _, macro in unidata_build.TABLES:
        assert unidata_build.recorded_version(out / header, macro) == unicodedata.unidata_version
    spec = importlib.util.spec_from_file_location("gen_nfc_tables", NATIVE / "gen_nfc_tables.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    assert (out / "nfc_tables.h").read_text() == gen.render()
