"""`tokviz`: the desktop app with no arguments, headless sub-commands otherwise.

    tokviz                                  open the explorer
    tokviz encode -t TOK [FILE|-] [--json]  print ids (or one JSON record per token)
    tokviz info -t TOK [--json]             format, model, vocab size, specials, pipeline
    tokviz bench -t TOK FILE... [--threads N] [--against tiktoken,hf,sentencepiece] [--json]
    tokviz screenshot explorer -t TOK [--text FILE] -o out.png
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from . import __version__
from .errors import TokvizError


def _load(path: str, pattern: str | None = None):
    from .formats import load

    return load(path, pattern=pattern)


def _read_input(source: str | None) -> str:
    if source in (None, "-"):
        data = sys.stdin.buffer.read()
        name = "<stdin>"
    else:
        p = Path(source)
        try:
            data = p.read_bytes()
        except OSError as exc:
            raise TokvizError(f"cannot read: {exc.strerror or exc}", p) from None
        name = source
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TokvizError(f"text is not UTF-8 (invalid byte 0x{data[exc.start]:02x} at offset {exc.start})", name) from None


def cmd_encode(args) -> int:
    tok = _load(args.tokenizer, args.pattern)
    text = _read_input(args.file)
    enc = tok.encode(text, add_special_tokens=args.add_special_tokens)
    out = sys.stdout
    if args.json:
        json.dump({"tokenizer": tok.source.name, "count": len(enc), "tokens": enc.as_records()}, out, ensure_ascii=False)
        out.write("\n")
    else:
        out.write(" ".join(map(str, enc.ids)) + "\n")
    return 0


def cmd_info(args) -> int:
    tok = _load(args.tokenizer, args.pattern)
    info = tok.describe()
    if args.json:
        json.dump(info, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
        return 0
    specials = info["special_tokens"]
    rows = [
        ("name", info["name"]),
        ("path", info["path"]),
        ("format", info["format"]),
        ("model", info["model_detail"]),
        ("vocab size", f"{info['vocab_size']:,}"),
        ("normalizer", info["normalizer"] or "none"),
        ("pre-tokenizer", info["pre_tokenizer"] or "none"),
        ("post-processor", info["post_processor"] or "none"),
        ("decoder", info["decoder"] or "none"),
        ("special tokens", f"{len(specials)}" + (": " + ", ".join(s["content"] for s in specials[:8]) if specials else "")
         + (" ..." if len(specials) > 8 else "")),
        ("other added tokens", str(info["added_tokens"])),
        ("encoder", info.get("encoder", "python")),
    ]
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"{k:<{width}}  {v}")
    return 0


def cmd_bench(args) -> int:
    from .bench import format_report, run_bench

    tok = _load(args.tokenizer, args.pattern)
    against = [a.strip() for a in args.against.split(",") if a.strip()] if args.against is not None else None
    report = run_bench(tok, args.files, threads=args.threads, against=against, chunk_kb=args.chunk_kb,
                       limit_kb=args.limit_kb, repeat=args.repeat)
    if args.json:
        json.dump(report, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        print(format_report(report))
    return 0 if report["agree"] else 1


def cmd_screenshot(args) -> int:
    from .gui.screenshot import screenshot

    w, h = args.size
    try:
        out = screenshot(args.view, args.tokenizer or [], args.text, args.output, width=w, height=h)
    except ValueError as exc:  # an unknown view name
        raise TokvizError(str(exc)) from None
    print(out)
    return 0


def _size(value: str) -> tuple[int, int]:
    try:
        w, h = (int(x) for x in value.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError("size must look like 1200x800") from None
    return w, h


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tokviz", description="See exactly how a tokenizer cuts text.")
    parser.add_argument("--version", action="version", version=f"tokviz {__version__}")
    parser.add_argument("-t", "--tokenizer", help="open the app on this tokenizer (file or folder)")
    parser.add_argument("--text", help="open the app on this text file")
    sub = parser.add_subparsers(dest="command")

    def tok_arg(p, many=False):
        if many:
            p.add_argument("-t", "--tokenizer", action="append", help="tokenizer file or folder (repeatable)")
        else:
            p.add_argument("-t", "--tokenizer", required=True, help="tokenizer file or folder")
        p.add_argument("--pattern", help="split regex for a .tiktoken file whose name is not a known encoding")

    p = sub.add_parser("encode", help="encode text and print ids")
    tok_arg(p)
    p.add_argument("file", nargs="?", help="text file to encode ('-' or nothing: standard input)")
    p.add_argument("--json", action="store_true", help="one record per token: id, token, bytes, start, end")
    p.add_argument("--add-special-tokens", action="store_true", help="add the post-processor's special tokens")
    p.set_defaults(func=cmd_encode)

    p = sub.add_parser("info", help="describe a tokenizer")
    tok_arg(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_info)

    p = sub.add_parser("bench", help="encoding speed next to tiktoken / HF tokenizers / sentencepiece, same chunks")
    tok_arg(p)
    p.add_argument("files", nargs="+", help="text files to encode")
    p.add_argument("--threads", type=int, default=1, help="threads for every encoder (default 1)")
    p.add_argument("--against", help="comma-separated references to measure: tiktoken,hf,sentencepiece "
                                     "(default: all that apply to the tokenizer's format; '' for none)")
    p.add_argument("--chunk-kb", type=float, default=8, help="chunk size in KB (default 8)")
    p.add_argument("--limit-kb", type=float, help="use only the first KB of each file")
    p.add_argument("--repeat", type=int, default=1, help="runs per encoder; the fastest counts (default 1)")
    p.add_argument("--json", action="store_true", help="the report as JSON")
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser("screenshot", help="render a view to a PNG (offscreen)")
    p.add_argument("view", help="explorer")
    tok_arg(p, many=True)
    p.add_argument("--text", help="text file to show (default: the sample text)")
    p.add_argument("-o", "--output", required=True, help="PNG file to write")
    p.add_argument("--size", type=_size, default=(1200, 800), help="window size, e.g. 1200x800")
    p.set_defaults(func=cmd_screenshot)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command is None:
            from .gui.app import run

            return run(args.tokenizer, args.text)
        return args.func(args)
    except TokvizError as exc:
        print(f"tokviz: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
