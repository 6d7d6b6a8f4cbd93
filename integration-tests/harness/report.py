"""The results table: one row per scenario (or per variant of one).

Units: a *line* is one collapsed stack with a count, the unit the extension
sends and arclamp-log writes (`sent`, `received`, `written`, `lost`,
`invalid` are lines); *samples* is the sum of the counts of the lines
written (the number of timer samples they stand for). `lost` = sent -
written - invalid: lines that went missing, as opposed to lines arclamp-log
refused on purpose (`invalid`). Lines written beyond what the extensions
counted as sent are shown apart, as `extra`, never as a negative loss: a
line counted as failed whose message arrived after all, or a stream entry
read again after a lost acknowledgement. (The row keeps the signed
difference as `lost` for the scenarios' own assertions.)
"""

import os

RESULTS = []
NOTES = []      # lines printed under the table (set-up timings, ...)


def note(line):
    NOTES.append(line)

COLUMNS = [
    ("scenario", "scenario", "<"),
    ("sent", "sent", ">"),
    ("received", "received", ">"),
    ("written", "written", ">"),
    ("lost_shown", "lost", ">"),
    ("lost_pct", "lost %", ">"),
    ("extra", "extra", ">"),
    ("invalid", "invalid", ">"),
    ("samples", "samples", ">"),
    ("requests", "requests", ">"),
    ("p50_ms", "p50 ms", ">"),
    ("p99_ms", "p99 ms", ">"),
    ("seconds", "time s", ">"),
    ("note", "note", "<"),
]


def record(scenario, sent, received, written, invalid, samples=None, latencies=None,
           requests=None, seconds=None, note=""):
    """Adds a row. latencies: seconds per request (p50/p99 in ms are derived)."""
    from .fcgi import percentile
    lost = sent - written - (invalid or 0) if sent is not None and written is not None else None
    row = {
        "scenario": scenario, "sent": sent, "received": received, "written": written,
        "lost": lost,
        "lost_shown": max(lost, 0) if lost is not None else None,
        "extra": max(-lost, 0) if lost is not None else None,
        "lost_pct": ("%.2f" % (100.0 * max(lost, 0) / sent)) if lost is not None and sent else
                    ("0.00" if lost is not None and lost <= 0 else None),
        "invalid": invalid, "samples": samples,
        "requests": requests if requests is not None else (len(latencies) if latencies else None),
        "p50_ms": "%.1f" % (1000 * percentile(latencies, 50)) if latencies else None,
        "p99_ms": "%.1f" % (1000 * percentile(latencies, 99)) if latencies else None,
        "seconds": "%.1f" % seconds if seconds is not None else None,
        "note": note,
    }
    RESULTS.append(row)
    return row


def scenario_order(row):
    """Rows by scenario number (the leading number of the name), then as recorded."""
    head = row["scenario"].split(" ", 1)[0]
    return int(head) if head.isdigit() else 1 << 30


def format_table(rows=None):
    rows = sorted(RESULTS, key=scenario_order) if rows is None else rows
    if not rows:
        return "(no results)"
    cells = [[h for _, h, _ in COLUMNS]]
    for r in rows:
        cells.append(["" if r.get(k) is None else str(r.get(k)) for k, _, _ in COLUMNS])
    widths = [max(len(c[i]) for c in cells) for i in range(len(COLUMNS))]
    out = []
    for n, c in enumerate(cells):
        out.append("  ".join((c[i].ljust(widths[i]) if COLUMNS[i][2] == "<" else c[i].rjust(widths[i]))
                             for i in range(len(COLUMNS))).rstrip())
        if n == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def write_file(path):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        f.write(format_table() + "\n")
