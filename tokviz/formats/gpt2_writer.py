"""Write a byte-level BPE as GPT-2's `vocab.json` + `merges.txt` (the inverse of gpt2.read_gpt2).

The two files hold the vocabulary and the merges, not the split regex nor added tokens: readers
assume GPT-2's regex, or Qwen2's when `tokenizer_config.json` beside them names Qwen2Tokenizer.
So only those two pipelines are written, with a `tokenizer_config.json` naming the class and
listing the added tokens (`added_tokens_decoder`), as on the Hugging Face hub.

    >>> write_vocab_merges(tok, Path("out"))          # out/vocab.json, out/merges.txt
    >>> tokenizers.models.BPE.from_file("out/vocab.json", "out/merges.txt")
"""
from __future__ import annotations

import json
from pathlib import Path

from ..core import normalizers as norm
from ..core.patterns import GPT2_PATTERN, QWEN2_PATTERN
from ..core.tokenizer import Tokenizer
from ..errors import TokvizError
from ._bytelevel_check import byte_level_bpe_problem, split_pattern
from .atomic_write import write_files_atomic

FORMAT = "vocab.json + merges.txt"


def _tokenizer_class(tok: Tokenizer) -> str | None:
    """"GPT2Tokenizer" or "Qwen2Tokenizer" when the pipeline is one a reader rebuilds from the name."""
    found = split_pattern(tok)
    if isinstance(found, str):
        return None
    pattern, _ = found
    if pattern == GPT2_PATTERN and tok.normalizer is None:
        return "GPT2Tokenizer"
    if pattern == QWEN2_PATTERN and isinstance(tok.normalizer, norm.UnicodeForm) and tok.normalizer.form == "NFC":
        return "Qwen2Tokenizer"
    return None


def vocab_merges_problem(tok: Tokenizer) -> str | None:
    """Why vocab.json + merges.txt cannot hold `tok` exactly (None: they can)."""
    problem = byte_level_bpe_problem(tok, FORMAT)
    if problem:
        return problem
    if not tok.model.has_merge_list:
        return f"{FORMAT} needs a merge list; this BPE ranks pairs by the merged token (a tiktoken file)"
    if _tokenizer_class(tok) is None:
        found = split_pattern(tok)
        what = found if isinstance(found, str) else f"it splits text with {found[0]!r}"
        extra = f" and normalizes with {tok.normalizer.describe()}" if tok.normalizer is not None else ""
        return (f"{FORMAT} do not store the split regex or normalizer: readers assume GPT-2's (or Qwen2's, named in "
                f"tokenizer_config.json); {what}{extra}; save a tokenizer.json instead")
    return None


def vocab_merges_paths(path: Path) -> tuple[Path, Path, Path]:
    """(vocab.json, merges.txt, tokenizer_config.json) for a target: a folder gets the plain names;
    a file name X.ext puts X-vocab.json, X-merges.txt and X-tokenizer_config.json beside it (HF's
    `save_model(folder, prefix)` names), except vocab.json or merges.txt themselves."""
    if path.is_dir() or not path.suffix:
        folder, prefix = path, ""
    elif path.name in ("vocab.json", "merges.txt"):
        folder, prefix = path.parent, ""
    else:
        folder, prefix = path.parent, path.stem + "-"
    return folder / f"{prefix}vocab.json", folder / f"{prefix}merges.txt", folder / f"{prefix}tokenizer_config.json"


def write_vocab_merges(tok: Tokenizer, path: Path, *, overwrite: bool = True) -> list[Path]:
    """Write the three files as one transaction (all new or, on failure, all as they were); their paths."""
    vocab_path, merges_path, config_path = vocab_merges_paths(path)
    model = tok.model
    merges = model.merges
    bad = next((f"{a} {b}" for a, b in merges if " " in a or " " in b), None)
    if bad is not None:
        raise TokvizError(f"a merge holds a space ({bad!r}), which merges.txt lines cannot")
    from .hf_json_writer import added_in_model_vocab

    # (added tokens whose ids a reader would not give them, e.g. specials trained in front, go in too)
    try:
        placed = added_in_model_vocab(tok)
    except ValueError as exc:
        raise TokvizError(str(exc)) from None
    vocab = dict(sorted({**model.vocab, **placed}.items(), key=lambda kv: kv[1]))
    tok_class = _tokenizer_class(tok)
    # Always written: a stale tokenizer_config.json left beside the files would change how they load.
    config = {
        "tokenizer_class": tok_class,
        "added_tokens_decoder": {
            str(t.id): {"content": t.content, "lstrip": t.lstrip, "rstrip": t.rstrip, "single_word": t.single_word,
                        "normalized": t.normalized, "special": t.special}
            for t in sorted(tok.added.tokens, key=lambda t: t.id)
        },
    }
    from .gpt2 import CLASS_DEFAULTS

    present = set(vocab) | {t.content for t in tok.added.tokens}
    for attr, content in CLASS_DEFAULTS.get(tok_class, {}).items():
        if content not in present:  # (a class default the vocabulary lacks: transformers would append it)
            config[attr] = None
    files = [(vocab_path, json.dumps(vocab, ensure_ascii=False) + "\n"),
             (merges_path, "#version: 0.2\n" + "".join(f"{a} {b}\n" for a, b in merges)),
             (config_path, json.dumps(config, ensure_ascii=False, indent=2) + "\n")]
    return write_files_atomic(files, overwrite=overwrite)
