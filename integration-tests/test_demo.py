"""`make demo` as a newcomer reads it: it ends with a short summary whose
paths exist, the hottest stacks show where they differ, and every hostile
message it sends is accounted for."""

import os
import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_demo_ends_with_a_summary_a_newcomer_can_follow():
    r = subprocess.run([str(REPO / "scripts/demo")], capture_output=True, timeout=300)
    out = r.stdout.decode()
    assert r.returncode == 0, r.stderr.decode()[-2000:]
    summary = out[out.rindex("Arc Lamp demo: done"):]
    assert len(summary.splitlines()) <= 16, summary
    opened = re.findall(r"file://(\S+)", summary)
    assert len(opened) == 2 and all(os.path.isfile(p) for p in opened), summary
    assert Path(opened[0]).read_bytes().startswith(b"<?xml"), opened[0]   # plain SVG
    n = int(re.search(r"Flame graphs: (\d+)", summary).group(1))
    assert n == len(list((REPO / "build/demo/svgs").rglob("*.svgz"))) and n > 0

    # the three hottest stacks: distinct where they are shown
    hot = out[out.index("Samples from the real PHP requests"):].split("\n\n")[0].splitlines()
    shown = [l.split("  ...;", 1)[1] for l in hot if "  ...;" in l]
    assert len(shown) == 3 and len(set(shown)) == 3, hot

    # each refused hostile message with its counter at 1, the valid one found in the logs
    hostile = out[out.index("The hostile messages"):].split("\n\n")[0]
    for reason in ("empty", "control_char", "bad_count", "empty_frame", "invalid_utf8"):
        assert re.search(r"refused as %s\s+\(counter: 1\)" % reason, hostile), (reason, hostile)
    assert "../../etc/passwd;x 1" in hostile and ".all.log" in hostile, hostile
