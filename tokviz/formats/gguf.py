"""The tokenizer inside a GGUF file (llama.cpp, Ollama, LM Studio), read as llama.cpp reads it.

Only the metadata is read (`gguf_meta`), never the weights.  What tokviz implements:

- `tokenizer.ggml.model` "gpt2": byte-level BPE over `tokens` and `merges`, cut first by the
  regexes llama.cpp uses for the `tokenizer.ggml.pre` name (PRES: each name's list as in
  llama.cpp's llama-vocab.cpp, applied one after another as HF's Split pre-tokenizers are);
- `tokenizer.ggml.model` "llama": sentencepiece-style BPE over `tokens` and `scores`, with byte
  fallback, spaces written as "▁" and a space put in front of the text (`add_space_prefix`), and
  no normalization (llama.cpp applies none);
- `tokenizer.ggml.model` "bert": llama.cpp's WordPiece (`core.llama_cpp.LlamaWPM`);
- `tokenizer.ggml.model` "t5": llama.cpp's Unigram (`core.llama_cpp.LlamaUGM`).

Token types say which tokens are matched in the text: CONTROL ones are special (matched when
special tokens are allowed, as llama.cpp's `parse_special`), USER_DEFINED ones always.
`add_bos_token` / `add_eos_token` put BOS / EOS around an encoding with special tokens added, and
decode is llama.cpp's detokenize (`core.llama_cpp.Detokenizer`).  Any other model, and a
pre-tokenizer name not in PRES, are refused by name.
"""
from __future__ import annotations

import os
from pathlib import Path

from ..core.chat import ChatTemplate, ChatTemplates
from ..core.patterns import GPT2_PATTERN, LLAMA3_PATTERN, QWEN2_PATTERN
from ..core.llama_cpp import (CONTROL, NORMAL, UNKNOWN, USER_DEFINED, Detokenizer, LlamaSPM, LlamaUGM, LlamaWPM,
                               StdRegexSplit, token_attributes)
from ..core.tokenizer import Tokenizer
from ..errors import TokvizError
from .gguf_meta import read_metadata

# llama.cpp's regexes (llama-vocab.cpp).  Where it runs tokenizer.json's own pattern in an adapted
# spelling ("'[sS]" for "(?i:'s)"), or GPT-2's without the final "|\s+" (the lone whitespace that
# alternative takes is a piece of its own anyway), the tokenizer.json pattern stands in, so that
# tokviz's native scanners run it; tests/test_gguf.py checks them against llama.cpp.
_GPT2 = GPT2_PATTERN
_LLAMA3 = LLAMA3_PATTERN
_QWEN2 = QWEN2_PATTERN


# llama.cpp's std::regex pre-tokenizer lists (llama-vocab.cpp), run by core.llama_cpp.StdRegexSplit
_GPT4O_REGEXES = (
    "[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))*((?=[\\p{L}])([^A-Z]))+(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))+((?=[\\p{L}])([^A-Z]))*(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
)
_TEKKEN_REGEXES = (
    '[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))*((?=[\\p{L}])([^A-Z]))+|[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))+((?=[\\p{L}])([^A-Z]))*|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+',
)
_DEEPSEEK_LLM_REGEXES = (
    '[\r\n]',
    '\\s?[A-Za-zµÀ-ÖØ-öø-ƺƼ-ƿǄ-ʓʕ-ʯͰ-ͳͶͷͻ-ͽͿΆΈ-ΊΌΎ-ΡΣ-ϵϷ-ҁҊ-ԯԱ-ՖႠ-ჅᎠ-Ᏽᏸ-ᏽᲐ-ᲺᲽ-Ჿᴀ-ᴫᵫ-ᵷᵹ-ᶚḀ-ἕἘ-Ἕἠ-ὅὈ-Ὅὐ-ὗὙὛὝὟ-ώᾀ-ᾴᾶ-ᾼιῂ-ῄῆ-ῌῐ-ΐῖ-Ίῠ-Ῥῲ-ῴῶ-ῼℂℇℊ-ℓℕℙ-ℝℤΩℨK-ℭℯ-ℴℹℼ-ℿⅅ-ⅉⅎↃↄⰀ-ⱻⱾ-ⳤⳫ-ⳮⳲⳳꙀ-ꙭꚀ-ꚛꜢ-ꝯꝱ-ꞇꞋ-ꞎꭰ-ꮿﬀ-ﬆﬓ-ﬗＡ-Ｚａ-ｚ𐐀-𐑏𐒰-𐓓𐓘-𐓻𐲀-𐲲𐳀-𐳲𑢠-𑣟𞤀-𞥃]+',
    '\\s?[!-/:-~！-／：-～‘-‟\u3000-。]+',
    '\\s+$',
    '[一-龥ࠀ-一가-\ud7ff]+',
    '\\p{N}+',
)
_DEEPSEEK_V3_REGEXES = (
    '\\p{N}{1,3}',
    '[一-龥\u3040-ゟ゠-ヿ]+',
    '[!"#$%&\'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+',
)
_DEEPSEEK_CODER_REGEXES = (
    '[\r\n]',
    '\\s?\\p{L}+',
    '\\s?\\p{P}+',
    '[一-龥ࠀ-一가-\ud7ff]+',
    '\\p{N}',
)


class Pre:
    """What llama.cpp does for a tokenizer.ggml.pre name: its regexes (applied one after another),
    whether a word that is a token skips the merges, whether BOS is added by default, and whether
    detokenize cleans spaces."""

    def __init__(self, regexes, *, ignore_merges=False, add_bos=False, clean_spaces=True, std_regex=False):
        self.regexes, self.ignore_merges, self.add_bos, self.clean_spaces = tuple(regexes), ignore_merges, add_bos, clean_spaces
        self.std_regex = std_regex  # run as llama.cpp runs std::regex patterns (core.llama_cpp.StdRegexSplit)


_LLAMA3_PRE = Pre([_LLAMA3], ignore_merges=True, add_bos=True)
_QWEN2_PRE = Pre([_QWEN2], clean_spaces=False)
_STARCODER_PRE = Pre([r"\p{N}", _GPT2])
# tokenizer.ggml.pre -> llama.cpp's handling (llama-vocab.cpp): its hand-written splitters and plain
# character classes, which the `regex` module reproduces, and the lists it runs through std::regex
# on text rewritten to one character per Unicode class (std_regex).
PRES: dict[str, Pre] = {
    **dict.fromkeys(("llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2"),
                    _LLAMA3_PRE),
    **dict.fromkeys(("dbrx", "smaug-bpe"), Pre([_LLAMA3])),
    **dict.fromkeys(("qwen2", "deepseek-r1-qwen", "kormo", "f2llmv2"), _QWEN2_PRE),
    **dict.fromkeys(("stablelm2", "megrez"), Pre([_QWEN2])),
    **dict.fromkeys(("gpt-2", "phi-2", "olmo"), Pre([_GPT2])),
    **dict.fromkeys(("starcoder", "refact", "codeshell", "exaone", "minerva-7b"), _STARCODER_PRE),
    **dict.fromkeys(("smollm", "command-r"), Pre([r"\p{N}", _GPT2], clean_spaces=False)),
    "falcon": Pre([r"[\p{P}\$\+<=>\^~\|`]+", _GPT2, "[0-9][0-9][0-9]"]),
    **dict.fromkeys(("gpt-4o", "llama4", "kanana2", "talkie"), Pre(_GPT4O_REGEXES, clean_spaces=False, std_regex=True)),
    "tekken": Pre(_TEKKEN_REGEXES, ignore_merges=True, add_bos=True, clean_spaces=False, std_regex=True),
    "deepseek-llm": Pre(_DEEPSEEK_LLM_REGEXES, clean_spaces=False, std_regex=True),
    "deepseek-coder": Pre(_DEEPSEEK_CODER_REGEXES, clean_spaces=False, std_regex=True),
    **dict.fromkeys(("deepseek-v3", "joyai-llm"), Pre(_DEEPSEEK_V3_REGEXES, clean_spaces=False, std_regex=True)),
    "default": Pre([r"[\p{P}\$\+<=>\^~\|]+", _GPT2, r"\p{N}+", "[0-9][0-9][0-9]"]),
}
KEYS_READ = ("tokenizer.", "general.architecture", "general.name")
_MODEL_NAMES = {"gpt2": "byte-level BPE", "llama": "sentencepiece BPE", "bert": "WordPiece", "t5": "Unigram",
                "rwkv": "RWKV", "plamo2": "PLaMo-2", "none": "no tokenizer"}
_SPECIAL_KEYS = ("bos", "eos", "eot", "eom", "unknown", "seperator", "padding", "mask", "fim_pre", "fim_suf",
                 "fim_mid", "fim_pad", "fim_rep", "fim_sep")


def read_gguf(path: str | os.PathLike) -> Tokenizer:
    path = Path(path)
    meta = read_metadata(path, lambda key: key.startswith(KEYS_READ))
    model = meta.get("tokenizer.ggml.model")
    if model is None:
        raise TokvizError("this GGUF file holds no tokenizer (no tokenizer.ggml.model)", path)
    if model == "gpt2":
        tok = _byte_level_bpe(meta, path)
    elif model == "llama":
        tok = _sentencepiece_bpe(meta, path)
    elif model == "bert":
        tok = _wordpiece(meta, path)
    elif model == "t5":
        tok = _unigram(meta, path)
    else:
        what = _MODEL_NAMES.get(model, "a tokenizer")
        raise TokvizError(f"tokenizer.ggml.model {model!r} ({what}) is not implemented: tokviz reads GGUF "
                          "tokenizers of the models 'gpt2' (byte-level BPE), 'llama' (sentencepiece BPE), 'bert' "
                          "(WordPiece) and 't5' (Unigram)", path)
    tok.added.longest_first = True  # (llama.cpp's order of matching special tokens in text)
    tok.chat_templates = _chat_templates(meta, path)
    return tok


def _vocabulary(meta: dict, path: Path) -> tuple[list[str], list[int], dict[str, int]]:
    """(tokens, their types as llama.cpp adjusts them, the special ids the file names)."""
    tokens = meta.get("tokenizer.ggml.tokens")
    if not isinstance(tokens, list) or not tokens or not all(isinstance(t, str) for t in tokens):
        raise TokvizError("tokenizer.ggml.tokens: missing, empty or not an array of strings", path)
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
    kinds = token_attributes(tokens, [int(t) for t in types], set(ids))
    return tokens, kinds, ids


def _added_tokens(tokens: list[str], kinds: list[int], meta: dict) -> list[dict]:
    """tokenizer.json added_tokens: control and unknown tokens special (matched in text only when
    special tokens are), user-defined ones always matched; per-model strip rules as llama.cpp's."""
    name = str(meta.get("general.name") or "").lower()
    phi3 = "phi-3" in name or "phi3" in name
    out = []
    for i, (content, kind) in enumerate(zip(tokens, kinds)):
        if kind in (CONTROL, USER_DEFINED, UNKNOWN):
            special = kind != USER_DEFINED
            rstrip = phi3 and special and content not in ("<unk>", "<s>", "<|endoftext|>")
            out.append({"id": i, "content": content, "single_word": False, "lstrip": False, "rstrip": rstrip,
                        "normalized": False, "special": special})
    return out


def _added_token_objects(tokens: list[str], kinds: list[int], meta: dict) -> list:
    from ..core.added import AddedToken

    return [AddedToken(t["content"], t["id"], special=t["special"], rstrip=t["rstrip"], normalized=False)
            for t in _added_tokens(tokens, kinds, meta)]


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


def _byte_level_bpe(meta: dict, path: Path) -> Tokenizer:
    from .hf_json import build_hf_tokenizer

    tokens, kinds, ids = _vocabulary(meta, path)
    pre_name = meta.get("tokenizer.ggml.pre") or "default"
    pre = PRES.get(pre_name)
    if pre is None:
        known = ", ".join(sorted(PRES))
        raise TokvizError(f"tokenizer.ggml.pre {pre_name!r}: tokviz does not implement llama.cpp's pre-tokenizer of "
                          f"that name (it implements: {known})", path)
    merges = meta.get("tokenizer.ggml.merges")
    if not isinstance(merges, list) or not all(isinstance(m, str) for m in merges):
        raise TokvizError("tokenizer.ggml.merges: missing or not an array of strings (a 'gpt2' tokenizer needs its "
                          "merges)", path)
    bos, eos, add_bos, add_eos = _ends(meta, ids, pre.add_bos, 11, 11)
    splits = [] if pre.std_regex else [
        {"type": "Split", "pattern": {"Regex": r}, "behavior": "Isolated", "invert": False} for r in pre.regexes]
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
    tok.post_processor = _template(tokens, bos if add_bos else None, eos if add_eos else None)
    if pre.std_regex:
        from ..core.pre_tokenizers import ByteLevel, Sequence

        try:
            steps = [StdRegexSplit(r) for r in pre.regexes]
        except TokvizError as exc:
            raise TokvizError(f"tokenizer.ggml.pre {pre_name!r}: {exc.reason}", path) from None
        tok.pre_tokenizer = Sequence(steps + [ByteLevel(add_prefix_space=False, use_regex=False)])
    space_prefix = bool(meta.get("tokenizer.ggml.add_space_prefix", False))  # (only decode reads it here)
    tok.decode_fn = Detokenizer(tokens, kinds, byte_level=True, add_space_prefix=space_prefix, clean_spaces=pre.clean_spaces,
                                bos=bos, eos=eos, add_bos=add_bos, add_eos=add_eos)
    tok.source.format = "gguf"
    tok.source.extra.update({"gguf_model": "gpt2", "gguf_pre": pre_name, "add_bos": add_bos, "add_eos": add_eos})
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
    lowercase = bool(meta.get("tokenizer.ggml.normalizer.lowercase", False))
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
                     remove_extra_whitespaces=bool(meta.get("tokenizer.ggml.remove_extra_whitespaces", False)))
    return _llama_tokenizer(
        model, tokens, kinds, meta, path,
        post_processor=_template(tokens, bos if add_bos else None, eos if add_eos else None),
        extra={"gguf_model": "t5", "add_space_prefix": add_space_prefix, "add_eos": add_eos},
        decode={"add_space_prefix": add_space_prefix, "clean_spaces": False, "bos": bos, "eos": eos,
                "add_bos": add_bos, "add_eos": add_eos})


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
