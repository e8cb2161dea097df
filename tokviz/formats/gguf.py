"""The tokenizer inside a GGUF file (llama.cpp, Ollama, LM Studio), read as llama.cpp reads it.

Only the metadata is read (`gguf_meta`), never the weights.  What tokviz implements:

- `tokenizer.ggml.model` "gpt2" (and "gemma4", "whitespace"): BPE over `tokens` and `merges`, cut
  first by the regexes llama.cpp uses for the `tokenizer.ggml.pre` name (`gguf_pre`: every name
  llama.cpp knows, with its settings), over GPT-2 byte-level pieces or, for the names that do not
  byte-encode (Gemma 4, Sarvam, whitespace), over UTF-8 pieces (`core.llama.bpe`); "whitespace"
  drops whitespace and lowercases first;
- `tokenizer.ggml.model` "llama": sentencepiece-style BPE over `tokens` and `scores`, with byte
  fallback, spaces written as "▁" and a space put in front of the text (`add_space_prefix`), and
  no normalization (llama.cpp applies none);
- `tokenizer.ggml.model` "bert": llama.cpp's WordPiece (`core.llama.vocab.LlamaWPM`);
- `tokenizer.ggml.model` "t5": llama.cpp's Unigram (`core.llama.vocab.LlamaUGM`);
- "rwkv": greedy longest byte match (`core.llama.rwkv`); "plamo2": PLaMo-2's suffix table
  (`core.llama.plamo2`); "hybriddna": that BPE with DNA k-mers between <dna> tags
  (`core.llama.dna`); "test": llama.cpp's hash stand-in (`core.llama.hash_chunks`).

Token types say which tokens are matched in the text: CONTROL ones are special (matched when
special tokens are allowed, as llama.cpp's `parse_special`), USER_DEFINED ones always.
`add_bos_token` / `add_eos_token` put BOS / EOS around an encoding with special tokens added, and
decode is llama.cpp's detokenize (`core.llama.vocab.Detokenizer`).  What llama.cpp refuses (an
unknown model or pre-tokenizer name) is refused by name, and so are files without a vocabulary
("none").
"""
from __future__ import annotations

import os
from pathlib import Path

from ..core.chat import ChatTemplate, ChatTemplates
from ..core.llama.vocab import (BYTE, CONTROL, NORMAL, UNDEFINED, UNKNOWN, USER_DEFINED, Detokenizer, LlamaSPM,
                               LlamaUGM, LlamaWPM, token_attributes)
from ..core.llama.pre import split_steps
from ..core.tokenizer import Tokenizer
from ..errors import TokvizError
from ..messages import QT_TRANSLATE_NOOP, Message
from .gguf_meta import read_metadata
from .gguf_pre import NAMES as PRES

KEYS_READ = ("tokenizer.", "general.architecture", "general.name")
_SPECIAL_KEYS = ("bos", "eos", "eot", "eom", "unknown", "seperator", "padding", "mask", "fim_pre", "fim_suf",
                 "fim_mid", "fim_pad", "fim_rep", "fim_sep")


def read_gguf(path: str | os.PathLike) -> Tokenizer:
    path = Path(path)
    meta = read_metadata(path, lambda key: key.startswith(KEYS_READ))
    model = meta.get("tokenizer.ggml.model")
    if model is None:
        raise TokvizError(QT_TRANSLATE_NOOP("formats", "this GGUF file holds no tokenizer (no tokenizer.ggml.model)"),
                          path)
    if model in ("gpt2", "gemma4", "whitespace", "hybriddna"):
        tok = _bpe(meta, path, model)
    elif model == "llama":
        tok = _sentencepiece_bpe(meta, path)
    elif model == "bert":
        tok = _wordpiece(meta, path)
    elif model == "t5":
        tok = _unigram(meta, path)
    elif model == "rwkv":
        tok = _rwkv(meta, path)
    elif model == "plamo2":
        tok = _plamo2(meta, path)
    elif model == "test":
        tok = _hash_chunks(meta, path)
    elif model in ("none", "no_vocab"):
        raise TokvizError(Message(QT_TRANSLATE_NOOP("formats", "tokenizer.ggml.model {model!r}: this GGUF file has no "
                                                           "vocabulary (llama.cpp loads it but cannot tokenize with "
                                                           "it)"), model=model), path)
    else:
        raise TokvizError(Message(QT_TRANSLATE_NOOP("formats", "tokenizer.ggml.model {model!r}: llama.cpp refuses this "
                                                           "file (unknown tokenizer)"), model=model), path)
    tok.added.longest_first = True  # (llama.cpp's order of matching special tokens in text)
    tok.chat_templates = _chat_templates(meta, path)
    return tok


def _vocabulary(meta: dict, path: Path, default_eos: int | None = None) -> tuple[list[str], list[int], dict[str, int]]:
    """(tokens, their types as llama.cpp adjusts them, the special ids the file names); `default_eos`:
    the model's EOS id where the file names none."""
    tokens = meta.get("tokenizer.ggml.tokens")
    if not isinstance(tokens, list) or not tokens or not all(isinstance(t, str) for t in tokens):
        raise TokvizError(QT_TRANSLATE_NOOP("formats", "tokenizer.ggml.tokens: missing, empty or not an array of "
                                                       "strings"), path)
    tokens = [t if t else f"[EMPTY_{i}]" for i, t in enumerate(tokens)]  # (as llama.cpp names them)
    seen: dict[str, int] = {}
    for i, t in enumerate(tokens):
        if t in seen:
            raise TokvizError(f"token {t!r} is there twice (ids {seen[t]} and {i}): llama.cpp refuses such a file", path)
        seen[t] = i
    types = meta.get("tokenizer.ggml.token_type")
    if types is None:
        types = [NORMAL] * len(tokens)
    elif getattr(getattr(types, "dtype", None), "kind", "") not in ("i", "u"):
        raise TokvizError("tokenizer.ggml.token_type: expected an array of integers", path)
    elif len(types) != len(tokens):
        raise TokvizError(f"tokenizer.ggml.token_type has {len(types):,} entries for {len(tokens):,} tokens", path)
    ids = {}
    for name in _SPECIAL_KEYS:
        value = meta.get(f"tokenizer.ggml.{name}_token_id")
        if value is not None and 0 <= int(value) < len(tokens):  # (llama.cpp ignores an id out of range)
            ids[name] = int(value)
    kinds = token_attributes(tokens, [int(t) for t in types], set(ids), ids.get("eos", default_eos))
    if _strip_rule(meta)[0] == "rstrip-phi3":
        missing = [t for t in ("</s>", "<unk>", "<s>", "<|endoftext|>") if t not in seen]
        if missing:
            raise TokvizError(f"general.name says Phi-3, whose strip rule names {missing[0]!r}, which is not a token: "
                              "llama.cpp refuses this file", path)
    return tokens, kinds, ids


def _strip_rule(meta: dict) -> tuple[str, str | None]:
    """llama.cpp's per-model strip rule, by pre-tokenizer, architecture or model name: ("lstrip",
    the token that swallows the whitespace before it), ("rstrip-phi3", None), or ("", None)."""
    name = str(meta.get("general.name") or "").lower()
    pre = str(meta.get("tokenizer.ggml.pre") or "")
    arch = str(meta.get("general.architecture") or "")
    if any(p in pre for p in ("jina-v2-de", "jina-v2-es", "jina-v2-code")) or any(
            a in arch for a in ("nomic-bert-moe", "jina-bert-v3")):
        return "lstrip", "<mask>"
    if "phi-3" in name or "phi3" in name:
        return "rstrip-phi3", None
    if "modern-bert" in name:
        return "lstrip", "[MASK]"
    return "", None


def _file_kinds(meta: dict, count: int) -> list[int]:
    """The token types as the file gives them (a type llama.cpp does not know read as UNDEFINED;
    NORMAL for all without tokenizer.ggml.token_type), before llama.cpp's load-time changes."""
    types = meta.get("tokenizer.ggml.token_type")
    if types is None:
        return [NORMAL] * count
    return [int(t) if NORMAL <= int(t) <= BYTE else UNDEFINED for t in types]


def _added_tokens(tokens: list[str], kinds: list[int], meta: dict) -> list[dict]:
    """tokenizer.json added_tokens: control and unknown tokens special (matched in text only when
    special tokens are), user-defined ones always matched; per-model strip rules as llama.cpp's."""
    rule, lstrip_token = _strip_rule(meta)
    out = []
    for i, (content, kind) in enumerate(zip(tokens, kinds)):
        if kind in (CONTROL, USER_DEFINED, UNKNOWN):
            rstrip = rule == "rstrip-phi3" and content not in ("<unk>", "<s>", "<|endoftext|>")
            out.append({"id": i, "content": content, "single_word": False, "lstrip": content == lstrip_token,
                        "rstrip": rstrip, "normalized": False, "special": kind != USER_DEFINED})
    return out


def _added_token_objects(tokens: list[str], kinds: list[int], meta: dict) -> list:
    from ..core.added import AddedToken

    return [AddedToken(t["content"], t["id"], special=t["special"], lstrip=t["lstrip"], rstrip=t["rstrip"],
                       normalized=False) for t in _added_tokens(tokens, kinds, meta)]


def _scores(meta: dict, count: int, model: str, path: Path):
    scores = meta.get("tokenizer.ggml.scores")
    if getattr(getattr(scores, "dtype", None), "kind", "") not in ("f", "i", "u") or len(scores) != count:
        raise TokvizError(f"tokenizer.ggml.scores: a {model!r} tokenizer needs one score per token", path)
    return scores


def _ends(meta: dict, ids: dict[str, int], add_bos_default: bool, default_bos: int | None, default_eos: int,
          add_eos_default: bool = False):
    """(bos id, eos id, add_bos, add_eos) as llama.cpp settles them."""
    add_bos = meta.get("tokenizer.ggml.add_bos_token")
    add_eos = meta.get("tokenizer.ggml.add_eos_token")
    return (ids.get("bos", default_bos), ids.get("eos", default_eos),
            bool(add_bos) if add_bos is not None else add_bos_default,
            bool(add_eos) if add_eos is not None else add_eos_default)


def _template(tokens: list[str], before: int | None, after: int | None):
    """The post-processor putting token `before` ahead of a sequence and `after` behind it when
    special tokens are added (None, or an id past the vocabulary: no token there); None if neither."""
    from ..core.post_processors import TemplateProcessing

    before, after = (i if i is not None and i < len(tokens) else None for i in (before, after))
    if before is None and after is None:
        return None
    single = ([("special", tokens[before])] if before is not None else []) + [("sequence", "A")]
    single += [("special", tokens[after])] if after is not None else []
    return TemplateProcessing(single, {tokens[i]: [(i, tokens[i])] for i in (before, after) if i is not None})


def _llama_tokenizer(model, tokens: list[str], kinds: list[int], meta: dict, path: Path, *, normalizer=None,
                     post_processor, extra: dict, decode: dict) -> Tokenizer:
    """A Tokenizer around one of llama.cpp's models (SPM, WPM, UGM): its added tokens, '▁' as the
    space, llama.cpp's detokenize (`decode`: Detokenizer's keywords)."""
    from ..core.tokenizer import Source

    return Tokenizer(
        model,
        normalizer=normalizer,
        post_processor=post_processor,
        added_tokens=_added_token_objects(tokens, kinds, meta),
        special_in_text=True,
        space_marker="\u2581",
        source=Source("gguf", str(path), _name(meta, path), extra),
        decode_fn=Detokenizer(tokens, kinds, byte_level=False, **decode),
    )


def _bpe(meta: dict, path: Path, model_name: str) -> Tokenizer:
    """llama.cpp's BPE ("gpt2", and "gemma4" whose pre-tokenizer is always gemma4): the
    pre-tokenizer name's regexes, then merges over GPT-2 byte-level pieces or, where the name does
    not byte-encode, over UTF-8 pieces with <0xXX> byte tokens."""
    tokens, kinds, ids = _vocabulary(meta, path)
    pre_name = "gemma4" if model_name == "gemma4" else (meta.get("tokenizer.ggml.pre") or "default")
    pre = PRES.get(pre_name)
    if pre is None:
        raise TokvizError(f"tokenizer.ggml.pre {pre_name!r}: llama.cpp refuses this file (unknown pre-tokenizer "
                          "type); tokviz reads the names llama.cpp knows", path)
    merges = meta.get("tokenizer.ggml.merges")
    if merges is None and pre_name == "kimi-k2":
        merges = []  # (llama.cpp reads Kimi-K2 without merges)
    if not isinstance(merges, list) or not all(isinstance(m, str) for m in merges):
        raise TokvizError(f"tokenizer.ggml.merges: missing or not an array of strings (a {model_name!r} tokenizer "
                          "needs its merges)", path)
    default_end = None if model_name == "gemma4" else 11
    bos, eos, add_bos, add_eos = _ends(meta, ids, pre.add_bos, None if pre.no_bos else default_end, default_end)
    if pre.type == "gemma4":
        add_bos = True  # (llama.cpp's Gemma 4 workaround)
    try:
        steps = split_steps(pre.regexes)
    except TokvizError as exc:
        raise TokvizError(f"tokenizer.ggml.pre {pre_name!r}: {exc.reason}", path) from None
    normalizers = []
    if model_name == "whitespace":  # (whitespace dropped, the rest lowercased unless the file says not)
        from ..core.llama.bpe import DropWhitespace, LlamaLowercase

        lowercase = meta.get("tokenizer.ggml.normalizer.lowercase")
        lowercase = (pre.lowercase if pre.lowercase is not None else True) if lowercase is None else bool(lowercase)
        steps = [DropWhitespace()] + steps
        normalizers = [LlamaLowercase()] if lowercase else []
    decode_tokens = tokens
    if model_name == "hybriddna":
        tok, decode_tokens = _hybrid_dna(tokens, kinds, merges, meta, path, pre, steps)
    elif pre.byte_encode:
        tok = _byte_level(tokens, kinds, merges, meta, path, pre, steps, plain=model_name == "whitespace")
    else:
        tok = _utf8_bpe(tokens, kinds, merges, meta, path, pre, steps)
    if normalizers:
        from ..core.normalizers import Sequence as NormalizerSequence

        tok.normalizer = NormalizerSequence(([tok.normalizer] if tok.normalizer is not None else []) + normalizers)
    tok.post_processor = _template(tokens, bos if add_bos else None, eos if add_eos else None)
    space_prefix = bool(meta.get("tokenizer.ggml.add_space_prefix", False))  # (only decode reads it here)
    # (decode is byte-level unless the name escapes spaces, as llama.cpp's token_to_piece decides)
    tok.decode_fn = Detokenizer(decode_tokens, kinds, byte_level=not pre.escape_whitespaces,
                                add_space_prefix=space_prefix, clean_spaces=pre.clean_spaces,
                                bos=bos, eos=eos, add_bos=add_bos, add_eos=add_eos)
    tok.source.format = "gguf"
    tok.source.extra.update({"gguf_model": model_name, "gguf_pre": pre_name, "add_bos": add_bos, "add_eos": add_eos})
    return tok


def _byte_level(tokens, kinds, merges, meta: dict, path: Path, pre, steps, plain: bool = False) -> Tokenizer:
    """GPT-2 byte-level BPE, built as tokenizer.json's; llama.cpp's pre-tokenizer (`steps`) in
    front (as tokenizer.json Split patterns where they are all such, unless `plain`)."""
    from ..core.llama.classes import LlamaClassesTokenizer
    from ..core.llama.pre import as_hf_pattern
    from ..core.pre_tokenizers import ByteLevel, Sequence
    from .hf_json import build_hf_tokenizer

    patterns = [as_hf_pattern(r) for r in pre.regexes]
    native = all(patterns) and not plain  # (tokenizer.json's Split patterns: tokviz's scanners run them)
    splits = [{"type": "Split", "pattern": {"Regex": p}, "behavior": "Isolated", "invert": False}
              for p in patterns] if native else []
    data = {
        "version": "1.0",
        "added_tokens": _added_tokens(tokens, kinds, meta),
        "normalizer": None,
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": splits + [
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}]},
        "post_processor": None,
        "decoder": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False,
                  "ignore_merges": pre.ignore_merges, "vocab": {t: i for i, t in enumerate(tokens)}, "merges": merges},
    }
    tok = build_hf_tokenizer(data, path, name=_name(meta, path))
    tok.pre_tokenizer = Sequence(steps + [ByteLevel(add_prefix_space=False, use_regex=False)])
    if native:
        # (the native scanners class characters as HF does: texts llama.cpp classes otherwise go to Python)
        tok.__class__ = LlamaClassesTokenizer
    return tok


def _hybrid_dna(tokens, kinds, merges, meta: dict, path: Path, pre, steps):
    """llama.cpp's "hybriddna" (core.llama.dna): (the tokenizer, the token texts decode writes:
    the k-mers after <oov> without their U+E000 marker, as llama.cpp loads them)."""
    from ..core.bytelevel import unicode_to_bytes
    from ..core.llama.bpe import LlamaBPE
    from ..core.llama.dna import KMER_MARKER, HybridDNA
    from ..core.normalizers import Replace
    from ..core.pre_tokenizers import Sequence

    bpe = LlamaBPE(tokens, merges, ignore_merges=pre.ignore_merges, whole_newlines=pre.type == "gemma4",
                   byte_level=pre.byte_encode)
    model = HybridDNA(tokens, Sequence(steps), bpe, byte_level=pre.byte_encode)
    tok = _llama_tokenizer(model, tokens, kinds, meta, path,
                           normalizer=Replace(" ", "\u2581") if pre.escape_whitespaces else None,
                           post_processor=None, extra={}, decode={
                               "add_space_prefix": False, "clean_spaces": False, "bos": None, "eos": None,
                               "add_bos": False, "add_eos": False})
    shown = list(tokens)
    oov = model.tags[2]
    if oov is not None:
        for i in range(oov + 1, len(tokens)):
            if len(tokens[i]) > len(KMER_MARKER) and tokens[i].endswith(KMER_MARKER):
                shown[i] = tokens[i][:-len(KMER_MARKER)]
    if not pre.escape_whitespaces:
        tok.space_marker = None
    if pre.byte_encode:
        for i, t in enumerate(shown):
            data = unicode_to_bytes(t)
            if data is not None and i not in tok.added.by_id:
                tok._bytes_cache[i] = data
    return tok, shown


def _utf8_bpe(tokens, kinds, merges, meta: dict, path: Path, pre, steps) -> Tokenizer:
    """llama.cpp's BPE on UTF-8 pieces (spaces written as '▁' first where the name escapes them)."""
    from ..core.llama.bpe import LlamaBPE
    from ..core.normalizers import Replace
    from ..core.pre_tokenizers import Sequence

    model = LlamaBPE(tokens, merges, ignore_merges=pre.ignore_merges, whole_newlines=pre.type == "gemma4")
    tok = _llama_tokenizer(model, tokens, kinds, meta, path,
                           normalizer=Replace(" ", "\u2581") if pre.escape_whitespaces else None,
                           post_processor=None, extra={}, decode={
                               "add_space_prefix": False, "clean_spaces": False, "bos": None, "eos": None,
                               "add_bos": False, "add_eos": False})
    tok.pre_tokenizer = Sequence(steps)
    if not pre.escape_whitespaces:
        tok.space_marker = None
    return tok


def _sentencepiece_bpe(meta: dict, path: Path) -> Tokenizer:
    from ..core.normalizers import Prepend, Replace, Sequence

    tokens, kinds, ids = _vocabulary(meta, path)
    scores = _scores(meta, len(tokens), "llama", path)
    add_space_prefix = bool(meta.get("tokenizer.ggml.add_space_prefix", True))
    bos, eos, add_bos, add_eos = _ends(meta, ids, True, 1, 2)
    steps = ([Prepend("\u2581")] if add_space_prefix else []) + [Replace(" ", "\u2581")]
    return _llama_tokenizer(
        LlamaSPM(tokens, scores, kinds), tokens, kinds, meta, path, normalizer=Sequence(steps),
        post_processor=_template(tokens, bos if add_bos else None, eos if add_eos else None),
        extra={"gguf_model": "llama", "add_space_prefix": add_space_prefix, "add_bos": add_bos, "add_eos": add_eos},
        decode={"add_space_prefix": add_space_prefix, "clean_spaces": False, "bos": bos, "eos": eos,
                "add_bos": add_bos, "add_eos": add_eos})


def _wordpiece(meta: dict, path: Path) -> Tokenizer:
    tokens, kinds, ids = _vocabulary(meta, path)
    # (llama.cpp's defaults where the keys are absent: lowercase, and strip accents as lowercase says)
    lowercase = bool(meta.get("tokenizer.ggml.normalizer.lowercase", True))
    strip = meta.get("tokenizer.ggml.normalizer.strip_accents")
    strip_accents = lowercase if strip is None else bool(strip)
    unk, bos, sep = ids.get("unknown", 100), ids.get("bos", 101), ids.get("seperator", 102)
    add_bos = bool(meta.get("tokenizer.ggml.add_bos_token", True))  # (decode reads it; encode adds both always)
    both = bos < len(tokens) and sep < len(tokens)
    return _llama_tokenizer(
        LlamaWPM(tokens, unk if unk < len(tokens) else None, lowercase=lowercase, strip_accents=strip_accents),
        tokens, kinds, meta, path,
        post_processor=_template(tokens, bos, sep) if both else None,
        extra={"gguf_model": "bert", "lowercase": lowercase, "strip_accents": strip_accents},
        decode={"add_space_prefix": bool(meta.get("tokenizer.ggml.add_space_prefix", False)), "clean_spaces": True,
                "bos": bos, "eos": None, "add_bos": add_bos, "add_eos": False})


def _unigram(meta: dict, path: Path) -> Tokenizer:
    from ..core.charsmap import CharsMap

    tokens, kinds, ids = _vocabulary(meta, path)
    scores = _scores(meta, len(tokens), "t5", path)
    blob = meta.get("tokenizer.ggml.precompiled_charsmap")
    charsmap = None
    if blob is not None and len(blob):
        if getattr(getattr(blob, "dtype", None), "kind", "") not in ("i", "u") or blob.dtype.itemsize != 1:
            raise TokvizError("tokenizer.ggml.precompiled_charsmap: expected an array of bytes", path)
        try:
            charsmap = CharsMap(blob.tobytes(), source=str(path))
        except TokvizError as exc:
            raise TokvizError(f"tokenizer.ggml.precompiled_charsmap: {exc.reason}", path) from None
    add_space_prefix = bool(meta.get("tokenizer.ggml.add_space_prefix", False))
    unk = ids.get("unknown", 2)
    bos, eos, add_bos, add_eos = _ends(meta, ids, False, None, 1, add_eos_default=True)
    model = LlamaUGM(tokens, scores, kinds, charsmap, unk_id=unk if unk < len(tokens) else None,
                     add_space_prefix=add_space_prefix,
                     remove_extra_whitespaces=bool(meta.get("tokenizer.ggml.remove_extra_whitespaces", False)),
                     load_kinds=_file_kinds(meta, len(tokens)))
    return _llama_tokenizer(
        model, tokens, kinds, meta, path,
        post_processor=_template(tokens, bos if add_bos else None, eos if add_eos else None),
        extra={"gguf_model": "t5", "add_space_prefix": add_space_prefix, "add_eos": add_eos},
        decode={"add_space_prefix": add_space_prefix, "clean_spaces": False, "bos": bos, "eos": eos,
                "add_bos": add_bos, "add_eos": add_eos})


def _rwkv(meta: dict, path: Path) -> Tokenizer:
    """llama.cpp's RWKV tokenizer: greedy longest match over the unescaped token bytes; no BOS/EOS
    is ever added (llama.cpp's RWKV tokenize adds none), and decode writes each token's bytes."""
    from ..core.llama.rwkv import GreedyBytes, unescape_rwkv

    tokens, kinds, ids = _vocabulary(meta, path)
    raw = [unescape_rwkv(t) for t in tokens]
    ends = _ends(meta, ids, False, None, None)
    return _byte_pieces_tokenizer(GreedyBytes(tokens, raw, ids.get("unknown")), tokens, kinds, raw, ends, meta, path,
                                  "rwkv")


def _plamo2(meta: dict, path: Path) -> Tokenizer:
    """llama.cpp's PLaMo-2 tokenizer (core.llama.plamo2); no BOS/EOS is ever added, and decode
    writes each token's text as stored (byte tokens as their byte)."""
    from ..core.llama.plamo2 import PlamoTable, byte_value

    tokens, kinds, ids = _vocabulary(meta, path, default_eos=2)
    scores = meta.get("tokenizer.ggml.scores")
    scores = [0.0] * len(tokens) if scores is None else _scores(meta, len(tokens), "plamo2", path)
    is_byte = [k == BYTE for k in kinds]
    try:
        model = PlamoTable(tokens, scores, is_byte)
    except TokvizError as exc:
        raise TokvizError(f"tokenizer.ggml.tokens: {exc.reason}", path) from None
    values = [byte_value(t) if flag else None for t, flag in zip(tokens, is_byte)]
    raw = [t.encode("utf-8") if v is None else bytes([v]) for t, v in zip(tokens, values)]
    return _byte_pieces_tokenizer(model, tokens, kinds, raw, _ends(meta, ids, False, 1, 2), meta, path, "plamo2")


def _byte_pieces_tokenizer(model, tokens, kinds, raw: list[bytes], ends, meta: dict, path: Path, name: str) -> Tokenizer:
    """A tokenizer whose tokens stand for the bytes `raw` (RWKV, PLaMo-2): decode writes them as
    they are, and the views show them."""
    bos, eos, add_bos, add_eos = ends
    tok = _llama_tokenizer(model, tokens, kinds, meta, path, post_processor=None, extra={"gguf_model": name},
                           decode={"add_space_prefix": bool(meta.get("tokenizer.ggml.add_space_prefix", False)),
                                   "clean_spaces": False, "bos": bos, "eos": eos, "add_bos": add_bos,
                                   "add_eos": add_eos, "raw_pieces": raw})
    tok.space_marker = None
    tok._bytes_cache.update((i, data) for i, data in enumerate(raw) if i not in tok.added.by_id)
    return tok


def _hash_chunks(meta: dict, path: Path) -> Tokenizer:
    """llama.cpp's "test" tokenizer (core.llama.hash_chunks); decode writes each id in hexadecimal."""
    from ..core.llama.hash_chunks import HashChunks

    tokens, kinds, ids = _vocabulary(meta, path)
    raw = [f"{i:x}".encode() for i in range(len(tokens))]
    bos, eos, add_bos, add_eos = _ends(meta, ids, False, None, None)
    tok = _llama_tokenizer(HashChunks(tokens), tokens, kinds, meta, path, post_processor=None,
                           extra={"gguf_model": "test"},
                           decode={"add_space_prefix": bool(meta.get("tokenizer.ggml.add_space_prefix", False)),
                                   "clean_spaces": False, "bos": bos, "eos": eos, "add_bos": add_bos,
                                   "add_eos": add_eos, "raw_pieces": raw})
    tok.space_marker = None
    return tok


def _name(meta: dict, path: Path) -> str:
    name = meta.get("general.name")
    return name if isinstance(name, str) and name.strip() else path.stem


def _chat_templates(meta: dict, path: Path) -> ChatTemplates:
    templates = {}
    for key, value in meta.items():
        if key == "tokenizer.chat_template" and isinstance(value, str):
            templates["default"] = ChatTemplate("default", value, str(path))
        elif key.startswith("tokenizer.chat_template.") and isinstance(value, str):
            name = key[len("tokenizer.chat_template."):]
            templates[name] = ChatTemplate(name, value, str(path))
    tokens = meta.get("tokenizer.ggml.tokens") or []
    variables = {}
    for name in ("bos", "eos", "unknown", "seperator", "padding", "cls", "mask"):
        token_id = meta.get(f"tokenizer.ggml.{name}_token_id")
        if token_id is not None and 0 <= int(token_id) < len(tokens):
            attr = {"unknown": "unk", "seperator": "sep", "padding": "pad"}.get(name, name)
            variables[f"{attr}_token"] = tokens[int(token_id)]
    return ChatTemplates(templates, variables)
