"""Peak memory of `encode_file` on a file far larger than the chunks it reads.

    python3 benchmarks/memory_encode_file.py --mb 1024               # 1 GB, demo tokenizer
    python3 benchmarks/memory_encode_file.py --mb 200 -t ../shared/tokenizers/cl100k_base.tiktoken
    python3 benchmarks/memory_encode_file.py --mb 200 --keep-ids     # also keep the ids (array('I'))
    python3 benchmarks/memory_encode_file.py --mb 100 --python       # the pure-Python encoder

The file is written to /tmp from repeated text (../shared/corpus/en.txt when present, else the
shipped sample text) and kept for later runs.  The encoding runs in a fresh subprocess, which
reports its peak resident memory (resource.getrusage ru_maxrss), the time and the token count.
By default the ids are only counted (on_chunk, keep_ids=False): the mode whose memory must not
grow with the file.  With --keep-ids the array of ids (4 bytes a token) is kept as well.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "en.txt"


def make_file(mb: int) -> Path:
    path = Path(f"/tmp/tokviz-big-{mb}mb.txt")
    want = mb * 2**20
    if path.exists() and path.stat().st_size == want:
        return path
    seed = CORPUS if CORPUS.exists() else ROOT / "resources" / "sample.txt"
    block = seed.read_bytes()[: 8 * 2**20]
    block = block[: len(block.decode("utf-8", "ignore").encode("utf-8"))]
    with open(path, "wb") as fh:
        written = 0
        while written < want:
            part = block[: want - written]
            part = part[: len(part.decode("utf-8", "ignore").encode("utf-8"))]
            if not part:  # a character would straddle the end: pad with ASCII
                part = b" " * (want - written)
            fh.write(part)
            written += len(part)
    return path


CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, sys.argv[1])
import tokviz
from tokviz import defaults
from tokviz.core.streaming import encode_file
tok_path, text_path, keep, python = sys.argv[2], sys.argv[3], sys.argv[4] == "1", sys.argv[5] == "1"
tok = tokviz.load(tok_path or defaults.default_tokenizer_path())
if python and hasattr(tok, "use_native"):
    tok.use_native(False)
rss_loaded = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
count = 0
def on_chunk(chunk):
    global count
    count += len(chunk.encoding.ids)
t0 = time.perf_counter()
ids = encode_file(tok, text_path, on_chunk=on_chunk, keep_ids=keep)
seconds = time.perf_counter() - t0
print(json.dumps({
    "tokens": count,
    "encoder": tok.describe().get("encoder", "python"),
    "ids_kept": len(ids) if ids is not None else None,
    "seconds": seconds,
    "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    "rss_after_load_mb": rss_loaded / 1024,
}))
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=int, default=1024, help="file size in MiB (default 1024)")
    ap.add_argument("-t", "--tokenizer", default="", help="tokenizer (default: the demo tokenizer)")
    ap.add_argument("--keep-ids", action="store_true", help="keep the ids in an array('I') too")
    ap.add_argument("--python", action="store_true", help="force the pure-Python encoder")
    args = ap.parse_args()
    path = make_file(args.mb)
    size = path.stat().st_size
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(ROOT), args.tokenizer, str(path), "1" if args.keep_ids else "0",
         "1" if args.python else "0"],
        check=True, capture_output=True, text=True,
    )
    result = json.loads(out.stdout.strip().splitlines()[-1])
    result.update(file=str(path), file_mb=size / 2**20, mb_per_s=size / 2**20 / result["seconds"])
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
