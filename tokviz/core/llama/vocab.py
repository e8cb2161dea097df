"""What llama.cpp's llama-vocab.cpp shares between its tokenizers, for the GGUF files (formats/gguf.py).

- `token_attributes`: the token types a file stores, as llama.cpp adjusts them at load time
  (end-of-generation and fill-in-the-middle tokens it recognises by their text become control
  tokens; a few gpt-oss tokens are always matched in text).
- `LlamaSPM`: its sentencepiece-style BPE ("llama" model): adjacent symbols merge when their
  concatenation is a token, highest score first (the leftmost on a tie), and a final symbol that is
  no token is split back into the pair it came from, then into byte tokens `<0xXX>`.
- `LlamaWPM` and `LlamaUGM`: its WordPiece ("bert") and Unigram ("t5") tokenizers.
- `StdRegexSplit`: the pre-tokenizer regexes it runs through std::regex, on text rewritten to one
  character per Unicode class.
- `Detokenizer`: its detokenize (decode): control and unknown tokens dropped unless special tokens
  are kept, user-defined ones as written, one leading space removed where a space prefix is added,
  and the pre-tokenizer's space clean-up.
"""
from __future__ import annotations

import heapq

from ...errors import TokvizError
from ..bytelevel import CHAR_TO_BYTE
from .classes import difference, lowercase_differences, nfd_differences, whitespace
from ..models.base import Model, Token
from ..patterns import bounded_spans
from ..pre_tokenizers import PreTokenizer, split_normalized

# token types as GGUF stores them (tokenizer.ggml.token_type)
UNDEFINED, NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = range(7)

# Tokens llama.cpp makes control tokens by their text (llama-vocab.cpp, "auto-detect special tokens").
END_OF_GENERATION = frozenset({
    "<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>", "<|flush|>", "<|calls|>", "<end_of_turn>",
    "<|endoftext|>", "</s>", "<|eom_id|>", "<EOT>", "_<EOT>", "[EOT]", "[EOS]", "<|end_of_text|>",
    "<end_of_utterance>", "<eos>", "<turn|>", "<|tool_response>", "<\uff5cend\u2581of\u2581sentence\uff5c>", "[e~[",
})
# fill-in-the-middle tokens: the one found of each kind becomes a control token when the file names none
FILL_IN_THE_MIDDLE = {
    "fim_pre": ("<|fim_prefix|>", "<fim-prefix>", "<fim_prefix>", "<\uff5cfim\u2581begin\uff5c>", "<PRE>", "\u2581<PRE>",
                "<|code_prefix|>", "<|prefix|>"),
    "fim_suf": ("<|fim_suffix|>", "<fim-suffix>", "<fim_suffix>", "<\uff5cfim\u2581hole\uff5c>", "<SUF>", "\u2581<SUF>",
                "<|code_suffix|>", "<|suffix|>"),
    "fim_mid": ("<|fim_middle|>", "<fim-middle>", "<fim_middle>", "<\uff5cfim\u2581end\uff5c>", "<MID>", "\u2581<MID>",
                "<|code_middle|>", "<|middle|>"),
    "fim_pad": ("<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]"),
    "fim_rep": ("<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>", "<reponame>"),
    "fim_sep": ("<|file_sep|>",),
}
ALWAYS_MATCHED = frozenset({"<|channel|>", "<|message|>", "<|start|>", "<|constrain|>"})  # (gpt-oss)


def token_attributes(tokens: list[str], types: list[int], named_ids: set[str], eos: int | None = None) -> list[int]:
    """The token types llama.cpp works with: `types` (a type it does not know read as UNDEFINED,
    which no text matches and which decodes to nothing) with its load-time changes.  `named_ids`:
    the special-token kinds the file gives ids for ("fim_pre", ...), which llama.cpp then does not
    look for by text; `eos`: the end-of-sequence id."""
    kinds = [t if NORMAL <= t <= BYTE else UNDEFINED for t in types]
    index = {t: i for i, t in enumerate(tokens)}
    for kind, texts in FILL_IN_THE_MIDDLE.items():
        if kind in named_ids:
            continue
        found = [index[t] for t in texts if t in index]
        if len(found) == 1:  # (with several, llama.cpp takes whichever its hash map yields first)
            kinds[found[0]] = CONTROL if kinds[found[0]] in (NORMAL, USER_DEFINED, UNDEFINED) else kinds[found[0]]
    for text in END_OF_GENERATION:
        i = index.get(text)
        if i is not None and kinds[i] != CONTROL:
            kinds[i] = CONTROL
    for text in ALWAYS_MATCHED:
        i = index.get(text)
        if i is not None:
            kinds[i] = USER_DEFINED
    # gpt-oss and Solar Open: <|end|> ends no generation there, and is matched in text
    if "<|end|>" in index and (("<|return|>" in index and "<|call|>" in index)
                               or ("<|calls|>" in index and "<|flush|>" in index)):
        kinds[index["<|end|>"]] = USER_DEFINED
    # Gemma 4 and PLaMo-2: </s> is a normal token
    eos_text = tokens[eos] if eos is not None and 0 <= eos < len(tokens) else None
    if "</s>" in index and ("<|tool_response>" in index or eos_text == "<|plamo:eos|>"):
        kinds[index["</s>"]] = NORMAL
    return kinds


class LlamaSPM(Model):
    """llama.cpp's SPM tokenizer over a whole text fragment (spaces already written as '▁')."""

    kind = "BPE"

    def __init__(self, tokens: list[str], scores, kinds: list[int]):
        vocab = {}
        for i, t in enumerate(tokens):
            vocab.setdefault(t, i)
        super().__init__(vocab)
        self.scores = [float(s) for s in scores]
        self.kinds = kinds

    def describe(self) -> str:
        return "BPE (llama.cpp SPM: scores, byte fallback)"

    def tokenize(self, text: str) -> list[Token]:
        n = len(text)
        if not n:
            return []
        vocab, scores = self.vocab, self.scores
        starts = list(range(n))
        ends = list(range(1, n + 1))
        prev = list(range(-1, n - 1))
        nxt = list(range(1, n + 1))
        nxt[-1] = -1
        heap: list[tuple[float, int, int, int]] = []
        rev_merge: dict[str, tuple[str, str]] = {}

        def try_pair(left: int, right: int) -> None:
            a, m, b = starts[left], ends[left], ends[right]
            piece = text[a:b]
            token = vocab.get(piece)
            if token is None:
                return
            heapq.heappush(heap, (-scores[token], left, right, b - a))
            rev_merge[piece] = (text[a:m], text[m:b])

        for k in range(1, n):
            try_pair(k - 1, k)
        alive = [True] * n
        while heap:
            _, left, right, size = heapq.heappop(heap)
            if not (alive[left] and alive[right]) or ends[right] - starts[left] != size or nxt[left] != right:
                continue
            ends[left] = ends[right]
            alive[right] = False
            after = nxt[right]
            nxt[left] = after
            if after >= 0:
                prev[after] = left
            if prev[left] >= 0:
                try_pair(prev[left], left)
            if after >= 0:
                try_pair(left, after)
        out: list[Token] = []
        k = 0
        while k >= 0:
            self._resegment(text[starts[k]:ends[k]], starts[k], rev_merge, out)
            k = nxt[k]
        return out

    def _resegment(self, piece: str, pos: int, rev_merge, out: list[Token]) -> None:
        token = self.vocab.get(piece)
        if token is not None:
            out.append((token, pos, pos + len(piece)))
            return
        pair = rev_merge.get(piece)
        if pair is not None:
            self._resegment(pair[0], pos, rev_merge, out)
            self._resegment(pair[1], pos + len(pair[0]), rev_merge, out)
            return
        data = piece.encode("utf-8")
        for k, byte in enumerate(data):
            token = self.vocab.get(f"<0x{byte:02X}>")
            if token is None:
                token = self.vocab.get(chr(byte))
            if token is None:
                raise TokvizError(f"byte 0x{byte:02X} of {piece!r} has no token (no <0x{byte:02X}>): llama.cpp "
                                  "stops with an error on this text")
            # every byte token of a character spans the character (offsets are in characters)
            out.append((token, pos, pos + len(piece)) if len(piece) == 1 else (token, pos + min(k, len(piece) - 1),
                                                                                   pos + min(k + 1, len(piece))))


_LOWER = lowercase_differences()  # (where llama.cpp's tables and Python's unicodedata disagree)
_NFD = nfd_differences()
_CATEGORY = None  # compiled on first use: one named group per class of llama.cpp's code point flags


def _category(c: str) -> str:
    """llama.cpp's Unicode class of a character: "N", "L", "P", "M", "S", "C" (Cc Cf Co Cs), or ""
    (separators, unassigned)."""
    global _CATEGORY
    if _CATEGORY is None:
        import regex

        _CATEGORY = regex.compile(r"(?P<N>\p{N})|(?P<L>\p{L})|(?P<P>\p{P})|(?P<M>\p{M})|(?P<S>\p{S})"
                                  r"|(?P<C>[\p{Cc}\p{Cf}\p{Co}\p{Cs}])")
    kind = difference(ord(c))
    if kind is not None:
        return kind[0] if kind[0] in "NLPMSC" else ""
    m = _CATEGORY.match(c)
    return m.lastgroup if m else ""


def _cp_class(c: str) -> str:
    """The class WordPiece cuts by: whitespace "W" (llama.cpp's own set), control "C",
    punctuation "P", symbol "S", mark "M", or "" (letters, numbers, the rest)."""
    if c in " \t\n\x0b\x0c\r" or ord(c) in _WIDE_SPACES:
        return "W"
    kind = _category(c)
    return kind if kind in ("C", "P", "S", "M") else ""


def _is_chinese(cp: int) -> bool:
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x2A6DF or 0x2A700 <= cp <= 0x2B73F
            or 0x2B740 <= cp <= 0x2B81F or 0x2B920 <= cp <= 0x2CEAF or 0xF900 <= cp <= 0xFAFF
            or 0x2F800 <= cp <= 0x2FA1F)


class LlamaWPM(Model):
    """llama.cpp's WordPiece ("bert" model): words cut at whitespace and around punctuation, ASCII
    symbols and CJK characters (lowercased, accents stripped as the file says), each written with a
    leading '▁' and matched longest first; a word with a part no token matches is the unknown token.
    Token spans are in the characters of the text before that preparation."""

    kind = "WordPiece"

    def __init__(self, tokens: list[str], unk_id: int | None, *, lowercase: bool, strip_accents: bool):
        vocab = {}
        for i, t in enumerate(tokens):
            vocab.setdefault(t, i)
        super().__init__(vocab)
        self.unk_id = unk_id
        self.lowercase, self.strip_accents = lowercase, strip_accents
        self.max_len = max((len(t) for t in tokens), default=1)
        self._classes: dict[str, str] = {}

    def describe(self) -> str:
        return "WordPiece (llama.cpp WPM" + (", lowercase" if self.lowercase else "") + (
            ", strip accents" if self.strip_accents else "") + ")"

    def _words(self, text: str):
        """Each word as (its characters, the index in `text` each came from)."""
        import unicodedata

        classes = self._classes
        chars: list[str] = []
        where: list[int] = []
        for i, c in enumerate(text):
            # (llama.cpp's NFD keeps the first code point of each character's decomposition)
            for d in ((_NFD.get(c) or unicodedata.normalize("NFD", c)[:1]) if self.strip_accents else c):
                kind = classes.get(d)
                if kind is None:
                    kind = classes[d] = _cp_class(d)
                if kind == "W":
                    if chars:
                        yield chars, where
                        chars, where = [], []
                    continue
                cp = ord(d)
                if cp == 0 or cp == 0xFFFD or kind == "C" or (self.strip_accents and kind == "M"):
                    continue
                if self.lowercase:
                    d = _LOWER.get(d) or d.lower()[0]  # (llama.cpp's lowercase is one character)
                if kind == "P" or (cp < 0x7F and kind == "S") or _is_chinese(cp):
                    if chars:
                        yield chars, where
                    yield [d], [i]
                    chars, where = [], []
                else:
                    chars.append(d)
                    where.append(i)
        if chars:
            yield chars, where

    def tokenize(self, text: str) -> list[Token]:
        vocab, out = self.vocab, []
        for chars, where in self._words(text):
            word = "\u2581" + "".join(chars)
            pos = [where[0]] + where
            found: list[Token] = []
            i = 0
            while i < len(word):
                for j in range(min(len(word), i + self.max_len), i, -1):
                    token = vocab.get(word[i:j])
                    if token is not None:
                        found.append((token, pos[i], pos[j - 1] + 1))
                        i = j
                        break
                else:
                    found = []
                    break
            if found:
                out.extend(found)
            else:
                if self.unk_id is None:
                    raise TokvizError(f"the word {''.join(chars)!r} has no tokens and the file names no unknown token")
                out.append((self.unk_id, where[0], where[-1] + 1))
        return out


class LlamaUGM(Model):
    """llama.cpp's Unigram ("t5" model): the text normalized its way (user-defined tokens kept,
    the precompiled charsmap's longest replacements, spaces as '▁', a space before the text and,
    with remove_extra_whitespaces, one between runs), then the best-scoring tokenization over its
    UTF-8 bytes (double-precision sums; user-defined tokens score 0, an unknown code point the
    lowest normal score less 10; neighbouring unknowns are one token)."""

    kind = "Unigram"

    def __init__(self, tokens: list[str], scores, kinds: list[int], charsmap, *, unk_id: int | None,
                 add_space_prefix: bool, remove_extra_whitespaces: bool, escape_whitespaces: bool = True,
                 treat_whitespace_as_suffix: bool = False, load_kinds: list[int] | None = None):
        """`load_kinds`: the types as the file gives them, which llama.cpp builds its matchers and
        lowest score from before it changes some (`kinds`, which decide the zero score of
        user-defined tokens when tokenizing; a user-defined token it made a control one stays
        user-defined for that)."""
        vocab = {}
        for i, t in enumerate(tokens):
            vocab.setdefault(t, i)
        super().__init__(vocab)
        self.scores = [float(x) for x in scores]
        self.kinds = kinds
        self.charsmap = charsmap
        self.unk_id = unk_id
        self.prepend = add_space_prefix and not treat_whitespace_as_suffix
        self.append = add_space_prefix and treat_whitespace_as_suffix
        self.merge_spaces = remove_extra_whitespaces
        self.space = "\u2581".encode() if escape_whitespaces else b" "
        self.matches: dict[bytes, int] = {}  # token bytes -> id, as its trie holds them (the last id wins)
        self.user_defined: dict[bytes, int] = {}
        built = kinds if load_kinds is None else load_kinds
        self.zero_score = {i for i, k in enumerate(kinds)
                           if k == USER_DEFINED or (k == CONTROL and built[i] == USER_DEFINED)}
        normal = [self.scores[i] for i, k in enumerate(built) if k == NORMAL]
        for i, (t, k) in enumerate(zip(tokens, built)):
            if k in (NORMAL, USER_DEFINED, UNUSED):
                self.matches[t.encode("utf-8")] = i
            if k == USER_DEFINED:
                self.user_defined[t.encode("utf-8")] = i
        self.max_bytes = max(map(len, self.matches), default=1)
        self.max_user = max(map(len, self.user_defined), default=0)
        self.unknown_score = (min(normal) if normal else 3.4028234663852886e38) - 10.0

    def describe(self) -> str:
        return "Unigram (llama.cpp UGM)"

    def normalize(self, text: str) -> tuple[bytes, list[int], list[int]]:
        """(normalized UTF-8, and for each of its bytes the [start, end) of the characters of `text`
        it came from)."""
        data = text.encode("utf-8")
        char_of = []
        for i, c in enumerate(text):
            char_of.extend([i] * len(c.encode("utf-8")))
        char_of.append(len(text))
        out = bytearray()
        starts: list[int] = []
        ends: list[int] = []
        prepended = in_word = False
        pos = 0
        while pos < len(data):
            produced, used = self._prefix(data, pos)
            a, b = char_of[pos], char_of[pos + used]
            for byte in produced:
                if byte != 0x20:
                    if not in_word:
                        in_word = True
                        if (self.prepend and not prepended) or self.merge_spaces:
                            out += self.space
                            starts.extend([a] * len(self.space))
                            ends.extend([a] * len(self.space))
                            prepended = True
                    out.append(byte)
                    starts.append(a)
                    ends.append(max(b, a + 1))
                else:
                    in_word = False
                    if not self.merge_spaces:
                        out += self.space
                        starts.extend([a] * len(self.space))
                        ends.extend([max(b, a + 1)] * len(self.space))
            pos += used
        if self.append:
            out += self.space
            starts.extend([len(text)] * len(self.space))
            ends.extend([len(text)] * len(self.space))
        return bytes(out), starts, ends

    def _prefix(self, data: bytes, pos: int) -> tuple[bytes, int]:
        """llama.cpp's normalize_prefix: (bytes produced, bytes consumed) at `pos`."""
        for n in range(min(self.max_user, len(data) - pos), 0, -1):
            if data[pos:pos + n] in self.user_defined:
                return data[pos:pos + n], n
        if self.charsmap is not None:
            chunk = data[pos:pos + 64]
            cut = chunk.find(0)
            found = self.charsmap.longest_match(chunk if cut < 0 else chunk[:cut])
            if found is not None:
                length, replacement = found
                return replacement.encode("utf-8"), length
        lead = data[pos]
        size = 1 if lead < 0x80 else 2 if lead >> 5 == 6 else 3 if lead >> 4 == 14 else 4
        return data[pos:pos + size], size

    def tokenize(self, text: str) -> list[Token]:
        norm, starts, ends = self.normalize(text)
        n = len(norm)
        if not n:
            return []
        if self.unk_id is None:
            raise TokvizError("the file names no unknown token (llama.cpp's Unigram needs one)")
        best_score = [float("-inf")] * (n + 1)
        best_token = [self.unk_id] * (n + 1)
        best_from = [0] * (n + 1)
        best_score[0] = 0.0
        matches, scores, zero_score = self.matches, self.scores, self.zero_score
        pos = 0
        while pos < n:
            lead = norm[pos]
            size = min(1 if lead < 0x80 else 2 if lead >> 5 == 6 else 3 if lead >> 4 == 14 else 4, n - pos)
            here = best_score[pos]
            single = False
            for length in range(1, min(self.max_bytes, n - pos) + 1):
                token = matches.get(norm[pos:pos + length])
                if token is None:
                    continue
                if length == size:
                    single = True
                score = here + (0.0 if token in zero_score else scores[token])
                end = pos + length
                if score > best_score[end]:
                    best_score[end], best_token[end], best_from[end] = score, token, pos
            if not single:
                score = here + self.unknown_score
                end = pos + size
                if score > best_score[end]:
                    best_score[end], best_token[end], best_from[end] = score, self.unk_id, pos
            pos += size
        out: list[Token] = []
        end = n
        prev_unknown = False
        while True:
            token, start = best_token[end], best_from[end]
            unknown = token == self.unk_id
            if prev_unknown and unknown:
                _, _, last_end = out[-1]
                out[-1] = (token, starts[start], last_end)  # (one unknown for the run)
            else:
                out.append((token, starts[start], ends[end - 1]))
            prev_unknown = unknown
            if start == 0:
                break
            end = start
        out.reverse()
        return out


class Detokenizer:
    """llama.cpp's detokenize as a Tokenizer's decode_fn: (tokenizer, ids, skip_special) -> text."""

    def __init__(self, tokens: list[str], kinds: list[int], *, byte_level: bool, add_space_prefix: bool,
                 clean_spaces: bool, bos: int | None, eos: int | None, add_bos: bool, add_eos: bool,
                 raw_pieces: list[bytes] | None = None):
        self.raw_pieces = raw_pieces  # (each token's bytes whatever its type: RWKV, PLaMo-2)
        self.tokens = tokens
        self.kinds = kinds
        self.byte_level = byte_level
        self.add_space_prefix = add_space_prefix
        self.clean_spaces = clean_spaces
        self.bos, self.eos, self.add_bos, self.add_eos = bos, eos, add_bos, add_eos
        self._bytes = CHAR_TO_BYTE if byte_level else None

    def piece(self, token: int, special: bool) -> bytes:
        """llama.cpp's token_to_piece."""
        if not 0 <= token < len(self.tokens):
            return b""
        kind, text = self.kinds[token], self.tokens[token]
        if self.raw_pieces is not None:
            return b"" if kind in (CONTROL, UNKNOWN) and not special else self.raw_pieces[token]
        if kind in (CONTROL, UNKNOWN):
            return text.encode("utf-8") if special else b""
        if kind == USER_DEFINED:
            return text.encode("utf-8")
        if kind == NORMAL:
            if not self.byte_level:
                return text.replace("\u2581", " ").encode("utf-8")
            out = bytearray()
            for c in text:
                b = self._bytes.get(c)
                if b is None:
                    out += b"[UNK_BYTE_0x" + c.encode("utf-8").hex().encode() + text.encode("utf-8") + b"]"
                else:
                    out.append(b)
            return bytes(out)
        if kind == BYTE:
            if text.startswith("<0x") and text.endswith(">") and len(text) == 6:
                return bytes([int(text[3:5], 16)])
            b = self._bytes.get(text[:1]) if self._bytes else None
            return bytes([b]) if b is not None else text.encode("utf-8")[:1]
        return b""

    def __call__(self, tokenizer, ids: list[int], skip_special_tokens: bool = True) -> str:
        return self.detokenize(ids, skip_special_tokens, not skip_special_tokens).decode("utf-8", errors="replace")

    def detokenize(self, ids: list[int], remove_special: bool, unparse_special: bool) -> bytes:
        ids = list(ids)
        remove_space = self.add_space_prefix
        if remove_special and self.add_bos and ids and ids[0] == self.bos:
            remove_space = False
            ids = ids[1:]
        if remove_special and self.add_eos and ids and ids[-1] == self.eos:
            ids = ids[:-1]
        out = bytearray()
        for token in ids:
            piece = self.piece(token, unparse_special)
            if remove_space and piece.startswith(b" "):
                piece = piece[1:]
            remove_space = False
            out += piece
        return clean_spaces(bytes(out)) if self.clean_spaces else bytes(out)


def clean_spaces(text: bytes) -> bytes:
    """llama.cpp's clean-up of a detokenized text, in its three in-place passes: no space before
    ?!., nor around a lone quote, nor before 's 'm 're 've ('t 'd 'll keep theirs)."""
    buf = bytearray(text)

    def compact(keep) -> None:
        n = len(buf)
        total = 1 if n else 0
        i = 1
        while i < n:
            x = buf[i]
            drop_before, skip_after = keep(i, n)
            if drop_before:
                total -= 1
            if skip_after:
                buf[i + 1] = 0  # (as llama.cpp: the skipped space reads as NUL to the next character)
            buf[total] = x
            total += 1
            i += 2 if skip_after else 1
        del buf[total:]

    compact(lambda i, n: (buf[i - 1] == 0x20 and buf[i] in b"?!.,", False))
    compact(lambda i, n: (True, True) if buf[i] == 0x27 and i + 1 < n and buf[i - 1] == 0x20 and buf[i + 1] == 0x20
            else (False, False))

    def contraction(i: int, n: int):
        if buf[i - 1] != 0x20 or buf[i] != 0x27 or i + 1 >= n:
            return False, False
        x1 = buf[i + 1]
        if x1 in b"sm":
            return True, False
        if x1 in b"td" or i + 2 >= n:
            return False, False
        return (x1, buf[i + 2]) in ((0x72, 0x65), (0x76, 0x65)), False  # 're, 've

    compact(contraction)
    return bytes(buf)


# ---- regexes llama.cpp runs through std::regex ---------------------------------------------------

# llama.cpp's whitespace above ASCII (unicode.cpp); ASCII whitespace is \t \n \v \f \r and space
_WIDE_SPACES = frozenset(cp for cp in whitespace() if cp >= 128)  # llama.cpp's whitespace beyond ASCII
_CLASS_BYTE = {"N": "\xd1", "L": "\xd2", "P": "\xd3", "M": "\xd4", "S": "\xd5"}
_CLASS_ASCII = {"N": "0-9", "L": "A-Za-z", "P": r"!-#%-*,-/:-;?-@\[-\]_{}", "M": "", "S": r"$+<=>^`|~"}
_PROPERTIES = {"N": "N", "L": "L", "P": "P", "M": "M", "S": "S", "Lu": "L", "Ll": "L", "Lt": "L", "Lm": "L", "Lo": "L"}
_ASCII_SPACE = r"\t\n\x0b\x0c\r "


class _Collapsed(dict):
    """str.translate table: a character above ASCII -> llama.cpp's one character for its class
    (whitespace \\x0b; number, letter, punctuation, mark, symbol \\xd1-\\xd5; else \\xd0)."""

    def __init__(self, categories: bool):
        super().__init__()
        self.categories = categories

    def __missing__(self, cp: int) -> int:
        if cp < 128:
            value = cp
        elif cp in _WIDE_SPACES:
            value = 0x0B
        elif not self.categories:
            value = cp
        else:
            kind = _category(chr(cp))
            value = ord(_CLASS_BYTE[kind]) if kind in _CLASS_BYTE else 0xD0
        self[cp] = value
        return value


def collapsed_pattern(pattern: str) -> tuple[str, bool]:
    """(a Python `regex` pattern, whether the text must be collapsed) that matches on llama.cpp's
    rewritten text as its std::regex (ECMAScript) pattern does: \\p{..} as the class's character
    and its ASCII members, \\s and \\S over ASCII whitespace (non-ASCII whitespace reads as \\v), $ at
    the end of the piece only."""
    categories = any(f"\\p{{{name}}}" in pattern for name in _PROPERTIES)
    if categories and any(ord(c) >= 128 for c in pattern):
        raise TokvizError("a regex with both Unicode classes and non-ASCII characters (llama.cpp refuses it)")
    out = []
    inside = False
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            if nxt == "p" and pattern.startswith("{", i + 2):
                end = pattern.find("}", i + 3)
                name = pattern[i + 3:end] if end > 0 else ""
                if name in _PROPERTIES:
                    kind = _PROPERTIES[name]
                    members = _CLASS_BYTE[kind] + _CLASS_ASCII[kind]
                    out.append(members if inside else f"[{members}]")
                    i = end + 1
                    continue
            if nxt in "sS":
                if inside:
                    if nxt == "S":
                        raise TokvizError(r"\S inside a character class is not implemented")
                    out.append(_ASCII_SPACE)
                else:
                    out.append(f"[{'^' if nxt == 'S' else ''}{_ASCII_SPACE}]")
                i += 2
                continue
            out.append(pattern[i:i + 2])
            i += 2
            continue
        if c == "[" and not inside:
            inside = True
        elif c == "]" and inside:
            inside = False
        elif c == "$" and not inside:
            out.append(r"\Z")
            i += 1
            continue
        out.append(c)
        i += 1
    return "".join(out), categories


class StdRegexSplit(PreTokenizer):
    """A pre-tokenizer step running one of llama.cpp's std::regex patterns as llama.cpp does: on
    each piece rewritten to one character per code point (collapsed to its Unicode class when the
    pattern uses \\p{..}), matches and the text between them each a piece."""

    def __init__(self, pattern: str):
        import regex

        self.pattern = pattern
        translated, categories = collapsed_pattern(pattern)
        self._re = regex.compile(translated, regex.VERSION0)
        self._table = _Collapsed(categories)

    def split(self, ns):
        spans = bounded_spans(self._re, ns.text.translate(self._table), "llama.cpp's pre-tokenizer regex")
        return split_normalized(ns, spans, "Isolated")

    def describe(self) -> str:
        return f"llama.cpp regex({self.pattern!r})"
