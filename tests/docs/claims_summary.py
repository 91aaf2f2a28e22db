#!/usr/bin/env python3
"""README.md's short claims summary is the reference report's table, row for row (ctest
docs.readme_claims_summary).

The README quotes, between the lines
    <!-- claims-summary: begin -->
    <!-- claims-summary: end -->
a table `| id | statement | verdict |` whose rows are the id, statement and verdict cells of
reports/reference/claims-table.md, verbatim and in the same order (docs/claims.md quotes the whole
table; tests/docs/claims_table.cmake checks that one). So regenerating the reference and forgetting
the README fails ctest, and the failure names the first row that differs.

Check:  python3 tests/docs/claims_summary.py --readme README.md --table reports/reference/claims-table.md
Write:  python3 tests/docs/claims_summary.py --table reports/reference/claims-table.md --print
        (the summary to paste between the README's markers, markers included)
"""
import argparse
import re
import sys

BEGIN = "<!-- claims-summary: begin -->"
END = "<!-- claims-summary: end -->"
HEADER = ["id", "statement", "verdict"]
TABLE_HEADER = ["id", "statement", "method", "range checked", "verdict", "paper", "key quantity"]


def cells(line):
    """The cells of one Markdown table row (an escaped \\| stays inside its cell)."""
    body = line.strip()
    if not (body.startswith("|") and body.endswith("|")) or len(body) < 2:
        return None
    return [c.strip() for c in re.split(r"(?<!\\)\|", body[1:-1])]


def table_rows(lines, where):
    """(header, [(line number, cells)]) of the Markdown table in `lines` (pairs of number, text)."""
    rows = []
    for n, t in lines:
        if not t.strip():
            continue
        c = cells(t)
        if c is None:
            raise ValueError(f"{where}:{n}: not a table row: {t}")
        rows.append((n, c))
    if len(rows) < 2 or not all(re.fullmatch(r":?-{3,}:?", c) for c in rows[1][1]):
        raise ValueError(f"{where}: no Markdown table (a header row, then a |---| row)")
    return rows[0][1], rows[2:]


def summary_of(table_path):
    """[(line number, [id, statement, verdict])] from claims-table.md."""
    with open(table_path, encoding="utf-8") as f:
        lines = list(enumerate(f.read().split("\n"), 1))
    header, rows = table_rows(lines, table_path)
    if header != TABLE_HEADER:
        raise ValueError(f"{table_path}:1: header {header}, expected {TABLE_HEADER}")
    out = []
    for n, c in rows:
        if len(c) != len(TABLE_HEADER):
            raise ValueError(f"{table_path}:{n}: {len(c)} cells, expected {len(TABLE_HEADER)}")
        out.append((n, [c[0], c[1], c[4]]))
    return out


def readme_summary(readme_path):
    """[(line number, cells)] of the README's summary between its markers."""
    with open(readme_path, encoding="utf-8") as f:
        lines = list(enumerate(f.read().split("\n"), 1))
    begin = [n for n, t in lines if t.strip() == BEGIN]
    end = [n for n, t in lines if t.strip() == END]
    if len(begin) != 1 or len(end) != 1 or end[0] < begin[0]:
        raise ValueError(f"{readme_path}: expected one line '{BEGIN}', then the summary, then one line '{END}'")
    header, rows = table_rows(lines[begin[0]:end[0] - 1], readme_path)
    if header != HEADER:
        raise ValueError(f"{readme_path}:{begin[0] + 1}: header {header}, expected {HEADER}")
    return rows


def markdown(summary):
    out = [BEGIN, "| " + " | ".join(HEADER) + " |", "|---|---|---|"]
    out += ["| " + " | ".join(c) + " |" for _, c in summary]
    return "\n".join(out + [END])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--table", required=True, help="reports/reference/claims-table.md")
    parser.add_argument("--readme", help="README.md to check")
    parser.add_argument("--print", action="store_true", help="print the summary the README must quote")
    args = parser.parse_args()
    try:
        expected = summary_of(args.table)
        if args.print:
            print(markdown(expected))
            return 0
        if not args.readme:
            parser.error("--readme or --print")
        got = readme_summary(args.readme)
    except (OSError, ValueError) as e:
        print(f"claims_summary: {e}", file=sys.stderr)
        return 2
    for i in range(max(len(got), len(expected))):
        g = got[i] if i < len(got) else None
        e = expected[i] if i < len(expected) else None
        if g is not None and e is not None and g[1] == e[1]:
            continue
        print(f"{args.readme}: the claims summary differs from {args.table} at summary row {i + 1}:")
        if g is None:
            print(f"  {args.readme}: (no row: the summary ends at line {got[-1][0] if got else '?'})")
        else:
            print(f"  {args.readme}:{g[0]}: | " + " | ".join(g[1]) + " |")
        if e is None:
            print(f"  {args.table}: (no row: the table has {len(expected)})")
        else:
            print(f"  {args.table}:{e[0]}: | " + " | ".join(e[1]) + " |  (its id, statement and verdict)")
        if g is not None and e is not None:
            for name, a, b in zip(HEADER, g[1], e[1]):
                if a != b:
                    print(f"  first differing cell: {name}")
                    break
        print(f"Regenerate it: python3 tests/docs/claims_summary.py --table {args.table} --print")
        return 1
    print(f"claims_summary: {args.readme} summarises all {len(expected)} rows of {args.table}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
