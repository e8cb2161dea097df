"""Learn runs as Markdown: the tables of each step, for teaching material (`tokviz learn`)."""
from __future__ import annotations

from ...messages import QT_TRANSLATE_NOOP, Message

ROWS = 30  # a table longer than this shows its first rows and says how many more


def table(header: list[str], rows: list[list], limit: int = ROWS) -> list[str]:
    """A Markdown table; past `limit` rows, a line saying how many were left out."""
    out = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    for row in rows[:limit]:
        out.append("| " + " | ".join(cell(c) for c in row) + " |")
    if len(rows) > limit:
        out.append("")
        out.append(str(Message(QT_TRANSLATE_NOOP("learn", "… and {n} more rows"), n=len(rows) - limit)))
    return out


def cell(value) -> str:
    """A value as a Markdown table cell: symbols in code spans, pipes escaped."""
    if isinstance(value, str):
        text = value.replace("|", "\\|")
        return f"`{text}`" if "`" not in text else text
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def symbols(parts: list[str]) -> str:
    return " ".join(p.replace("|", "\\|") for p in parts)


def merge_run_markdown(run, max_steps: int | None = None) -> str:
    """Every step of a MergeRun: the corpus, the pair counts (and WordPiece's scores), the pick and
    its ties, the new symbol and how the symbols in use changed; then the merges and the stop."""
    lines = [f"# {run.model}: " + str(Message(QT_TRANSLATE_NOOP("learn", "{steps} merges"), steps=len(run.steps))), ""]
    lines += table(["word", "count"], [[w, c] for w, c in zip(run.words, run.counts)])
    lines.append("")
    shown = run.steps if max_steps is None else run.steps[:max_steps]
    for s in shown:
        lines.append(f"## {Message(QT_TRANSLATE_NOOP('learn', 'Step {n}'), n=s.number)}: "
                     f"`{s.merge[0]}` + `{s.merge[1]}` → `{s.new_symbol}` ({s.count})")
        lines.append("")
        lines += table(["symbols", "count"], [[symbols(w), n] for w, n in s.words])
        lines.append("")
        if s.scores is not None:
            lines += table(["pair", "count(ab)", "count(a)", "count(b)", "score"],
                           [[f"{a} {b}", ab, ca, cb, ab / (ca * cb)] for a, b, ab, ca, cb in s.scores])
            if s.bpe_pick is not None:
                lines.append("")
                lines.append(str(Message(QT_TRANSLATE_NOOP("learn", "BPE would merge {left} + {right}, the most frequent "
                                                                    "pair; WordPiece prefers the pair whose parts are "
                                                                    "rarer on their own."),
                                         left=s.bpe_pick[0], right=s.bpe_pick[1])))
        else:
            lines += table(["pair", "count"], [[f"{a} {b}", c] for a, b, c in s.pair_counts])
        lines.append("")
        if s.tied:
            from .merges import TIE_RULES

            lines.append(str(Message(QT_TRANSLATE_NOOP("learn", "Tied with {pairs}: {rule}."),
                                     pairs=", ".join(f"`{a}` + `{b}`" for a, b in s.tied),
                                     rule=Message(TIE_RULES[run.options.tie_break]))))
            lines.append("")
        lines.append(str(change_sentence(s)))
        lines.append("")
    if max_steps is not None and len(run.steps) > max_steps:
        lines.append(str(Message(QT_TRANSLATE_NOOP("learn", "… {n} more steps"), n=len(run.steps) - max_steps)))
        lines.append("")
    lines.append("## " + str(Message(QT_TRANSLATE_NOOP("learn", "Merges"))))
    lines.append("")
    lines += [f"{k}. `{a}` + `{b}`" for k, (a, b) in enumerate(run.merges, 1)]
    lines.append("")
    lines.append(str(Message(QT_TRANSLATE_NOOP("learn", "Stopped: {reason}."), reason=run.stop)))
    lines.append("")
    return "\n".join(lines)


def change_sentence(step) -> str:
    """'Symbols in use: 10 → 11 (+1): w</w> is new; w and </w> still occur elsewhere.' and so on."""
    delta = f"{step.delta:+d}"
    if not step.new:
        why = Message(QT_TRANSLATE_NOOP("learn", "{symbol} was already a token"), symbol=step.new_symbol)
    elif not step.gone:
        why = Message(QT_TRANSLATE_NOOP("learn", "{symbol} is new; {left} and {right} still occur elsewhere"),
                      symbol=step.new_symbol, left=step.merge[0], right=step.merge[1])
    elif len(step.gone) == 1 and step.merge[0] != step.merge[1]:
        why = Message(QT_TRANSLATE_NOOP("learn", "{symbol} is new; {gone} no longer occurs on its own"),
                      symbol=step.new_symbol, gone=step.gone[0])
    else:
        why = Message(QT_TRANSLATE_NOOP("learn", "{symbol} is new; {gone} no longer occur on their own"),
                      symbol=step.new_symbol, gone=" / ".join(step.gone))
    return Message(QT_TRANSLATE_NOOP("learn", "Symbols in the corpus: {before} → {after} ({delta}): {why}. "
                                              "Vocabulary: {size} tokens."),
                   before=step.symbols_before, after=step.symbols_after, delta=delta, why=why, size=step.vocab_size)
