"""Text in UTF-16 or UTF-32 given where tokviz reads UTF-8 is refused naming its encoding (and how
to convert it), by every reader: streamed encoding (big files, corpus statistics, ranges of a
file), conversation files, the app's text files; never as "not UTF-8 at offset 0" or as a binary
file, and never as the other one of the two."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import tokviz
from tokviz.core.chat import read_conversation
from tokviz.core.streaming import encode_file
from tokviz.errors import TokvizError
from tokviz.gui.window.files import read_text_file, read_text_head
from tokviz.paths import unicode_encoding

TOKENIZER = Path(__file__).resolve().parent / "data" / "real" / "tortoise-tokenizer.json"
TEXT = "hello world, here is some text to read\n" * 40
CODECS = [("utf-32", "UTF-32"), ("utf-32-le", "UTF-32"), ("utf-32-be", "UTF-32"), ("utf-16", "UTF-16"),
          ("utf-16-le", "UTF-16"), ("utf-16-be", "UTF-16")]


@pytest.fixture(scope="module")
def tokenizer():
    return tokviz.load(TOKENIZER)


def _refused(call, path, name):
    with pytest.raises(TokvizError) as caught:
        call()
    assert caught.value.path is not None and os.fspath(caught.value.path) == os.fspath(path)
    assert caught.value.reason.startswith(f"the file is {name} text, not UTF-8"), caught.value.reason
    assert f"iconv -f {name} -t UTF-8" in caught.value.reason


@pytest.mark.parametrize("codec, name", CODECS)
def test_streamed_encoding_names_the_encoding(tmp_path, tokenizer, codec, name):
    path = tmp_path / "text.txt"
    path.write_bytes(TEXT.encode(codec))
    assert unicode_encoding(path.read_bytes()) == name
    _refused(lambda: encode_file(tokenizer, path), path, name)
    _refused(lambda: encode_file(tokenizer, path, chunk_bytes=64), path, name)
    _refused(lambda: encode_file(tokenizer, path, start=400), path, name)  # (a range of the file)


@pytest.mark.parametrize("codec, name", CODECS)
def test_app_text_files_name_the_encoding(tmp_path, codec, name):
    path = tmp_path / "text.txt"
    path.write_bytes(TEXT.encode(codec))
    _refused(lambda: read_text_file(path), path, name)
    _refused(lambda: read_text_head(path, 1000), path, name)


@pytest.mark.parametrize("codec, name", CODECS)
def test_conversation_files_name_the_encoding(tmp_path, codec, name):
    path = tmp_path / "chat.json"
    path.write_bytes('[{"role": "user", "content": "hello there, how are you today?"}]'.encode(codec))
    _refused(lambda: read_conversation(path), path, name)


def test_utf8_and_other_bytes_are_unchanged(tmp_path, tokenizer):
    path = tmp_path / "text.txt"
    path.write_bytes(b"\xef\xbb\xbf" + TEXT.encode())
    assert list(encode_file(tokenizer, path)) == tokenizer.encode(TEXT).ids
    path.write_bytes(b"caf\xe9 au lait\n")
    with pytest.raises(TokvizError, match=r"not UTF-8 text: byte 0xe9 at offset 3"):
        encode_file(tokenizer, path)
    path.write_bytes(b"some text\x00more text")
    with pytest.raises(TokvizError, match=r"binary file, not text: a NUL byte at offset 9"):
        encode_file(tokenizer, path)
    chat = tmp_path / "chat.json"
    chat.write_bytes(b'[{"role": "user", "content": "caf\xe9"}]')
    with pytest.raises(TokvizError, match=r"not UTF-8 \(invalid byte 0xe9 at offset 33\)"):
        read_conversation(chat)


def test_stats_command_names_the_encoding(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_bytes(TEXT.encode("utf-32"))
    done = subprocess.run([sys.executable, "-m", "tokviz", "stats", "-t", os.fspath(TOKENIZER), "--corpus",
                           os.fspath(path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stderr.startswith(f"tokviz: error: {path}: the file is UTF-32 text"), done
