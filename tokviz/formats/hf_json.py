"""Hugging Face `tokenizer.json`: the whole pipeline, component by component."""
from __future__ import annotations

import base64
import re
import math
from pathlib import Path

from ..core import decoders as dec
from ..core import normalizers as norm
from ..core import post_processors as post
from ..core import pre_tokenizers as pre
from ..core.added import AddedToken, AddedVocabulary, resolve_hf_added_tokens
from ..core.charsmap import CharsMap, sentencepiece_charsmap_problem
from ..core.models import BPE, Unigram, WordLevel, WordPiece
from ..core.tokenizer import Source, Tokenizer
from ..errors import TokvizError
from ..messages import QT_TRANSLATE_NOOP, Message
from .hf_json_schema import check_serde_shapes
from ._util import IntegerAsFloat
from ._util import SELF_MERGE, Fields, check_vocab, first_bad_merge_line, first_surrogate, read_json, stem, surrogate_message


# The keys tokviz reads (or knows to change nothing) for each component; any other key is refused
# by name rather than ignored, since it may change what HF tokenizers does.
_KNOWN_KEYS = {
    "root": {"version", "truncation", "padding", "added_tokens", "normalizer", "pre_tokenizer", "post_processor",
             "decoder", "model"},
    "added_tokens": {"id", "content", "single_word", "lstrip", "rstrip", "normalized", "special"},
    "model.BPE": {"type", "dropout", "unk_token", "continuing_subword_prefix", "end_of_word_suffix", "fuse_unk",
                  "byte_fallback", "ignore_merges", "vocab", "merges"},
    "model.WordPiece": {"type", "unk_token", "continuing_subword_prefix", "max_input_chars_per_word", "vocab"},
    "model.WordLevel": {"type", "unk_token", "vocab"},
    "model.Unigram": {"type", "unk_id", "vocab", "byte_fallback"},
    "normalizer.Replace": {"type", "pattern", "content"},
    "normalizer.Prepend": {"type", "prepend"},
    "normalizer.Strip": {"type", "strip_left", "strip_right"},
    "normalizer.BertNormalizer": {"type", "clean_text", "handle_chinese_chars", "strip_accents", "lowercase"},
    "normalizer.Precompiled": {"type", "precompiled_charsmap"},
    "normalizer.Sequence": {"type", "normalizers"},
    # (ByteLevel's trim_offsets acts in the post-processor only)
    "pre_tokenizer.ByteLevel": {"type", "add_prefix_space", "trim_offsets", "use_regex"},
    "pre_tokenizer.Split": {"type", "pattern", "behavior", "invert"},
    "pre_tokenizer.Metaspace": {"type", "replacement", "prepend_scheme", "split", "add_prefix_space", "str_rep"},
    "pre_tokenizer.Punctuation": {"type", "behavior"},
    "pre_tokenizer.Digits": {"type", "individual_digits"},
    "pre_tokenizer.CharDelimiterSplit": {"type", "delimiter"},
    "pre_tokenizer.FixedLength": {"type", "length"},
    "pre_tokenizer.Sequence": {"type", "pretokenizers"},
    # (a template's type ids and pair template change no id of a single sequence)
    "post_processor.TemplateProcessing": {"type", "single", "pair", "special_tokens"},
    "post_processor.BertProcessing": {"type", "sep", "cls"},
    "post_processor.RobertaProcessing": {"type", "sep", "cls", "trim_offsets", "add_prefix_space"},
    "post_processor.ByteLevel": {"type", "add_prefix_space", "trim_offsets", "use_regex"},
    "post_processor.Sequence": {"type", "processors"},
    "decoder.ByteLevel": {"type", "add_prefix_space", "trim_offsets", "use_regex"},
    "decoder.WordPiece": {"type", "prefix", "cleanup"},
    "decoder.Metaspace": {"type", "replacement", "prepend_scheme", "split", "add_prefix_space", "str_rep"},
    "decoder.BPEDecoder": {"type", "suffix"},
    "decoder.Strip": {"type", "content", "start", "stop"},
    "decoder.Replace": {"type", "pattern", "content"},
    "decoder.CTC": {"type", "pad_token", "word_delimiter_token", "cleanup"},
    "decoder.Sequence": {"type", "decoders"},
}


def _only_known_keys(f: Fields, section: str, kind: str | None) -> None:
    """Refuse a key tokviz does not implement for this component (a type not listed takes only "type")."""
    known = _KNOWN_KEYS.get(section if kind is None else f"{section}.{kind}", {"type"})
    unknown = sorted(k for k in f.data if k not in known)
    if unknown:
        what = f"{kind} {section.replace('_', '-')}" if kind else section.replace("_", " ")
        f.fail(Message(QT_TRANSLATE_NOOP("formats", "the {what} has {keys}, which tokviz does not implement"), what=what,
                       keys=", ".join(map(repr, unknown))))


def read_hf_json(path: Path) -> Tokenizer:
    data = read_json(path, serde=True)
    if isinstance(data, dict) and "model" in data:
        check_serde_shapes(data, path)  # (a file's fields as HF reads them; built data skips this)
    return build_hf_tokenizer(data, path)


def build_hf_tokenizer(data, path: Path, name: str | None = None) -> Tokenizer:
    """The Tokenizer of a parsed tokenizer.json (`path`: the file it came from, for errors)."""
    root = Fields(data, path)
    if not root.has("model"):
        if root.has("vocab") and isinstance(root.data.get("config"), dict) and "pattern" in root.data["config"]:
            from .tekken import build_tekken  # (a tekken.json that detection did not route to its reader)

            return build_tekken(data, path)
        root.fail(QT_TRANSLATE_NOOP("formats", "not a tokenizer.json (no 'model' field)"))
    _only_known_keys(root, "root", None)
    model = _model(root.obj("model", required=True))
    normalizer = _normalizer(root.obj("normalizer"))
    pre_tokenizer = _pre_tokenizer(root.obj("pre_tokenizer"))
    post_processor = _post_processor(root.obj("post_processor"))
    decoder = _decoder(root.obj("decoder"))
    entries = []
    for f in root.items("added_tokens") if root.has("added_tokens") else []:
        _only_known_keys(f, "added_tokens", None)
        f.get("id", int, required=True)
        _id(f, "id", 1 << 32)  # (HF reads it as an unsigned 32-bit number, then assigns ids itself)
        content = f.get("content", str, required=True)
        if first_surrogate([content]) is not None:
            f.fail(surrogate_message(content, "content"))
        special = f.get("special", bool, False)
        entries.append(AddedToken(
            content=content,
            id=f.data["id"],
            special=special,
            lstrip=f.get("lstrip", bool, False),
            rstrip=f.get("rstrip", bool, False),
            single_word=f.get("single_word", bool, False),
            normalized=f.get("normalized", bool, not special),
        ))
    resolved = resolve_hf_added_tokens(entries, model.token_to_id, model.vocab_size,
                                       normalizer.normalize_str if normalizer is not None else None)
    ids_of_added = {t.id: t.content for t in resolved.tokens}
    _check_post_processor_ids(root.obj("post_processor"), model, ids_of_added)
    if name is None:
        name = Path(path).parent.name if Path(path).name == "tokenizer.json" else stem(path)
    extra = {}
    if root.has("truncation"):
        extra["truncation"] = root.data["truncation"]
    if root.has("padding"):
        extra["padding"] = root.data["padding"]
    tokenizer = Tokenizer(
        model,
        normalizer=normalizer,
        pre_tokenizer=pre_tokenizer,
        post_processor=post_processor,
        decoder=decoder,
        added_tokens=(),  # (set below, as HF tokenizers resolves them)
        special_in_text=True,
        space_marker=_space_marker(pre_tokenizer, decoder),
        source=Source("hf-json", str(path), name, extra),
    )
    patterns = {False: resolved.raw_patterns, True: resolved.normalized_patterns}
    for normalized, pairs in patterns.items():
        _refuse_shared_match_string(root, pairs, normalized)
    tokenizer.added = AddedVocabulary(resolved.tokens, patterns=patterns)
    return tokenizer


def _refuse_shared_match_string(root: Fields, pairs: list[tuple[str, int]], normalized: bool) -> None:
    """Two added tokens matched by the same string: HF tokenizers keeps its tokens in a hash map
    and picks one of them at random in each process, so no ids can be reproduced."""
    seen: dict[str, int] = {}
    for content, token_id in pairs:
        if not content:
            root.fail(f"added_tokens: the normalized token with id {token_id} is the empty string after the "
                      "normalizer; HF tokenizers would match the empty string everywhere in the text, which "
                      "tokviz does not implement")
        if content in seen and seen[content] != token_id:
            where = "normalized text (after the normalizer)" if normalized else "raw text"
            root.fail(f"added_tokens: the tokens with ids {seen[content]} and {token_id} are both matched as "
                      f"{content!r} in the {where}; HF tokenizers then picks one of the two at random in "
                      "each run, so tokviz does not load this file")
        seen[content] = token_id


def _id(f: Fields, key: str, limit: int = 1 << 31) -> int:
    value = f.get(key, int, required=True)
    if value < 0 or value >= limit:
        f.fail(f"{key} {value} is out of range")
    return value


def _check_post_processor_ids(f: Fields | None, model, ids_of_added: dict[int, str]) -> None:
    """The special tokens a post-processor adds must be tokens: an id no token has cannot be
    shown or decoded (and a huge one would size tables by id)."""
    if f is None:
        return
    known = set(model.vocab.values())
    for where, token_id in _post_processor_ids(f):
        if token_id not in known and token_id not in ids_of_added:
            f.fail(f"{where}: id {token_id} is the id of no token in the vocabulary or the added tokens")


def _post_processor_ids(f: Fields) -> list[tuple[str, int]]:
    kind = f.type_name()
    if kind in ("BertProcessing", "RobertaProcessing"):
        return [(key, f.data[key][1]) for key in ("sep", "cls")]
    if kind == "TemplateProcessing":
        specials = f.data.get("special_tokens") or {}
        return [(f"special_tokens.{name}", i) for name, spec in specials.items() for i in spec["ids"]]
    if kind == "Sequence":
        return [pair for sub in f.items("processors") for pair in _post_processor_ids(sub)]
    return []


def _space_marker(pre_tokenizer, decoder) -> str | None:
    for component in _walk(pre_tokenizer) + _walk(decoder):
        if isinstance(component, (pre.Metaspace, dec.Metaspace)):
            return component.replacement
    return None


def _walk(component) -> list:
    if component is None:
        return []
    inner = getattr(component, "pre_tokenizers", None) or getattr(component, "decoders", None)
    if inner:
        out = []
        for c in inner:
            out.extend(_walk(c))
        return out
    return [component]


# ---- model ------------------------------------------------------------------------------

def _vocab_dict(f: Fields) -> dict[str, int]:
    vocab = f.get("vocab", dict, required=True)
    check_vocab(vocab, lambda message: f.fail(f"vocab: {message}"))
    return vocab


def _model(f: Fields):
    kind = f.type_name()
    if kind is None:  # files written by old versions carry no type
        vocab = f.data.get("vocab")
        kind = "BPE" if f.has("merges") else "Unigram" if isinstance(vocab, list) else "WordPiece" if f.has("continuing_subword_prefix") else "WordLevel"
    if kind in ("BPE", "WordPiece", "WordLevel", "Unigram"):
        _only_known_keys(f, "model", kind)
    if kind == "BPE":
        return _bpe(f)
    if kind == "WordPiece":
        return WordPiece(
            _vocab_dict(f),
            unk_token=f.get("unk_token", str, "[UNK]"),
            continuing_subword_prefix=f.get("continuing_subword_prefix", str, "##"),
            max_input_chars_per_word=f.get("max_input_chars_per_word", int, 100),
        )
    if kind == "WordLevel":
        return WordLevel(_vocab_dict(f), unk_token=f.get("unk_token", str, "<unk>"))
    if kind == "Unigram":
        raw = f.get("vocab", list, required=True)
        pieces = []
        for i, item in enumerate(raw):
            if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)
                    and type(item[1]) in (int, float, IntegerAsFloat)):
                f.fail(f"vocab[{i}] should be [piece, score], got {item!r:.60}")
            if not math.isfinite(item[1]):
                f.fail(f"vocab[{i}] {item[0]!r} has the score {item[1]}, expected a finite number")
            pieces.append((item[0], float(item[1])))
        bad = first_surrogate([p for p, _ in pieces])
        if bad is not None:
            f.fail(surrogate_message(bad, "piece"))
        unk_id = f.get("unk_id", int)
        if unk_id is not None and not 0 <= unk_id < len(pieces):
            f.fail(f"unk_id {unk_id} is outside the vocabulary of {len(pieces)}")
        byte_fallback = f.get("byte_fallback", bool, False)
        return Unigram(pieces, unk_id=unk_id, byte_fallback=byte_fallback)
    f.fail(Message(QT_TRANSLATE_NOOP("formats", "unsupported model type {kind!r}"), kind=kind))


def _bpe(f: Fields) -> BPE:
    dropout = f.get("dropout", (int, float))
    if dropout is not None and dropout != 0:
        f.fail(Message(QT_TRANSLATE_NOOP("formats", "dropout {dropout} is not supported: BPE dropout skips merges at "
                                                    "random, tokviz encodes deterministically (dropout null or 0)"),
                       dropout=dropout))
    vocab = _vocab_dict(f)
    raw = f.get("merges", list, [])
    prefix = f.get("continuing_subword_prefix", str) or ""
    lines = None
    if not prefix and set(map(type, raw)) <= {str}:
        # The common case, kept at C speed (files carry 100k-300k merges): ranks are looked up by
        # the "a b" line itself, and each merge's result must be a token.
        lines, merges = raw, None
        bad = first_bad_merge_line(vocab, raw)
        if bad is not None:
            f.fail(f"merges[{bad[0]}]: {bad[1]}")
        parts = set(" ".join(raw).split(" "))  # (each line holds exactly one space: checked above)
        if raw and not parts <= vocab.keys():
            i, part = next((i, p) for i, line in enumerate(raw) for p in line.split(" ") if p not in vocab)
            f.fail(f"merges[{i}] {raw[i]!r} uses {part!r}, which is not in the vocabulary (HF tokenizers refuses it)")
    else:
        merges = []
        for i, m in enumerate(raw):
            parts = m.split(" ") if isinstance(m, str) else m
            if not isinstance(parts, list) or len(parts) != 2 or not all(type(x) is str for x in parts):
                f.fail(f"merges[{i}] should be 'a b' or [a, b], got {m!r:.60}")
            a, b = parts
            if not a or len(b) <= len(prefix):
                f.fail(f"merges[{i}] ({a!r}, {b!r}) has an empty part: {SELF_MERGE}")
            for t in (a, b, a + b[len(prefix):]):
                if t not in vocab:
                    f.fail(f"merges[{i}] ({a!r}, {b!r}) uses {t!r}, which is not in the vocabulary")
            merges.append((a, b))
    unk = f.get("unk_token", str)
    if unk is not None and unk not in vocab:
        f.fail(f"unk_token {unk!r} is not in the vocabulary: HF tokenizers fails on every text with a character "
               "outside the vocabulary, which tokviz does not reproduce")
    return BPE(
        vocab,
        merges,
        merge_lines=lines,
        unk_token=unk,
        continuing_subword_prefix=prefix,
        end_of_word_suffix=f.get("end_of_word_suffix", str) or "",
        fuse_unk=f.get("fuse_unk", bool, False),
        byte_fallback=f.get("byte_fallback", bool, False),
        ignore_merges=f.get("ignore_merges", bool, False),
    )


# ---- normalizers ------------------------------------------------------------------------

def _pattern(f: Fields) -> tuple[str, bool]:
    p = f.obj("pattern", required=True)
    if p.has("Regex"):
        return p.get("Regex", str), True
    if p.has("String"):
        return p.get("String", str), False
    p.fail("pattern must be {'String': ...} or {'Regex': ...}")


def _normalizer(f: Fields | None):
    if f is None:
        return None
    kind = f.type_name()
    _only_known_keys(f, "normalizer", kind)
    if kind in ("NFC", "NFD", "NFKC", "NFKD"):
        return norm.UnicodeForm(kind)
    if kind == "Lowercase":
        return norm.Lowercase()
    if kind == "StripAccents":
        return norm.StripAccents()
    if kind == "Replace":
        pattern, is_regex = _pattern(f)
        return norm.Replace(pattern, f.get("content", str, ""), is_regex)
    if kind == "Prepend":
        return norm.Prepend(f.get("prepend", str, required=True))
    if kind == "Strip":
        return norm.Strip(f.get("strip_left", bool, True), f.get("strip_right", bool, True))
    if kind == "BertNormalizer":
        return norm.BertNormalizer(
            clean_text=f.get("clean_text", bool, True),
            handle_chinese_chars=f.get("handle_chinese_chars", bool, True),
            strip_accents=f.get("strip_accents", bool, None),
            lowercase=f.get("lowercase", bool, True),
        )
    if kind == "Nmt":
        return norm.Nmt()
    if kind == "ByteLevel":
        return norm.ByteLevelNormalizer()
    if kind == "Precompiled":
        blob = hf_base64(f.get("precompiled_charsmap", str, required=True))
        if blob is None:
            f.fail("precompiled_charsmap is not valid base64 (HF tokenizers reads the standard alphabet, "
                   "padding optional, no white space, unused bits zero)")
        if not blob:
            f.fail("precompiled_charsmap is empty (HF tokenizers cannot parse it)")
        problem = sentencepiece_charsmap_problem(blob)
        if problem is not None:  # (HF tokenizers does not check the trie: it fails on such a blob when encoding)
            f.fail(f"precompiled_charsmap {problem} (HF tokenizers cannot use it)")
        return norm.Precompiled(CharsMap(blob, source=f.path))
    if kind == "Sequence":
        return norm.Sequence([_normalizer(x) for x in f.items("normalizers")])
    f.fail(Message(QT_TRANSLATE_NOOP("formats", "unsupported normalizer type {kind!r}"), kind=kind))


_BASE64 = re.compile(r"[A-Za-z0-9+/]*")


def hf_base64(text: str) -> bytes | None:
    """The bytes of base64 `text` as HF tokenizers decodes a precompiled charsmap (standard
    alphabet; the closing '=' padding may be left out but, when present, must be complete; the
    unused bits of the last symbol must be zero), or None when it refuses the text."""
    body = text.rstrip("=")
    padding = len(text) - len(body)
    if not _BASE64.fullmatch(body) or len(body) % 4 == 1 or (padding and (len(text) % 4 or padding > 2)):
        return None
    data = base64.b64decode(body + "=" * (-len(body) % 4))
    if base64.b64encode(data).decode("ascii").rstrip("=") != body:
        return None  # (a last symbol with unused bits set)
    return data


# ---- pre-tokenizers ---------------------------------------------------------------------

def _behavior(f: Fields, default: str) -> str:
    value = f.get("behavior", str, default)
    if value not in pre.BEHAVIORS:
        f.fail(f"unknown split behavior {value!r} (expected one of {', '.join(pre.BEHAVIORS)})")
    return value


def _prepend_scheme(f: Fields) -> str:
    scheme = f.get("prepend_scheme", str)
    if scheme is None:
        return "always" if f.get("add_prefix_space", bool, True) else "never"
    if scheme not in ("always", "first", "never"):
        f.fail(f"unknown prepend_scheme {scheme!r}")
    if scheme == "always" and f.get("add_prefix_space", bool, True) is False:
        f.fail("add_prefix_space false contradicts prepend_scheme 'always' (HF tokenizers refuses it too)")
    return scheme


MAX_FIXED_LENGTH = 1 << 30  # characters in a FixedLength piece (HF refuses 0)


def _pre_tokenizer(f: Fields | None):
    if f is None:
        return None
    kind = f.type_name()
    _only_known_keys(f, "pre_tokenizer", kind)
    if kind == "Split":
        pattern, is_regex = _pattern(f)
        return pre.Split(pattern, _behavior(f, "Isolated"), f.get("invert", bool, False), is_regex)
    if kind == "ByteLevel":
        return pre.ByteLevel(f.get("add_prefix_space", bool, True), f.get("use_regex", bool, True))
    if kind == "Metaspace":
        return pre.Metaspace(f.get("replacement", str, "▁"), _prepend_scheme(f), f.get("split", bool, True))
    if kind == "Whitespace":
        return pre.Whitespace()
    if kind == "WhitespaceSplit":
        return pre.WhitespaceSplit()
    if kind == "BertPreTokenizer":
        return pre.BertPreTokenizer()
    if kind == "Punctuation":
        return pre.Punctuation(_behavior(f, "Isolated"))
    if kind == "Digits":
        return pre.Digits(f.get("individual_digits", bool, False))
    if kind == "UnicodeScripts":
        return pre.UnicodeScripts()
    if kind == "CharDelimiterSplit":
        return pre.CharDelimiterSplit(f.get("delimiter", str, required=True))
    if kind == "FixedLength":
        length = f.get("length", int, 5)
        if not 1 <= length <= MAX_FIXED_LENGTH:
            f.fail(f"length {length} is out of range (1 to {MAX_FIXED_LENGTH} characters)")
        return pre.FixedLength(length)
    if kind == "Sequence":
        return pre.Sequence([_pre_tokenizer(x) for x in f.items("pretokenizers")])
    f.fail(Message(QT_TRANSLATE_NOOP("formats", "unsupported pre-tokenizer type {kind!r}"), kind=kind))


# ---- post-processors --------------------------------------------------------------------

def _pair(f: Fields, key: str) -> tuple[int, str]:
    value = f.get(key, list, required=True)
    if len(value) != 2 or not isinstance(value[0], str) or type(value[1]) is not int:
        f.fail(f"{key} should be [token, id], got {value!r:.60}")
    return value[1], value[0]


def _post_processor(f: Fields | None):
    if f is None:
        return None
    kind = f.type_name()
    _only_known_keys(f, "post_processor", kind)
    if kind == "TemplateProcessing":
        single = []
        for item in f.get("single", list, required=True):
            if isinstance(item, dict) and "SpecialToken" in item and isinstance(item["SpecialToken"], dict):
                single.append(("special", str(item["SpecialToken"].get("id"))))
            elif isinstance(item, dict) and "Sequence" in item:
                single.append(("sequence", "A"))
            else:
                f.fail(f"unknown template piece {item!r:.60}")
        specials = {}
        for name, spec in (f.get("special_tokens", dict, {}) or {}).items():
            sf = Fields(spec, f.path, f"{f.where}.special_tokens.{name}")
            ids = sf.get("ids", list, required=True)
            toks = sf.get("tokens", list, required=True)
            if len(ids) != len(toks) or not all(type(i) is int for i in ids):
                sf.fail("ids and tokens must be lists of the same length")
            specials[name] = list(zip(ids, toks))
        return post.TemplateProcessing(single, specials)
    if kind == "BertProcessing":
        return post.BertProcessing(_pair(f, "sep"), _pair(f, "cls"))
    if kind == "RobertaProcessing":
        return post.RobertaProcessing(_pair(f, "sep"), _pair(f, "cls"), f.get("trim_offsets", bool, True),
                                      f.get("add_prefix_space", bool, True))
    if kind == "ByteLevel":
        return post.ByteLevel(f.get("trim_offsets", bool, True), f.get("add_prefix_space", bool, True))
    if kind == "Sequence":
        return post.Sequence([_post_processor(x) for x in f.items("processors")])
    f.fail(Message(QT_TRANSLATE_NOOP("formats", "unsupported post-processor type {kind!r}"), kind=kind))


# ---- decoders ---------------------------------------------------------------------------

MAX_STRIP = 1024  # characters a Strip decoder may remove from each end of a token


def _count(f: Fields, key: str) -> int:
    value = f.get(key, int, 0)
    if not 0 <= value <= MAX_STRIP:
        f.fail(f"{key} {value} is out of range (0 to {MAX_STRIP} characters)")
    return value


def _decoder(f: Fields | None):
    if f is None:
        return None
    kind = f.type_name()
    _only_known_keys(f, "decoder", kind)
    if kind == "ByteLevel":
        return dec.ByteLevel()
    if kind == "WordPiece":
        return dec.WordPiece(f.get("prefix", str, "##"), f.get("cleanup", bool, True))
    if kind == "Metaspace":
        return dec.Metaspace(f.get("replacement", str, "▁"), _prepend_scheme(f))
    if kind == "BPEDecoder":
        return dec.BPEDecoder(f.get("suffix", str, "</w>"))
    if kind == "ByteFallback":
        return dec.ByteFallback()
    if kind == "Fuse":
        return dec.Fuse()
    if kind == "Strip":
        return dec.Strip(f.get("content", str, " "), _count(f, "start"), _count(f, "stop"))
    if kind == "Replace":
        pattern, is_regex = _pattern(f)
        return dec.Replace(pattern, f.get("content", str, ""), is_regex)
    if kind == "CTC":
        return dec.CTC(f.get("pad_token", str, "<pad>"), f.get("word_delimiter_token", str, "|"), f.get("cleanup", bool, True))
    if kind == "Sequence":
        return dec.Sequence([_decoder(x) for x in f.items("decoders")])
    f.fail(Message(QT_TRANSLATE_NOOP("formats", "unsupported decoder type {kind!r}"), kind=kind))


__all__ = ["read_hf_json", "TokvizError"]
