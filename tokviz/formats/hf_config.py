"""`tokenizer_config.json`: what transformers reads beside a vocab.json+merges.txt or vocab.txt.

The class named by `tokenizer_class` decides the pipeline; the config adds special and added tokens
and switches a few behaviours.  Special and added tokens get their ids as transformers (5.x)
`from_pretrained` gives them: a token in the vocabulary keeps its id, the others are appended in
order — `added_tokens_decoder` (by key), then the special-token attributes (bos, eos, unk, sep,
pad, cls, mask), then `additional_special_tokens` / `extra_special_tokens`.  One difference: a
special token the class has by default (GPT-2's <|endoftext|>) but the config does not name is
only used when the vocabulary has it; transformers would append it as a new token.
"""
from __future__ import annotations

from pathlib import Path

from ..core.added import AddedToken
from ..core.limits import max_sane_id
from ..paths import regular_file_or_none
from ._util import Fields, read_json

SPECIAL_ATTRIBUTES = ("bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token")


def read_config(folder: Path) -> Fields | None:
    """The folder's tokenizer_config.json, or None when there is none."""
    path = folder / "tokenizer_config.json"
    return Fields(read_json(path), path) if regular_file_or_none(path, "a settings file") is not None else None


def config_class(config: Fields | None) -> str | None:
    """`tokenizer_class` without transformers' "Fast" suffix (both names are one class in 5.x)."""
    name = config.get("tokenizer_class", str) if config is not None else None
    return name[:-4] if name and name.endswith("Fast") else name


def _token_spec(f: Fields, key: str, value) -> dict | None:
    """{"content": ..., flags...} of a token given as a string or a serialized AddedToken."""
    if value is None:
        return None
    if isinstance(value, str):
        return {"content": value}
    if isinstance(value, dict) and isinstance(value.get("content"), str):
        return value
    f.fail(f"{key}: expected a token (string or object with 'content'), got {value!r:.60}")


def special_token_texts(config: Fields | None, defaults: dict[str, str | None]) -> dict[str, str]:
    """attribute -> content of each special token: the class's defaults, overridden by the config
    (a null in the config removes the token)."""
    out = {}
    for attr in SPECIAL_ATTRIBUTES:
        value = defaults.get(attr)
        if config is not None and attr in config.data:
            spec = _token_spec(config, attr, config.data[attr])
            value = spec["content"] if spec else None
        if value is not None:
            out[attr] = value
    return out


def added_tokens(config: Fields | None, vocab: dict[str, int], defaults: dict[str, str | None]) -> list[AddedToken]:
    """The added and special tokens transformers registers for this config and vocabulary."""
    out: list[AddedToken] = []
    seen: set[str] = set()
    next_id = len(vocab)
    taken = set(vocab.values())

    def add(content: str, special: bool, flags: dict, where: Fields):
        nonlocal next_id
        if content in seen:
            return
        seen.add(content)
        token_id = vocab.get(content)
        if token_id is None:
            if next_id in taken:  # (transformers would give this id to two tokens)
                where.fail(f"token {content!r} is not in the vocabulary and its id {next_id} (the next one) "
                           "is already a vocabulary token's")
            token_id = next_id
            next_id += 1
        taken.add(token_id)
        out.append(AddedToken(content, token_id, special=special, lstrip=bool(flags.get("lstrip", False)),
                              rstrip=bool(flags.get("rstrip", False)),
                              single_word=bool(flags.get("single_word", False)),
                              normalized=bool(flags.get("normalized", not special))))

    if config is not None:
        decoder = config.get("added_tokens_decoder", dict, {}) or {}
        for key in sorted(decoder, key=lambda k: (not k.isdecimal(), int(k) if k.isdecimal() and len(k) <= 10 else 0)):
            f = Fields(decoder[key], config.path, f"added_tokens_decoder.{key}")
            if not key.isdecimal():
                f.fail("key must be a token id")
            if len(key) > 10 or int(key) > max_sane_id(len(vocab)):
                f.fail(f"token id {key} is out of range for a vocabulary of {len(vocab)} tokens")
            special = f.get("special", bool, True)
            add(f.get("content", str, required=True), special, {**f.data, "normalized": f.get("normalized", bool, not special)}, f)
    where = config or Fields({}, None)
    for attr, content in special_token_texts(config, defaults).items():
        named = config is not None and attr in config.data
        spec = _token_spec(where, attr, config.data.get(attr)) if named else None
        add(content, True, {**(spec or {}), "normalized": bool((spec or {}).get("normalized", False))}, where)
    if config is not None:
        for key in ("additional_special_tokens", "extra_special_tokens"):
            extra = config.data.get(key)
            items = list(extra.values()) if isinstance(extra, dict) else extra or []
            if not isinstance(items, list):
                config.fail(f"{key}: expected a list of tokens, got {extra!r:.60}")
            for i, value in enumerate(items):
                spec = _token_spec(config, f"{key}[{i}]", value)
                if spec is not None:
                    add(spec["content"], True, {**spec, "normalized": bool(spec.get("normalized", False))}, config)
    return out


def refuse_unless(config: Fields | None, key: str, allowed, reason: str) -> None:
    """Fail when the config sets `key` to a value outside `allowed` (a value or a predicate)."""
    if config is None or config.data.get(key) is None:
        return
    value = config.data[key]
    ok = allowed(value) if callable(allowed) else value == allowed
    if not ok:
        config.fail(f"{key} = {value!r} is not supported: {reason}")
