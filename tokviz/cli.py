"""`tokviz`: the desktop app with no arguments, headless sub-commands otherwise.

    tokviz                                  open the explorer
    tokviz encode -t TOK [FILE|-] [--json]  print ids (or one JSON record per token)
    tokviz encode -t TOK FILE --out ids.npy [--threads N] [--force]  stream FILE into a .npy (or raw .bin) of uint32 ids
    tokviz info -t TOK [--json]             format, model, vocab size, specials, pipeline
    tokviz fetch OWNER/NAME[@REV]            download a model's tokenizer files into the HF cache
    tokviz chat -t TOK MESSAGES.json [--add-generation-prompt] [--template NAME] [--json]  a conversation as the model sees it
    tokviz bench -t TOK FILE... [--against fastokens,tokie,...] [--threads N[,N...]] [--runs N] [--json]  cold / warm-unseen / repeat MB/s
    tokviz train --model {bpe,bytelevel-bpe,wordpiece,unigram} --vocab-size N [options] -o OUT FILE...
    tokviz learn --model {bpe,...} --words "low:5 lowest:2" | --text FILE [--steps N] [--json]  every training step's tables
    tokviz export -t TOK --format FORMAT -o OUT [--scrub] [--force]
    tokviz health -t TOK [--corpus FILE] [--ios 0.9] [--min-count 3] [--table markdown|csv] [--json]
    tokviz compare -t A -t B [...] [FILE|-] [--json]
    tokviz stats -t TOK [-t TOK2 ...] [--corpus [LABEL=]PATH ...] [--table markdown|csv] [--threads N] [--json]
    tokviz fairness -t TOK [-t TOK ...] [FILES|DIR] [--pivot LANG] [--table markdown|csv] [--long] [--json]  token premium across languages
    tokviz robustness -t TOK [-t TOK ...] [FILE|-] [--perturbation NAME ...] [--rate R] [--seed S] [--table markdown|csv] [--json]
    tokviz overlap -t A -t B [-t C ...] [--table markdown|csv] [--json]  shared tokens, merge order: derived?
    tokviz roundtrip -t TOK [FILE|-] [--show N] [--table markdown|csv] [--json]  normalizer changes and where decode(encode(x)) != x
    tokviz screenshot explorer|window|merges|vocab|stats|compare|train|chat|fairness|robustness|overlap|learn|learn-wordpiece|learn-unigram -t TOK [-t TOK2 ...] [--text FILE] -o out.png
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from . import __version__
from .errors import TokvizError


def _load(path: str, pattern: str | None = None):
    from .formats import load

    return load(path, pattern=pattern)


def _load_named(paths: list[str] | None, pattern: str | None, at_least: int = 1) -> dict:
    """name -> Tokenizer for every -t, names made unique; TokvizError when fewer than `at_least`."""
    from .analysis.corpus_stats import unique_name

    paths = paths or []
    if len(paths) < at_least:
        raise TokvizError("give at least one tokenizer with -t" if at_least == 1 else
                          f"give at least {'two' if at_least == 2 else at_least} tokenizers with -t")
    tokenizers: dict = {}
    for p in paths:
        tok = _load(p, pattern)
        tokenizers[unique_name(tok.source.name or Path(p).name, tokenizers)] = tok
    return tokenizers


# The text a command reads whole (from a file or standard input); a larger input is refused with
# this message's advice, before it fills the memory.
MAX_TEXT_INPUT = 1 << 30
# Encoding a text whole takes about this many times its UTF-8 size in memory (ids, offsets, tokens):
# a FILE too large for the memory available is refused before it is read.
TEXT_MEMORY_FACTOR = 24
_TOO_LARGE_HINT = "; for a corpus of any size use `tokviz stats -t TOK --corpus FILE`, which streams it"


def _read_input(source: str | None) -> str:
    """The UTF-8 text of FILE, or of standard input for None or '-'.  FILE must be a regular file
    (a pipe or a device is refused: give a stream as '-'); both are limited to MAX_TEXT_INPUT."""
    from .core.limits import check_fits_in_memory
    from .formats._util import other_unicode_message, unicode_bom
    from .paths import check_regular_file, read_limited, read_stream_limited

    if source in (None, "-"):
        name = "<stdin>"
        data = read_stream_limited(sys.stdin.buffer, MAX_TEXT_INPUT, name, hint=_TOO_LARGE_HINT)
    else:
        name = source
        pipe_hint = "; give a stream on standard input ('-') instead"
        size = check_regular_file(source, "a text file", pipe_hint=pipe_hint).st_size
        if size <= MAX_TEXT_INPUT:  # (a larger one is refused by read_limited, with its advice)
            check_fits_in_memory(size, TEXT_MEMORY_FACTOR, source, "encoding it whole")
        data = read_limited(source, MAX_TEXT_INPUT, "a text file", hint=_TOO_LARGE_HINT, pipe_hint=pipe_hint)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        encoding = unicode_bom(data[:4])
        if encoding is not None:
            raise TokvizError(other_unicode_message(encoding), name) from None
        raise TokvizError(f"text is not UTF-8 (invalid byte 0x{data[exc.start]:02x} at offset {exc.start})", name) from None


def cmd_encode(args) -> int:
    if args.output:
        return _encode_to_file(args)
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


# A file at least this large gets a progress line on stderr while `encode --out` streams it.
PROGRESS_FROM_BYTES = 16 << 20


def _encode_to_file(args) -> int:
    """`tokviz encode FILE --out ids.npy`: the file streamed into an ids file (tokviz.formats.ids_file)."""
    import os

    from .formats.ids_file import check_output, write_ids_file

    if args.file in (None, "-"):
        raise TokvizError("--out needs a text FILE to stream (standard input is not read with --out)")
    check_output(args.output, args.force)  # (before the tokenizer is loaded)
    tok = _load(args.tokenizer, args.pattern)
    try:
        size = os.stat(args.file).st_size
    except OSError:
        size = 0  # (encode_file says what is wrong with it)
    line = TerminalProgress() if size >= PROGRESS_FROM_BYTES else None

    def progress(done: int, total: int) -> None:
        line(done / max(total, 1), f"encoding {args.file}: {done / 2**20:,.0f} of {total / 2**20:,.0f} MB")

    try:
        result = write_ids_file(tok, args.file, args.output, overwrite=args.force,
                                add_special_tokens=args.add_special_tokens, progress=progress if line else None,
                                threads=args.threads)
    finally:
        if line is not None:
            line.close()
    if args.json:
        print(json.dumps({"tokenizer": tok.source.name, "output": str(result.path), "count": result.count,
                          "dtype": "uint32", "format": result.kind}))
    else:
        what = ".npy" if result.kind == "npy" else "raw little-endian"
        print(f"wrote {result.count:,} ids ({what} uint32) to {result.path}")
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
        ("encoder", info.get("encoder_detail", "python")),
        ("chat templates", ", ".join(info["chat_templates"]) or tok.chat_templates.problem or "none"),
    ]
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"{k:<{width}}  {v}")
    return 0


def cmd_chat(args) -> int:
    from .core import chat

    tok = _load(args.tokenizer, args.pattern)
    conversation = chat.read_conversation(args.conversation)
    templates = tok.chat_templates
    template = templates.pick(args.template, conversation.tools)
    variables = dict(templates.variables)
    for item in args.var or ():
        key, eq, value = item.partition("=")
        if not eq or not key.isidentifier():
            raise TokvizError(f"--var {item!r}: expected NAME=VALUE (VALUE as JSON, else as a string)")
        try:
            variables[key] = json.loads(value)
        except json.JSONDecodeError:
            variables[key] = value
    result = chat.count(tok, template, conversation, add_generation_prompt=args.add_generation_prompt,
                        variables=variables)
    if args.json:
        json.dump({"tokenizer": tok.source.name, "template": template.name, "text": result.text, "ids": result.ids,
                   "count": len(result.ids), "per_message": result.per_message, "generation_prompt": result.prompt},
                  sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
        return 0
    sys.stdout.write(result.text)
    if not result.text.endswith("\n"):
        sys.stdout.write("\n")
    # the counts go to stderr, so that standard output is the rendered text alone
    for k, (message, n) in enumerate(zip(conversation.messages, result.per_message), 1):
        print(f"{k:>3}  {message['role']:<10} {'-' if n is None else n:>6} tokens", file=sys.stderr)
    if args.add_generation_prompt:
        print(f"     {'prompt':<10} {result.prompt:>6} tokens", file=sys.stderr)
    print(f"     {'total':<10} {len(result.ids):>6} tokens ({template.name} template)", file=sys.stderr)
    return 0


def cmd_fetch(args) -> int:
    from .formats import hub

    named = hub.parse_name(args.name)
    if named is None:
        raise TokvizError(f"{args.name!r} is not a Hub model name (owner/name, optionally @revision)")
    folder = hub.download(*named, folder=args.cache_dir)
    print(folder)
    return 0


def cmd_bench(args) -> int:
    from .bench import format_report, run_bench

    start = time.perf_counter()
    tok = _load(args.tokenizer, args.pattern)
    load_seconds = time.perf_counter() - start
    against = [a.strip() for a in args.against.split(",") if a.strip()] if args.against is not None else None
    if len(args.threads) > 1 or args.runs > 1:
        from .bench_runs import format_table, run_table

        report = run_table(tok, args.files, threads=args.threads, runs=args.runs, against=against,
                           chunk_kb=args.chunk_kb, limit_kb=args.limit_kb, repeat=args.repeat,
                           progress=lambda line: print(line, file=sys.stderr, flush=True))
        format_report = format_table
    else:
        report = run_bench(tok, args.files, threads=args.threads[0], against=against, chunk_kb=args.chunk_kb,
                           limit_kb=args.limit_kb, repeat=args.repeat, load_seconds=load_seconds)
    if args.json:
        json.dump(report, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        print(format_report(report))
    return 0 if report["agree"] else 1


def cmd_health(args) -> int:
    from .analysis.corpus_stats import table_csv, table_markdown
    from .analysis.token_health import full_health

    tok = _load(args.tokenizer, args.pattern)
    corpus = _read_input(args.corpus) if args.corpus else None
    report = full_health(tok, corpus=corpus, corpus_name=args.corpus or "", ios_threshold=args.ios,
                         min_count=args.min_count)
    if args.json:
        json.dump(report.as_dict(), sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
        return 0
    if args.table:  # one row per finding, every finding
        rows = [{"finding": title, "detail": line} for title, lines in _health_sections(report) for line in lines]
        sys.stdout.write(table_csv(rows) if args.table == "csv" else table_markdown(rows))
        return 0
    print(f"{report.model}, {report.vocab_size:,} tokens ({report.checked:,} checked for reachability)")
    for note in report.notes:
        print(f"  note: {note}")
    shown = args.show
    th = report.tokens
    print(f"  round trip of {th.checked:,} tokens: " + ", ".join(f"{n:,} {form}" for form, n in th.round_trip.items()))
    print(f"  intermediate-only: IoS >= {th.ios_threshold:g}, made >= {th.min_count} times in {th.corpus} "
          f"({th.corpus_chars:,} characters)")
    for note in th.notes:
        print(f"  note: {note}")
    for title, lines in _health_sections(report):
        print(f"{title}: {len(lines):,}")
        for line in lines[:shown]:
            print(f"  {line}")
        if len(lines) > shown:
            print(f"  … {len(lines) - shown:,} more (--show N, or --json)")
    return 0


def _health_sections(report) -> list[tuple[str, list[str]]]:
    """(title, a line per finding) of every section of a full health report."""
    from .analysis.token_health import section_lines

    return [
        ("unreachable", [f"{i} {t!r} encodes to {' | '.join(got)}" for i, t, got in report.unreachable]),
        ("bad merges", [f"#{r} {a!r} + {b!r}: {why}" for r, a, b, why in report.bad_merges]),
        ("partial UTF-8", [f"{i} {t!r}" for i, t in report.partial_utf8]),
        ("duplicates", [f"{t!r}: ids {', '.join(map(str, ids))}" for t, ids in report.duplicates]),
        ("split specials", [f"{i} {c!r} -> {' | '.join(p)}" for i, c, p in report.split_specials]),
        *section_lines(report.tokens),
    ]


def _corpora(specs: list[str]) -> dict[str, list[str]]:
    """--corpus LABEL=PATH or PATH (labelled by its file name), repeatable; a label may repeat."""
    corpora: dict[str, list[str]] = {}
    for spec in specs:
        label, sep, path = spec.partition("=")
        if not sep or "://" in label:  # (a URL's query may hold "=")
            label, path = _corpus_label(spec), spec
        corpora.setdefault(label, []).append(path)
    return corpora


def _corpus_label(path: str) -> str:
    """A corpus's label from its path or URL: the file's name without its suffix; for a glob or a
    folder URL (s3://bucket/code/*.txt, s3://bucket/code/), the folder's name."""
    if "://" not in path:
        return Path(path).stem
    parts = [p for p in path.split("://", 1)[1].split("?")[0].split("/") if p]
    while len(parts) > 1 and any(c in parts[-1] for c in "*?["):
        parts.pop()
    return Path(parts[-1]).stem if parts else path


def _cluster_spec(args, items=()) -> tuple[str | None, int | None] | None:
    """(scheduler, workers) of --scheduler / --workers; without them, a URL among `items` (s3://...)
    is read by one worker process started here (fsspec on a Dask worker, as on a cluster); else None."""
    if args.scheduler is not None and args.workers is not None:
        raise TokvizError("give --scheduler or --workers, not both")
    if args.scheduler is not None or args.workers is not None:
        return args.scheduler, args.workers
    from .cluster.sources import is_url

    return (None, 1) if any(is_url(item) for item in items) else None


def _cluster(args, items=()):
    """The Dask cluster of `_cluster_spec`, or None."""
    spec = _cluster_spec(args, items)
    if spec is None:
        return None
    from .cluster import Cluster

    return Cluster(*spec)


def cmd_stats(args) -> int:
    paths = args.tokenizer or []
    if not paths:
        raise TokvizError("give at least one tokenizer with -t")
    corpora = _corpora(args.corpus or [])
    cluster = _cluster(args, [p for files in corpora.values() for p in files])
    try:
        return _stats(args, paths, corpora, cluster)
    finally:
        if cluster is not None:
            cluster.close()


def _stats(args, paths, corpora, cluster) -> int:
    from .analysis.corpus_stats import comparison_rows, corpus_stats, table_csv, table_markdown
    from .analysis.vocab_stats import vocab_stats

    def measure(tok, files, progress=None, cancel=None):
        return corpus_stats(tok, files, progress=progress, cancel=cancel, threads=args.threads)

    if cluster is not None:
        from .cluster import corpus_stats_on

        def measure(tok, files, progress=None, cancel=None):  # (the tokenizer goes to the workers as its bytes)
            return corpus_stats_on(cluster, tok, files, progress=progress, cancel=cancel)
    if len(paths) > 1 or args.table:
        tokenizers = _load_named(paths, args.pattern)
        rows = comparison_rows(tokenizers, corpora, measure=measure)
        if args.json:
            json.dump(rows, sys.stdout, ensure_ascii=False, indent=2)
            sys.stdout.write("\n")
        else:
            sys.stdout.write(table_csv(rows) if args.table == "csv" else table_markdown(rows))
        return 0
    tok = _load(paths[0], args.pattern)
    result = {"tokenizer": tok.source.name or paths[0], "vocab": vocab_stats(tok).as_dict(),
              "corpus": {label: measure(tok, files).as_dict() for label, files in corpora.items()}}
    if args.json:
        json.dump(result, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
        return 0
    v = result["vocab"]
    print(f"{result['tokenizer']}: {v['size']:,} tokens (multiple of 64: {'yes' if v['divisible_by_64'] else 'no'}, "
          f"of 128: {'yes' if v['divisible_by_128'] else 'no'})")
    print(f"  special {v['special']}, other added {v['added']}, reserved {v['reserved']}, control {v['control']}, "
          f"user-defined {v['user_defined']}, byte pieces {v['byte_pieces']}, unused {v['unused']}")
    print(f"  mean length {v['mean_bytes']:.2f} bytes; one-token numbers of 0-999: {v['numbers_single_token_count']}; "
          f"single-Han-character tokens: {v['cjk_single_chars']:,}")
    print("  scripts: " + ", ".join(f"{k} {n:,}" for k, n in v["script_counts"].items() if n))
    for label, c in result["corpus"].items():
        print(f"{label}: {c['bytes'] / 1e6:.2f} MB, {c['tokens']:,} tokens in {c['seconds']:.2f} s ({c['mb_per_second']:.1f} MB/s)")
        print(f"  {c['bytes_per_token']:.3f} bytes/token, {c['chars_per_token']:.3f} chars/token, "
              f"{c['fertility']:.3f} tokens/word" + (f", {c['han_chars_per_token']:.3f} Han chars/token" if c["han_chars"] else ""))
        print(f"  unknown {c['unknown_rate']:.4%}, byte fallback {c['byte_fallback_rate']:.4%}; "
              f"vocabulary used {c['used']:,} ({c['utilisation']:.1%}), never used {c['never_used']:,}")
        print(f"  entropy: Shannon {c['shannon_entropy']:.3f} bits (efficiency {c['shannon_efficiency']:.3f}), "
              f"Renyi a={c['renyi_alpha']} {c['renyi_entropy']:.3f} bits (efficiency {c['renyi_efficiency']:.3f}); "
              f"Gini {c['gini']:.3f}")
    return 0


def cmd_compare(args) -> int:
    from .analysis.compare import compare_text
    from .analysis.corpus_stats import table_csv, table_markdown

    tokenizers = _load_named(args.tokenizer, args.pattern, at_least=2)
    text = _read_input(args.file)
    result = compare_text(tokenizers, text, top_words=args.words)
    if args.json:
        json.dump(result.as_dict(), sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
        return 0
    sys.stdout.write(table_csv(result.rows) if args.table == "csv" else table_markdown(result.rows))
    print(f"\n{result.identical_share:.1%} of the {len(text):,} characters are in tokens every tokenizer cuts "
          f"the same way; boundaries differ at {len(result.differing_positions()):,} places.")
    if result.split_words:
        print("\nWords one tokenizer splits into the most pieces:")
        for w in result.split_words:
            counts = ", ".join(f"{n} {c}" for n, c in w["pieces"].items())
            print(f"  {w['word']!r}: {counts}")
    return 0


def cmd_fairness(args) -> int:
    from .analysis.corpus_stats import table_csv, table_markdown
    from .analysis.fairness import fairness_files
    from .defaults import parallel_sample_path

    tokenizers = _load_named(args.tokenizer, args.pattern)
    result = fairness_files(tokenizers, args.files or [parallel_sample_path()], args.pivot)
    if args.json:
        json.dump(result.as_dict(), sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
        return 0
    rows = result.long_rows() if args.long else result.rows()
    sys.stdout.write(table_csv(rows) if args.table == "csv" else table_markdown(rows))
    if args.table != "csv":
        print(f"\nPremium: tokens over {result.pivot}'s tokens for the same content (the pivot is 1.000). "
              "STRR: share of words that are one token (n/a: a language written mostly without spaces); "
              "unk/byte: unknown and byte-fallback tokens over all tokens.")
        for line in result.notes + result.warnings:
            print(f"  {line}")
    elif result.warnings:
        for line in result.warnings:
            print(f"tokviz: warning: {line}", file=sys.stderr)
    return 0


def cmd_robustness(args) -> int:
    from .analysis.corpus_stats import table_csv, table_markdown
    from .analysis.perturb import PERTURBATIONS
    from .analysis.robustness import corpus_robustness
    from .defaults import sample_text

    if not 0.0 <= args.rate <= 1.0:
        raise TokvizError(f"--rate must be between 0 and 1, got {args.rate}")
    names = [n for arg in args.perturbation or [] for n in arg.split(",") if n] or list(PERTURBATIONS)
    unknown = [n for n in names if n not in PERTURBATIONS]
    if unknown:
        raise TokvizError(f"unknown perturbation {unknown[0]!r}: choose from {', '.join(PERTURBATIONS)}")
    tokenizers = _load_named(args.tokenizer, args.pattern)
    text = sample_text() if args.file is None else _read_input(args.file)
    bar = TerminalProgress() if len(text) > 256 * 1024 else None
    report = corpus_robustness(tokenizers, text, names, rate=args.rate, seed=args.seed,
                               progress=(lambda d, t: bar(d / max(1, t), "perturbing and encoding")) if bar else None)
    if bar is not None:
        bar.close()
    if args.json:
        json.dump(report.as_dict(), sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
        return 0
    sys.stdout.write(table_csv(report.rows()) if args.table == "csv" else table_markdown(report.rows()))
    if args.table != "csv":
        originals = ", ".join(f"{n} {v:,}" for n, v in report.original_tokens.items())
        print(f"\n{report.chars:,} characters in {report.pieces:,} pieces, rate {report.rate:g}, seed {report.seed}; "
              f"original tokens: {originals}.  mean ×: perturbed / original tokens averaged over pieces; "
              f"corpus ×: of the totals.")
    return 0


def cmd_overlap(args) -> int:
    from .analysis.corpus_stats import table_csv, table_markdown
    from .analysis.overlap import overlap

    tokenizers = _load_named(args.tokenizer, args.pattern, at_least=2)
    report = overlap(tokenizers)
    if args.json:
        json.dump(report.as_dict(), sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
        return 0
    rows = report.rows()
    if args.table == "csv":
        sys.stdout.write(table_csv(rows))
        return 0
    sys.stdout.write(table_markdown([{k: "—" if v is None else v for k, v in r.items() if k != "verdict"}
                                     for r in rows]))
    print()
    for t in report.tokenizers:
        print(f"{t.name}: {t.model}, {t.tokens:,} tokens, {t.special:,} special/added, merges: "
              + (f"{t.merges:,} ({t.merge_source})" if t.merges else t.merge_source))
    for pair in report.pairs:
        print(f"\n{pair.a} vs {pair.b}: {pair.verdict}")
        print(f"  special/added tokens: {pair.special_shared:,} shared, {pair.special_only_a:,} only in {pair.a}, "
              f"{pair.special_only_b:,} only in {pair.b}")
    if len(report.pairs) == 1:
        pair = report.pairs[0]
        print()
        sys.stdout.write(table_markdown([{"category": k, "shared": s, f"only {pair.a}": oa, f"only {pair.b}": ob}
                                         for k, (s, oa, ob) in pair.scripts.items()]))
    return 0


def cmd_roundtrip(args) -> int:
    from .analysis.corpus_stats import table_csv, table_markdown
    from .analysis.roundtrip import round_trip

    tok = _load(args.tokenizer, args.pattern)
    text = _read_input(args.file)
    report = round_trip(tok, text)
    if args.table:  # one row per difference, every difference
        rows = [d.as_dict() for d in report.decode_differences + report.normalizer_changes]
        sys.stdout.write(table_csv(rows) if args.table == "csv" else table_markdown(rows))
        return 0
    if args.json:
        json.dump({"tokenizer": tok.source.name, **report.as_dict(args.show)}, sys.stdout, ensure_ascii=False,
                  indent=2)
        sys.stdout.write("\n")
        return 0
    print(report.summary())
    for stage, title, items in (("decode", "decode(encode(text)) differs", report.decode_differences),
                                ("normalizer", "the normalizer changes", report.normalizer_changes)):
        counts = report.counts(stage)
        print(f"\n{title}: {len(items):,}" + (f" ({', '.join(f'{k} {n:,}' for k, n in counts.items())})"
                                             if counts else ""))
        for d in items[: args.show]:
            shown = f"{d.original!r} -> {d.decoded!r}" if stage == "decode" else f"{d.original!r} -> {d.normalized!r}"
            extra = f"  (normalized {d.normalized!r})" if stage == "decode" and d.kind != "normalizer" and \
                d.normalized != d.original else ""
            span = f"{d.start:,}" if d.end - d.start == 1 else f"{d.start:,}-{d.end:,}"
            print(f"  {span:<15} {d.label:<28} {shown}{extra}")
        if len(items) > args.show:
            print(f"  ... {len(items) - args.show:,} more (--show N)")
    return 0


def cmd_screenshot(args) -> int:
    from .gui.screenshot import screenshot

    w, h = args.size
    try:
        out = screenshot(args.view, args.tokenizer or [], args.text, args.output, width=w, height=h,
                         dock=args.dock, tab=args.tab, language=args.lang or "en")
    except ValueError as exc:  # an unknown view name
        raise TokvizError(str(exc)) from None
    print(out)
    return 0


class TerminalProgress:
    """progress(fraction, message) drawn as one self-rewriting line on a terminal, or as a line
    per tenth done when stderr is a file or pipe (logs stay readable)."""

    def __init__(self, stream=None, width: int = 30):
        self.stream = stream or sys.stderr
        self.width = width
        self.tty = self.stream.isatty()
        self.last_tenth = -1
        self.last_draw = 0.0

    def __call__(self, fraction: float, message: str) -> None:
        fraction = min(max(fraction, 0.0), 1.0)
        if self.tty:
            now = time.monotonic()
            if now - self.last_draw < 0.1 and fraction < 1.0:
                return
            self.last_draw = now
            done = int(fraction * self.width)
            line = f"[{'#' * done}{'.' * (self.width - done)}] {fraction * 100:5.1f}%  {message}"
            self.stream.write("\r" + line[:118].ljust(118))
        else:
            tenth = int(fraction * 10)
            if tenth <= self.last_tenth:
                return
            self.last_tenth = tenth
            self.stream.write(f"{fraction * 100:5.1f}%  {message}\n")
        self.stream.flush()

    def close(self) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()


def cmd_train(args) -> int:
    from .formats import save
    from .train import train
    from .train.options import TrainOptions

    def names(value):
        return [s for s in value.split(",") if s] if value else []

    options = TrainOptions(
        vocab_size=args.vocab_size,
        min_frequency=args.min_frequency,
        min_word_count=args.min_word_count,
        special_tokens=names(args.special_tokens),
        user_defined_symbols=names(args.user_defined_symbols),
        reserved_tokens=args.reserved_tokens,
        split_digits=args.split_digits,
        tie_break=args.tie_break,
        max_token_length=args.max_token_length,
        character_coverage=args.character_coverage,
        byte_fallback=args.byte_fallback,
        initial_alphabet=list(args.initial_alphabet or ""),
        limit_alphabet=args.limit_alphabet,
        collapse_whitespace=args.collapse_whitespace,
        pad_to_multiple_of=args.pad_to_multiple_of,
    )
    import os

    from .paths import check_output_path

    output = os.path.expanduser(args.output)
    existing = check_output_path(output, file_only=True)  # (a path that cannot be written is refused before training)
    out = Path(output)
    if out.suffix.lower() not in (".json", ".txt"):
        raise TokvizError("the output name must end in .json (tokenizer.json) or .txt (WordPiece vocab.txt)", out)
    if out.suffix.lower() == ".txt" and args.model != "wordpiece":
        raise TokvizError("a vocab.txt holds a WordPiece vocabulary only; write a .json", out)
    model_options = {}
    if args.model == "bpe":
        if out.suffix.lower() == ".json" and args.end_of_word == "separate":
            raise TokvizError("tokenizer.json needs --end-of-word glued (or none) for --model bpe (HF tokenizers' BPE "
                              "glues the marker to the last character; the default keeps it a symbol of its own)", out)
        model_options["end_of_word"] = args.end_of_word
        model_options["marker"] = args.marker
    elif args.end_of_word != "separate" or args.marker != "</w>":
        raise TokvizError("--end-of-word and --marker apply to --model bpe only")
    if existing is not None and not args.force:  # (said before training, not after)
        raise TokvizError("the file exists: use --force to replace it", out)
    cluster = _cluster(args, args.files)
    bar = None if args.quiet else TerminalProgress()
    started = time.perf_counter()
    try:
        tok = train(args.model, args.files, options, pattern=args.pattern, progress=bar, threads=args.threads,
                    cluster=cluster, **model_options)
    finally:
        if bar is not None:
            bar.close()
        if cluster is not None:
            cluster.close()
    seconds = time.perf_counter() - started
    save(tok, out, overwrite=args.force)
    report = {"model": args.model, "output": str(out), "vocab_size": tok.vocab_size, "seconds": round(seconds, 3),
              "files": [str(f) for f in args.files]}
    if args.json:
        print(json.dumps(report))
    else:
        print(f"trained {args.model} tokenizer: {tok.vocab_size} tokens in {seconds:.2f} s, written to {out}")
    return 0


def cmd_export(args) -> int:
    import os

    from .formats.writers import format_for_path, save_files, write_format
    from .paths import check_output_path

    output = os.path.expanduser(args.output)
    check_output_path(output)
    tok = _load(args.tokenizer, args.pattern)
    out = Path(output)
    spec = write_format(args.format, out) if args.format else write_format(format_for_path(tok, out))
    files = save_files(tok, output, format=spec.name, scrub=args.scrub, overwrite=args.force)
    if args.json:
        print(json.dumps({"format": spec.name, "files": [str(p) for p in files]}))
    else:
        print(f"wrote {spec.label}: " + ", ".join(str(p) for p in files))
    return 0


def _size(value: str) -> tuple[int, int]:
    try:
        w, h = (int(x) for x in value.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError("size must look like 1200x800") from None
    return w, h


def _threads(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"threads must be a whole number of at least 1, not {value!r}")
    return n


def _thread_counts(value: str) -> list[int]:
    """A thread count, or a comma-separated list of them (1,2,4,8,16)."""
    try:
        return sorted({_threads(part.strip()) for part in value.split(",")})
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"threads must be whole numbers of at least 1, such as 4 or 1,2,4,8, not {value!r}") from None


def _language(value: str) -> str:
    """A language the app speaks (gui/i18n/languages.py)."""
    from .gui.i18n.languages import UnknownLanguage, check_language

    try:
        return check_language(value)
    except UnknownLanguage as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tokviz", description="See exactly how a tokenizer cuts text.")
    parser.add_argument("--version", action="version", version=f"tokviz {__version__}")
    parser.add_argument("-t", "--tokenizer",
                        help="open the app on this tokenizer (file or folder, or a Hub name in the HF cache)")
    parser.add_argument("--text", help="open the app on this text file")
    parser.add_argument("--lang", type=_language, metavar="LANG",
                        help="the app's language: en or zh_CN (default: as chosen in View > Language, else the "
                             "system's)")
    sub = parser.add_subparsers(dest="command")

    def cluster_args(p, what="count the tokens"):
        p.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                       help=f"{what} on the Dask cluster of this scheduler (pip install \"tokviz[cluster]\")")
        p.add_argument("--workers", type=int, metavar="N",
                       help=f"{what} on a Dask LocalCluster of N worker processes started here")

    def tok_arg(p, many=False):
        if many:
            p.add_argument("-t", "--tokenizer", action="append", help="tokenizer file or folder (repeatable)")
        else:
            p.add_argument("-t", "--tokenizer", required=True,
                           help="tokenizer file or folder, or a Hub name (owner/name[@revision]) in the HF cache")
        p.add_argument("--pattern", help="split regex for a .tiktoken file whose name is not a known encoding")

    p = sub.add_parser("encode", help="encode text and print ids")
    tok_arg(p)
    p.add_argument("file", nargs="?", help="text file to encode ('-' or nothing: standard input)")
    p.add_argument("--json", action="store_true", help="one record per token: id, token, bytes, start, end")
    p.add_argument("--add-special-tokens", action="store_true", help="add the post-processor's special tokens")
    p.add_argument("-o", "--out", dest="output", metavar="IDS",
                   help="stream FILE into this file of ids instead of printing them: .npy (NumPy uint32) or any "
                        "other suffix for raw little-endian uint32")
    p.add_argument("--force", action="store_true", help="with --out: replace an existing file")
    p.add_argument("--threads", type=_threads, help="with --out: threads encoding (default: one per core)")
    p.set_defaults(func=cmd_encode)

    p = sub.add_parser("chat", help="render a conversation through the tokenizer's chat template and count its tokens")
    tok_arg(p)
    p.add_argument("conversation", help="JSON file: a list of messages, or {\"messages\": [...], \"tools\": [...]}")
    p.add_argument("--add-generation-prompt", action="store_true", help="end with the header of the assistant's turn")
    p.add_argument("--template", help="a named template (default: transformers' choice)")
    p.add_argument("--var", action="append", metavar="NAME=VALUE",
                   help="an extra template variable (e.g. enable_thinking=false); repeatable")
    p.add_argument("--json", action="store_true", help="one object: text, ids, count, per_message, generation_prompt")
    p.set_defaults(func=cmd_chat)

    p = sub.add_parser("fetch", help="download a model's tokenizer files (no weights) from the Hugging Face Hub "
                                     "into its cache; -t NAME then opens it offline")
    p.add_argument("name", help="owner/name, optionally @revision (a branch, tag or commit)")
    p.add_argument("--cache-dir", help="the hub cache folder (default: huggingface_hub's, from HF_HOME ...)")
    p.set_defaults(func=cmd_fetch)

    p = sub.add_parser("info", help="describe a tokenizer")
    tok_arg(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_info)

    p = sub.add_parser("health", help="vocabulary health: unreachable, undecodable, intermediate-only tokens, ...")
    tok_arg(p)
    p.add_argument("--show", type=int, default=5, help="examples to print per finding (default 5)")
    p.add_argument("--corpus", metavar="FILE", help="text for intermediate-only tokens (IoS); default: the sample texts in resources/")
    p.add_argument("--ios", type=float, default=0.9, help="IoS threshold of intermediate-only tokens (default 0.9)")
    p.add_argument("--min-count", type=int, default=3, help="times a token must be made in the corpus (default 3)")
    p.add_argument("--table", choices=["markdown", "csv"], help="every finding as a table row (finding, detail)")
    p.add_argument("--json", action="store_true", help="the whole report as JSON")
    p.set_defaults(func=cmd_health)

    p = sub.add_parser("stats", help="vocabulary statistics and corpus metrics; several -t: a comparison table")
    tok_arg(p, many=True)
    p.add_argument("--corpus", action="append", metavar="[LABEL=]PATH",
                   help="file, folder, URL or URL glob to measure on (repeatable; LABEL groups files, e.g. "
                        "zh=zh.txt; s3://bucket/corpus/*.txt is read with fsspec on the cluster's workers, or on one "
                        "worker process here)")
    p.add_argument("--table", choices=["markdown", "csv"], help="print the comparison table in this format")
    p.add_argument("--json", action="store_true")
    p.add_argument("--threads", type=_threads, help="threads encoding each corpus here (default: one per core)")
    cluster_args(p)
    p.set_defaults(func=cmd_stats)

    p = sub.add_parser("compare", help="several tokenizers on one text: counts, boundary differences, split words")
    tok_arg(p, many=True)
    p.add_argument("file", nargs="?", help="text file ('-' or nothing: standard input)")
    p.add_argument("--table", choices=["markdown", "csv"], help="format of the table (default markdown)")
    p.add_argument("--words", type=int, default=10, help="how many most-split words to list (default 10)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_compare)

    from .bench import PEERS

    p = sub.add_parser("bench", help="encoding speed next to other tokenizer libraries: cold, warm on unseen text, repeat")
    tok_arg(p)
    p.add_argument("files", nargs="+", help="text files to encode (first half of each: cold pass; second half: warm-unseen)")
    p.add_argument("--threads", type=_thread_counts, default=[1],
                   help="threads for every encoder (default 1: one encode call per chunk; more: one batch call per "
                        "pass); a list such as 1,2,4,8,16 measures each, in fresh processes, as --runs does")
    p.add_argument("--runs", type=_threads, default=1,
                   help="measure each encoder this many times, each in a fresh process; the median counts (default 1: "
                        "all in this process)")
    p.add_argument("--against", help=f"comma-separated peers to measure: {','.join(PEERS)} "
                                     "(default: all that apply to the tokenizer's format; '' for none)")
    p.add_argument("--chunk-kb", type=float, default=8, help="chunk size in KB (default 8)")
    p.add_argument("--limit-kb", type=float, help="use only the first KB of each file")
    p.add_argument("--repeat", type=int, default=3, help="runs of the repeat pass; the fastest counts (default 3)")
    p.add_argument("--json", action="store_true", help="the report as JSON")
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser("train", help="train a tokenizer on text files and write it (.json: tokenizer.json)")
    p.add_argument("files", nargs="+", help="training text files (UTF-8), URLs or URL globs (s3://bucket/corpus/*.txt: "
                                            "read with fsspec on the cluster's workers, or on one worker process "
                                            "here)")
    p.add_argument("--model", required=True, choices=["bpe", "bytelevel-bpe", "wordpiece", "unigram"])
    p.add_argument("--vocab-size", type=int, required=True, help="size of the whole vocabulary")
    p.add_argument("-o", "--output", required=True, help="file to write: NAME.json (tokenizer.json) or vocab.txt")
    p.add_argument("--force", action="store_true", help="replace the output file if it exists")
    p.add_argument("--pattern", help="bytelevel-bpe split pattern: gpt2 (default), cl100k, o200k, llama3, qwen2 or a regex")
    p.add_argument("--min-frequency", type=int, default=2, help="least count of a learned pair or piece (default 2)")
    p.add_argument("--min-word-count", type=int, default=1, metavar="N",
                   help="once the corpus is counted, drop the words seen fewer than N times before learning "
                        "(bounds memory on a big corpus; default 1: keep all)")
    p.add_argument("--special-tokens", help="comma-separated special tokens, given the first ids (e.g. <unk>,<s>,</s>)")
    p.add_argument("--user-defined-symbols", help="comma-separated symbols always kept whole")
    p.add_argument("--reserved-tokens", type=int, default=0, help="N reserved special tokens <|reserved_special_token_i|>")
    p.add_argument("--split-digits", action="store_true", help="every digit its own token")
    p.add_argument("--max-token-length", type=int, help="longest token, in characters (bytes for bytelevel-bpe)")
    p.add_argument("--character-coverage", type=float, default=1.0, help="share of the text's characters to keep (unigram, bpe)")
    p.add_argument("--byte-fallback", action="store_true", help="unknown characters as <0xNN> byte tokens")
    p.add_argument("--initial-alphabet", help="characters always in the vocabulary")
    p.add_argument("--limit-alphabet", type=int, help="keep at most this many characters")
    p.add_argument("--collapse-whitespace", action="store_true", help="runs of white space count as one space")
    p.add_argument("--tie-break", choices=["hf", "minbpe"], default="hf",
                   help="BPE/WordPiece pairs of equal count: hf (HF BpeTrainer's: the lowest ids, the default) "
                        "or minbpe (the pair that occurs first in the text; pure Python, slower)")
    p.add_argument("--pad-to-multiple-of", type=int, help="round the vocabulary up with reserved tokens (64, 128...)")
    p.add_argument("--end-of-word", choices=["separate", "glued", "none"], default="separate",
                   help="bpe: the end-of-word marker as a symbol of its own (Sennrich et al., default), glued to "
                        "the last character (HF tokenizers' end_of_word_suffix; a .json needs it), or none")
    p.add_argument("--marker", default="</w>", help="bpe: the end-of-word marker (default </w>)")
    p.add_argument("--threads", type=_threads, help="threads (default: one per core)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    cluster_args(p, "count the words (bpe, bytelevel-bpe)")
    p.set_defaults(func=cmd_train)

    from .cli_learn import add_learn_parser

    add_learn_parser(sub)

    p = sub.add_parser("export", help="write a tokenizer in another format (refused, with the reason, when the "
                                      "format cannot hold it exactly)")
    tok_arg(p)
    p.add_argument("--format", help="hf-json, vocab-merges, tiktoken, tekken, sentencepiece, wordpiece-vocab, "
                                    "minbpe, vocab-tsv or vocab-csv (default: from the output name)")
    p.add_argument("-o", "--output", required=True, help="file to write (vocab-merges: a folder, or NAME for "
                                                         "NAME-vocab.json + NAME-merges.txt)")
    p.add_argument("--scrub", action="store_true", help="leave out training metadata (corpus paths, self-test text)")
    p.add_argument("--force", action="store_true", help="replace existing files")
    p.add_argument("--json", action="store_true", help="print the format and the files written as JSON")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("fairness", help="parallel text in several languages: token premium against a pivot "
                                        "language, chars/bytes per token, single-token word rate, unknown share")
    tok_arg(p, many=True)
    p.add_argument("files", nargs="*", help="one file per language (de.txt, page.pt_BR.txt...) or a folder of *.txt "
                                            "(default: the shipped sample, whatis(1) in 18 languages)")
    p.add_argument("--pivot", default="en", help="the language the premium is relative to (default en)")
    p.add_argument("--table", choices=["markdown", "csv"], help="format of the table (default markdown)")
    p.add_argument("--long", action="store_true", help="one row per tokenizer and language with every figure")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_fairness)

    p = sub.add_parser("robustness", help="token-count inflation under perturbations (homoglyphs, styled letters, "
                                          "case, diacritics, OCR typos, full-width, LaTeX)")
    tok_arg(p, many=True)
    p.add_argument("file", nargs="?", help="text file ('-': standard input; nothing: the shipped sample text)")
    p.add_argument("--perturbation", action="append", metavar="NAME",
                   help="perturbation to apply (repeatable or comma-separated; default all): homoglyph, styled-bold, styled-italic, "
                        "styled-sans, styled-mono, fullwidth, diacritics-add, diacritics-remove, upper, lower, "
                        "random-case, ocr, latex")
    p.add_argument("--rate", type=float, default=0.3, help="share of eligible characters changed, 0..1 (default 0.3)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--table", choices=["markdown", "csv"], help="format of the table (default markdown)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_robustness)

    p = sub.add_parser("overlap", help="vocabulary overlap and merge-order agreement: was one tokenizer derived "
                                       "from another?")
    tok_arg(p, many=True)
    p.add_argument("--table", choices=["markdown", "csv"], help="format of the table (default markdown)")
    p.add_argument("--json", action="store_true", help="the whole report as JSON")
    p.set_defaults(func=cmd_overlap)

    p = sub.add_parser("roundtrip", help="what the normalizer changes and where decode(encode(text)) != text")
    tok_arg(p)
    p.add_argument("file", nargs="?", help="text file ('-' or nothing: standard input)")
    p.add_argument("--show", type=int, default=20, help="differences listed of each kind of list (default 20)")
    p.add_argument("--table", choices=["markdown", "csv"], help="every difference as a table row (start, end, "
                                                              "original, normalized, decoded, kind, detail, stage)")
    p.add_argument("--json", action="store_true", help="the report as JSON (--show differences of each list)")
    p.set_defaults(func=cmd_roundtrip)

    p = sub.add_parser("screenshot", help="render a view to a PNG (offscreen)")
    p.add_argument("view", help="explorer, window, merges, vocab, stats, compare, train, chat, robustness, fairness, overlap, learn, learn-wordpiece or learn-unigram")
    tok_arg(p, many=True)
    p.add_argument("--text", help="text file to show (default: the sample text; chat: a JSON conversation)")
    p.add_argument("-o", "--output", required=True, help="PNG file to write")
    p.add_argument("--size", type=_size, default=(1200, 800), help="window size, e.g. 1200x800")
    p.add_argument("--dock", default="merges",
                   help="window: the right-hand dock raised (merges, vocab, stats, train, edit or roundtrip)")
    p.add_argument("--tab", default="explorer", help="window: the tab showing (explorer, compare, chat, or the "
                                                    "Analyses tab run on a page: fairness, robustness, overlap)")
    p.add_argument("--lang", type=_language, metavar="LANG", help="the language shown: en (default) or zh_CN")
    p.set_defaults(func=cmd_screenshot)
    return parser


def main(argv: list[str] | None = None) -> int:
    from . import interrupts

    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command in (None, "screenshot"):  # shiboken's start-up aborts the process when interrupted
            with interrupts.held():
                try:
                    import PySide6.QtWidgets  # noqa: F401
                except ImportError:
                    pass
        if args.command == "fetch":
            interrupts.watch_outputs([], note="the download stopped (complete files stay in the cache)")
        else:
            interrupts.watch_outputs([getattr(args, "output", None)])
        if args.command is None:
            from .gui.app import run

            return run(args.tokenizer, args.text, args.lang)
        if args.command == "screenshot":  # (Qt calls into Python there, and drops what is raised: held to the end)
            with interrupts.noted() as received:
                status = args.func(args)
            if received:
                raise interrupts.Interrupted(received[0])
            return status
        return args.func(args)
    except TokvizError as exc:
        print(f"tokviz: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # (the reader of stdout went away: nothing more to say)
        interrupts.silence_stdout()
        return 0
    except KeyboardInterrupt as exc:  # SIGINT or SIGTERM: one line that says what was written, 130 / 143
        return interrupts.report(exc)
