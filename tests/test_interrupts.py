"""SIGINT and SIGTERM at random moments of real `tokviz` processes (the console script as pip
writes it for pyproject.toml's entry point, and `python -m tokviz`): exactly one line on stderr,
never a traceback, exit status 130 / 143, and no new, changed or partial file.

The signal goes to the process group, as Ctrl+C in a terminal does.  A run the signal reaches only
after the command has finished must show the command's complete result instead."""
from __future__ import annotations

import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from tokviz.defaults import default_tokenizer_path

ROOT = Path(__file__).resolve().parents[1]
DEMO = str(default_tokenizer_path())
LINE = re.compile(r"tokviz: (interrupted|terminated)(; .+| after writing .+)")
WORDS = 60_000


@dataclass(frozen=True)
class Command:
    name: str
    argv: tuple[str, ...]       # OUT stands for the output path of the run
    output: str | None = None   # its name in the run's folder
    old: str | None = None      # a folder whose files are there before the run (an older output)


@dataclass
class Outcome:
    returncode: int
    stdout: bytes
    stderr: str
    files: dict[str, bytes]  # the run's work folder afterwards
    target: str | None       # the output path given to the command


def _text(rng: random.Random, words: list[str], n: int) -> str:
    """n words of a made-up language, Zipf-like, in lines of twelve."""
    weights = [1 / (i + 20) for i in range(len(words))]
    picked = rng.choices(words, weights, k=n)
    return "\n".join(" ".join(picked[i:i + 12]) for i in range(0, n, 12)) + "\n"


def _files(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` (temporary ones included) by relative path: its bytes; a folder: b'<dir>'."""
    found = {}
    for path in sorted(folder.rglob("*")):
        found[str(path.relative_to(folder))] = b"<dir>" if path.is_dir() else path.read_bytes()
    return found


class World:
    """Inputs made once: a big text, a training corpus, a trained tokenizer, the console script."""

    def __init__(self, base: Path):
        self.base = base
        rng = random.Random(37)
        syllables = [a + b for a in "bcdfghklmnprstvz" for b in "aeiou"] + list("aeiou")
        words = ["".join(rng.choice(syllables) for _ in range(rng.randint(1, 5))) for _ in range(WORDS)]
        self.big = base / "big.txt"
        self.big.write_text(_text(rng, words, 900_000), encoding="utf-8")
        self.corpus = base / "corpus.txt"
        self.corpus.write_text(_text(rng, words, 300_000), encoding="utf-8")
        entry = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]["tokviz"]
        module, function = entry.split(":")
        script = base / "tokviz-script"
        script.write_text(f"import sys\nfrom {module} import {function}\n\nif __name__ == '__main__':\n"
                          f"    sys.exit({function}())\n", encoding="utf-8")  # (the guard: spawned workers import it)
        self.launchers = {"console script": (sys.executable, str(script)), "python -m": (sys.executable, "-m", "tokviz")}
        self.trained = base / "trained.json"
        done = self.call(("train", "--model", "bytelevel-bpe", "--vocab-size", "3000", "--quiet", "-o", str(self.trained),
                          str(self.corpus)))
        assert done.returncode == 0, done.stderr
        self.old_folder = base / "old-folder"
        self.old_folder.mkdir()
        done = self.call(("export", "-t", DEMO, "--format", "vocab-merges", "-o", str(self.old_folder / "folder")))
        assert done.returncode == 0, done.stderr
        self.old_file = base / "old-file"
        self.old_file.mkdir()
        (self.old_file / "old.json").write_bytes(self.trained.read_bytes())
        self.commands = [
            Command("encode", ("encode", "-t", DEMO, str(self.big))),
            Command("stats", ("stats", "-t", DEMO, "--corpus", str(self.big))),
            Command("info", ("info", "-t", DEMO)),
            Command("train", ("train", "--model", "wordpiece", "--vocab-size", "4000", "--quiet", "-o", "OUT",
                              str(self.corpus)), output="new.json"),
            Command("train --force", ("train", "--model", "unigram", "--vocab-size", "3000", "--quiet", "--force",
                                      "-o", "OUT", str(self.corpus)), output="old.json", old=str(self.old_file)),
            Command("export folder", ("export", "-t", str(self.trained), "--format", "vocab-merges", "--force",
                                      "-o", "OUT"), output="folder", old=str(self.old_folder)),
            Command("export file", ("export", "-t", str(self.trained), "--format", "hf-json", "-o", "OUT"),
                    output="tok.json"),
        ]
        self.runs = 0
        self.baseline = {}
        with ThreadPoolExecutor(2) as pool:
            for command, (seconds, outcome) in zip(self.commands, pool.map(self.timed, self.commands)):
                assert outcome.returncode == 0 and outcome.stderr == "", (command.name, outcome.stderr)
                self.baseline[command.name] = (seconds, outcome)

    def environ(self, folder: Path) -> dict[str, str]:
        env = dict(os.environ, TOKVIZ_SETTINGS=str(folder / "settings" / "settings.ini"),
                   QT_QPA_PLATFORM="offscreen", QT_LOGGING_RULES="default.warning=false")
        env.pop("PYTHONWARNINGS", None)
        return env

    def call(self, argv) -> subprocess.CompletedProcess:
        return subprocess.run([*self.launchers["python -m"], *argv], cwd=ROOT, capture_output=True, text=True,
                              timeout=120)

    def folder(self, command: Command) -> Path:
        self.runs += 1
        folder = self.base / f"run{self.runs}"
        if command.old:
            shutil.copytree(command.old, folder)
        else:
            folder.mkdir()
        return folder

    def argv(self, command: Command, folder: Path) -> list[str]:
        return [str(folder / command.output) if a == "OUT" else a for a in command.argv]

    def timed(self, command: Command) -> tuple[float, Outcome]:
        """The seconds `command` runs once its signal policy is in force, and its outcome."""
        return self.signalled(command, None, 0.0, "python -m", after_policy=True)

    def signalled(self, command: Command, signum: int | None, delay: float, launcher: str,
                  argv: list[str] | None = None, after_policy: bool = False) -> tuple[float, Outcome]:
        """Run `command` in a fresh folder, send `signum` to its process group `delay` s after the
        start, or after its signal policy is in force (`after_policy`); the seconds from that
        moment to the end, and the outcome."""
        folder = self.folder(command)
        work = folder / "work"
        work.mkdir()
        (folder / "settings").mkdir()
        for name in os.listdir(folder):  # (an older output sits in the work folder)
            if name not in ("work", "settings"):
                shutil.move(folder / name, work / name)
        started = time.monotonic()
        proc = subprocess.Popen([*self.launchers[launcher], *(self.argv(command, work) if argv is None else argv)], cwd=ROOT,
                                env=self.environ(folder), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True)
        if after_policy:
            _wait_for_the_policy(proc)
            started = time.monotonic()
        if signum is not None:
            time.sleep(delay)
            try:
                os.killpg(proc.pid, signum)
            except ProcessLookupError:
                pass
        try:
            out, err = proc.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            pytest.fail(f"{command.name}: no end 120 s after {signal.Signals(signum).name if signum else 'start'}")
        seconds = time.monotonic() - started
        target = str(work / command.output) if command.output else None
        return seconds, Outcome(proc.returncode, out, err.decode("utf-8", "replace"), _files(work), target)


def _policy_in_force(pid: int) -> bool | None:
    """Whether the process catches SIGTERM (tokviz's policy is installed: Python alone leaves it
    to the system), from /proc; None where there is no /proc to tell."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return None if not Path("/proc/self/status").exists() else False
    caught = int(re.search(r"^SigCgt:\s*([0-9a-f]+)", status, re.M).group(1), 16)
    return bool(caught >> (signal.SIGTERM - 1) & 1)


def _wait_for_the_policy(proc: subprocess.Popen) -> None:
    while proc.poll() is None:
        state = _policy_in_force(proc.pid)
        if state or state is None:
            return
        time.sleep(0.001)


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> World:
    return World(tmp_path_factory.mktemp("interrupts"))


def _old_files(command: Command) -> dict[str, bytes]:
    return _files(Path(command.old)) if command.old else {}


BEFORE_THE_POLICY = ("__init__.py", "__main__.py", "console.py", "interrupts.py", "launch.py")
# (launch.main re-runs the app in its environment and imports console: the policy comes after)
LAUNCHER_FUNCTIONS = ("main", "relaunch_app", "wants_app_environment", "opens_the_app", "run_again_in_app_environment")


def _frames_after_the_policy(stderr: str) -> list[str]:
    """The frames of a traceback in tokviz's code but the module bodies that run before its signal
    policy is installed (the package's, __main__'s, console's and interrupts' own imports) and the
    launcher's functions (tokviz/launch.py) that import them."""
    late = []
    for path, function in re.findall(r'File "([^"]+)", line \d+, in (\S+)', stderr):
        where = Path(path)
        if "tokviz" not in where.parts[:-1]:
            continue  # the interpreter's start-up, the standard library, the launcher
        if where.parent.name == "tokviz" and where.name in BEFORE_THE_POLICY and function in ("<module>", "__getattr__"):
            continue
        if where.parent.name == "tokviz" and where.name == "launch.py" and function in LAUNCHER_FUNCTIONS:
            continue
        late.append(f"{path}:{function}")
    return late


def _check(world: World, command: Command, signum: int, delay: float, launcher: str, outcome: Outcome,
           after_policy: bool) -> str:
    """Assert what a run signalled at `delay` s may show; 'interrupted', 'finished' or 'before tokviz'
    (the signal came while the interpreter was starting, before any of tokviz's code could act: only
    where it was not sent `after_policy`)."""
    where = (f"{command.name} via {launcher}, {signal.Signals(signum).name} "
             f"{delay * 1000:.0f} ms after {'the policy was in force' if after_policy else 'the start'}")
    old = _old_files(command)
    if outcome.returncode == 0:  # the signal came after the command had finished: its complete result
        reference = world.baseline[command.name][1]
        assert outcome.stderr == "", where
        assert outcome.files == reference.files, where
        return "finished"
    if outcome.returncode == -signum and outcome.stderr == "" and not after_policy:
        assert outcome.files == old, where
        return "before tokviz"  # (the interpreter had not set up its own handlers yet)
    if outcome.stderr == "python: failed to set __main__.__loader__\n" and not after_policy:
        # (CPython's start-up, interrupted while it set up the script as __main__: no tokviz code ran yet)
        assert outcome.returncode == 1 and outcome.files == old, where
        return "before tokviz"
    if "Traceback" in outcome.stderr and not after_policy:  # (the interpreter's start-up: site, .pth files)
        late = _frames_after_the_policy(outcome.stderr)
        assert not late, f"{where}: a traceback after the policy was installed: {late}\n{outcome.stderr}"
        assert outcome.files == old, where
        return "before tokviz"
    assert outcome.returncode == 128 + signum, f"{where}: exit status {outcome.returncode}\n{outcome.stderr}"
    lines = outcome.stderr.splitlines()
    assert len(lines) == 1 and LINE.fullmatch(lines[0]), f"{where}: stderr is not one line:\n{outcome.stderr}"
    verb = "terminated" if signum == signal.SIGTERM else "interrupted"
    line = lines[0]
    assert line.startswith(f"tokviz: {verb}"), (where, line)
    if " after writing " in line:  # (between the last rename and the exit: the complete new output)
        assert outcome.files == world.baseline[command.name][1].files, where
        return "interrupted"
    assert outcome.files == old, f"{where}: the files changed although {line!r}"
    if command.output is None or line.endswith("; nothing was written"):
        assert command.output is None or line == f"tokviz: {verb}; nothing was written", (where, line)
        return "interrupted"
    kept = ", the old files are kept" if command.output == "folder" else ", the old file is kept"
    assert line == f"tokviz: {verb}; {outcome.target} was not written" + (kept if command.old else ""), (where, line)
    return "interrupted"


def _campaign(world: World, signum: int, runs: int, early_runs: int, seed: int) -> dict[str, int]:
    """`runs` signals at random moments of the commands once the policy is in force (where /proc
    tells; else from the start), and `early_runs` in the first 60 ms from the start; the outcomes."""
    rng = random.Random(seed)
    plan = []
    for i in range(runs):
        command = world.commands[i % len(world.commands)]
        seconds = world.baseline[command.name][0]
        plan.append((command, rng.uniform(0.0, 0.95 * seconds), rng.choice(sorted(world.launchers)), True))
    for i in range(early_runs):  # the first milliseconds: the interpreter starting, tokviz importing
        command = world.commands[(2 * i) % len(world.commands)]
        plan.append((command, rng.uniform(0.0, 0.06), rng.choice(sorted(world.launchers)), False))
    precise = _policy_in_force(os.getpid()) is not None

    def one(item):
        command, delay, launcher, after_policy = item
        # (each run gets its own folder: the OUT of the command is inside it)
        _, outcome = world.signalled(command, signum, delay, launcher, after_policy=after_policy)
        return _check(world, command, signum, delay, launcher, outcome, after_policy and precise)

    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(one, plan))
    counts = {kind: results.count(kind) for kind in set(results)}
    assert counts.get("interrupted", 0) > 0, counts
    return counts


@pytest.mark.slow
def test_sigint_at_random_moments(world):
    counts = _campaign(world, signal.SIGINT, runs=28, early_runs=8, seed=130)
    assert sum(counts.values()) == 36, counts


@pytest.mark.slow
def test_sigterm_at_random_moments(world):
    counts = _campaign(world, signal.SIGTERM, runs=14, early_runs=4, seed=143)
    assert sum(counts.values()) == 18, counts


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_the_app_closes_on_a_signal(world, signum):
    """`tokviz` with no command opens the app; the signal closes it (the session is saved) at any moment."""
    pytest.importorskip("PySide6")
    app = Command("app", ())
    delay = random.Random(int(signum)).uniform(0.0, 3.0)
    _, outcome = world.signalled(app, signum, delay, "console script", argv=[], after_policy=True)
    where = f"the app, {signal.Signals(signum).name} at {delay * 1000:.0f} ms"
    assert outcome.returncode == 128 + signum, f"{where}: {outcome.returncode}\n{outcome.stderr}"
    lines = outcome.stderr.splitlines()
    assert len(lines) == 1 and LINE.fullmatch(lines[0]), f"{where}:\n{outcome.stderr}"
    assert outcome.files == {}


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_screenshot_ends_with_the_line(world, signum):
    """`screenshot` renders in Qt, which drops what Python code it calls raises: the signal is held
    to the end of the command, then the line (saying the PNG was written) and the exit status."""
    pytest.importorskip("PySide6")
    shot = Command("screenshot", ("screenshot", "explorer", "-t", DEMO, "-o", "OUT"), output="shot.png")
    delay = random.Random(int(signum) + 2).uniform(0.0, 1.5)
    _, outcome = world.signalled(shot, signum, delay, "console script", after_policy=True)
    where = f"screenshot, {signal.Signals(signum).name} {delay * 1000:.0f} ms after the policy was in force"
    lines = outcome.stderr.splitlines()
    if outcome.returncode == 0:
        assert outcome.stderr == "" and outcome.files["shot.png"].startswith(b"\x89PNG"), where
        return
    assert outcome.returncode == 128 + signum and len(lines) == 1 and LINE.fullmatch(lines[0]), \
        f"{where}: {outcome.returncode}\n{outcome.stderr}"
    if " after writing " in lines[0]:
        assert list(outcome.files) == ["shot.png"] and outcome.files["shot.png"].startswith(b"\x89PNG"), where
    else:
        assert outcome.files == {}, where


def _session_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_dask_cluster_ends_quietly(world, signum):
    """With --workers the signal reaches the worker processes too (the whole group): they print
    nothing, and none is left once the command has ended."""
    pytest.importorskip("distributed")
    command = Command("stats --workers", ("stats", "-t", DEMO, "--corpus", str(world.big), "--workers", "2"))
    delay = random.Random(int(signum) + 1).uniform(0.5, 3.0)
    folder = world.folder(command)
    (folder / "settings").mkdir()
    proc = subprocess.Popen([*world.launchers["console script"], *command.argv], cwd=ROOT,
                            env=world.environ(folder), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    _wait_for_the_policy(proc)
    time.sleep(delay)
    try:
        os.killpg(proc.pid, signum)
    except ProcessLookupError:
        pass
    out, err = proc.communicate(timeout=120)  # (the workers share stderr: this waits for them too)
    err = err.decode("utf-8", "replace")
    where = f"stats --workers 2, {signal.Signals(signum).name} at {delay * 1000:.0f} ms"
    if proc.returncode != 0:
        assert proc.returncode == 128 + signum, f"{where}: {proc.returncode}\n{err}"
        assert len(err.splitlines()) == 1 and LINE.fullmatch(err.strip()), f"{where}:\n{err}"
    else:
        assert err == "" and b"tokens" in out, where
    for _ in range(150):  # (the workers end once the scheduler closes them; a bounded wait)
        if not _session_alive(proc.pid):
            break
        time.sleep(0.1)
    assert not _session_alive(proc.pid), f"{where}: processes of the run are still alive"


@pytest.mark.slow
def test_a_closed_pipe_is_quiet(world):
    """`tokviz encode ... | head -c 10`: exit 0, nothing on stderr (no 'Exception ignored')."""
    proc = subprocess.Popen([*world.launchers["console script"], "encode", "-t", DEMO, str(world.big)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert len(proc.stdout.read(10)) == 10
    proc.stdout.close()
    err = proc.stderr.read().decode("utf-8", "replace")
    assert proc.wait(timeout=120) == 0 and err == "", err


def test_the_console_module_imports_nothing_heavy():
    """The policy is installed by an import that loads neither numpy nor the tokenizer core nor Qt;
    the public names of `tokviz` still arrive on first use."""
    code = ("import sys, tokviz.console, signal;"
            "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'regex', 'PySide6') "
            "or m.startswith(('tokviz.core', 'tokviz.formats', 'tokviz.cli')));"
            "assert signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL;"
            "import tokviz; from tokviz import load, Tokenizer, TokvizError;"
            "assert set(tokviz.__all__) <= set(dir(tokviz)) and tokviz.formats.load is load;"
            "print(heavy)")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.strip() == "[]", proc.stdout + proc.stderr


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_as_the_command_returns_is_ignored(signum):
    """The signal delivered in the moment the command has returned and `settle` begins (a race
    the random campaign hits now and then): the command's result stands, exit 0, nothing on stderr."""
    code = ("import signal, sys, tokviz.console as console;"
            "real = console.settle;"
            f"console.settle = lambda: (signal.raise_signal({int(signum)}), real());"
            f"sys.exit(console.main(['encode', '-t', {DEMO!r}]))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, input="hello world\n", capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0 and proc.stderr == "" and proc.stdout.split(), proc.stdout + proc.stderr


def test_a_signal_wrapped_by_python_as_a_class_is_made_is_still_an_interruption():
    """A signal in an import can land in a descriptor's __set_name__, and Python 3.11 raises a
    RuntimeError from it: still one line and exit status 143, never a traceback."""
    script = (
        "import signal, tokviz.console as console, tokviz.cli as cli\n"
        "from tokviz.interrupts import Interrupted\n"
        "class Field:\n"
        "    def __set_name__(self, owner, name):\n"
        "        raise Interrupted(signal.SIGTERM)\n"
        "def importing(argv):\n"
        "    class Encoding:\n"
        "        ids = Field()\n"
        "cli.main = importing\n"
        "raise SystemExit(console.main([]))\n"
    )
    run = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert run.returncode == 128 + signal.SIGTERM, run.stderr
    assert "Traceback" not in run.stderr and len(run.stderr.splitlines()) == 1, run.stderr
