"""The results table itself: a duplicate is shown as a duplicate, never as a
negative loss."""

from harness import report


def cells_of(table, scenario):
    """{column heading: cell text} of one row, cut where the dashes are."""
    header, dashes, *rows = table.splitlines()
    spans, pos = [], 0
    for d in dashes.split("  "):
        spans.append((pos, pos + len(d)))
        pos += len(d) + 2
    for r in rows:
        if r.startswith(scenario):
            return {header[a:b].strip(): r[a:b].strip() for a, b in spans}
    raise AssertionError("no row %r in\n%s" % (scenario, table))


def test_lines_written_beyond_the_sent_ones_are_extra_not_negative_loss():
    saved = list(report.RESULTS)
    try:
        report.RESULTS[:] = []
        report.record("9 dup", sent=100, received=103, written=103, invalid=0)
        report.record("9 gap", sent=100, received=97, written=97, invalid=0)
        table = report.format_table()
    finally:
        report.RESULTS[:] = saved
    assert "-3" not in table and "-3.00" not in table, table
    dup = cells_of(table, "9 dup")
    gap = cells_of(table, "9 gap")
    assert (dup["lost"], dup["extra"]) == ("0", "3"), table
    assert (gap["lost"], gap["extra"]) == ("3", "0"), table
    assert gap["lost %"] == "3.00" and dup["lost %"] == "0.00", table
