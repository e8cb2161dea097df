"""Decimal literals read to the float HF tokenizers holds for them.

HF tokenizers reads tokenizer.json with serde_json's default number parser, which is fast but
not correctly rounded: it accumulates the digits into a 64-bit integer (ignoring digits once
that would overflow), converts it to a float, then multiplies or divides by a power of ten.
The two roundings put about one literal in four one unit in the last place away from Python's
`float(text)`. Unigram scores read that way decide ties between segmentations, so tokviz reads
them the same way.
"""
from __future__ import annotations

_POW10 = [float(f"1e{k}") for k in range(309)]
_U64_MAX = 2**64 - 1
_I32_MAX = 2**31 - 1
_SHORT = 19  # any 19 decimal digits fit in a u64


def serde_f64(literal: str) -> float:
    """The float serde_json (without `float_roundtrip`) parses from a JSON number literal.

    A literal out of range, which serde refuses, reads as an infinity: the reader's checks of
    the field it is in then name the field."""
    negative = literal.startswith("-")
    body = literal[1:] if negative else literal
    mantissa, e, exp_text = body.replace("E", "e").partition("e")
    int_digits, _, frac_digits = mantissa.partition(".")
    if len(int_digits) + len(frac_digits) <= _SHORT:
        significand = int(int_digits + frac_digits)
        exponent = -len(frac_digits)
    else:
        significand, exponent = _long_significand(int_digits, frac_digits)
    if e:
        exp_positive = not exp_text.startswith("-")
        exp_value = int(exp_text.lstrip("+-"))
        if exp_value > _I32_MAX:
            if significand == 0 or not exp_positive:
                return -0.0 if negative else 0.0
            return float("-inf") if negative else float("inf")
        exponent = exponent + exp_value if exp_positive else exponent - exp_value
        exponent = max(-(2**31), min(_I32_MAX, exponent))
    value = _from_parts(significand, exponent)
    return -value if negative else value


def _long_significand(int_digits: str, frac_digits: str) -> tuple[int, int]:
    """Digits accumulate while the u64 holds them: integer digits past that raise the exponent,
    fraction digits past it are dropped (each digit is tried again, as serde does)."""
    significand = 0
    exponent = 0
    overflowed = False
    for ch in int_digits:
        if overflowed:
            exponent += 1
            continue
        candidate = significand * 10 + (ord(ch) - 48)
        if candidate > _U64_MAX:
            overflowed = True
            exponent += 1
        else:
            significand = candidate
    for ch in frac_digits:
        candidate = significand * 10 + (ord(ch) - 48)
        if candidate > _U64_MAX:
            break  # serde ignores every further digit
        significand = candidate
        exponent -= 1
    return significand, exponent


def _from_parts(significand: int, exponent: int) -> float:
    value = float(significand)
    while True:
        if abs(exponent) < len(_POW10):
            if exponent >= 0:
                value *= _POW10[exponent]
            else:
                value /= _POW10[-exponent]
            return value
        if value == 0.0:
            return value
        if exponent >= 0:
            return float("inf")
        value /= 1e308
        exponent += 308
