#!/usr/bin/env python3
"""Checks the line numbers of data/source-lines.toml (and data/source-lines/*.toml) against the released sources, and writes the statements they cite.

    scripts/source-anchors.py --src DIR --check   every cite x release: the stripped line at the cited line starts
                                                  with the cite's anchor; a mismatch is listed with the nearest line
                                                  (within 40) that does start with it, as the proposed fix
    scripts/source-anchors.py --src DIR --write   regenerates data/source-statements.tsv (one row per cite x release:
                                                  NAME, release, file, line, the whole statement on one line)
    scripts/source-anchors.py --src DIR --show    prints the stripped cited line of every cite x release
    scripts/source-anchors.py --src DIR --fix     moves every line inside a statement (a string argument, a comment)
                                                  to the first line of the statement holding it (the next one for a
                                                  comment), in data/source-lines.toml; then --check and --write

DIR is laid out as scripts/fetch-vllm-source.sh builds it: vllm-<VER>/vllm/..., flashinfer-<VER>/flashinfer/...
Releases with `source =` in data/releases.toml read their source release's lines and are not listed. The anchor of a
cite is `anchor = "..."` in its table, or `anchors = { "<release>" = "..." }` where the text differs by release (FlashInfer
cites: by FlashInfer release). Standard library only.
"""

import argparse
import ast
import io
import re
import sys
import tokenize
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CAP = 2000
NEAR = 40


LINES = None  # --lines FILE: only that file


def cite_files():
    """data/source-lines.toml, then data/source-lines/*.toml in name order (as build.rs reads them)."""
    if LINES is not None:
        return [LINES]
    return [REPO / "data/source-lines.toml"] + sorted((REPO / "data/source-lines").glob("*.toml"))


def load_cites():
    out, seen = [], {}
    for path in cite_files():
        with open(path, "rb") as f:
            cites = tomllib.load(f)
        text = path.read_text()
        for name in sorted(cites, key=lambda k: text.find(f"[{k}]\n")):
            if name in seen:
                sys.exit(f"[{name}] is defined in {seen[name]} and in {path}")
            seen[name] = path
            out.append((name, dict(cites[name], _file=path)))
    return out


def anchor_of(cite, key):
    return cite.get("anchors", {}).get(key, cite.get("anchor"))


class Source:
    """The files of DIR, read once; their statements by first line, from `ast`."""

    def __init__(self, root):
        self.root = Path(root)
        self.lines = {}
        self.starts = {}

    def path(self, repo, key, file):
        return self.root / f"{repo}-{key}" / file

    def read(self, repo, key, file):
        p = self.path(repo, key, file)
        if p not in self.lines:
            text = p.read_text()
            self.lines[p] = text.splitlines()
            self.starts[p] = statement_spans(text)
        return self.lines[p], self.starts[p]


def all_spans(text):
    """Every statement's (first line, last line); a compound statement spans its header only."""
    out = []
    for node in ast.walk(ast.parse(text)):
        if not isinstance(node, ast.stmt):
            continue
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.stmt) and body[0].lineno > node.lineno:
            out.append((node.lineno, body[0].lineno - 1))
        else:
            out.append((node.lineno, node.end_lineno))
    return out


def statement_spans(text):
    """First line -> (first line, last line) of the outermost statement starting there; a compound statement (if, for,
    def, with, ...) spans its header only."""
    spans = {}
    for node in ast.walk(ast.parse(text)):
        if not isinstance(node, ast.stmt):
            continue
        start = node.lineno
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
            end = body[0].lineno - 1 if body[0].lineno > start else start
        else:
            end = node.end_lineno
        if start not in spans or spans[start][1] < end:
            spans[start] = (start, end)
    return spans


def without_comments(segment):
    """The lines of `segment` with their `#` comments blanked (by `tokenize`; unchanged if it does not tokenize)."""
    out = list(segment)
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO("\n".join(segment) + "\n").readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return out
    for t in tokens:
        if t.type == tokenize.COMMENT:
            row, col = t.start
            out[row - 1] = out[row - 1][:col]
    return out


def statement(lines, spans, line):
    start, end = spans.get(line, (line, line))
    segment = [l.strip() for l in lines[start - 1 : end]]
    parts = [l for l in without_comments(segment) if l]
    text = re.sub(r"\s+", " ", " ".join(parts)).strip()
    return text[:CAP]


def each(src, cites):
    for name, c in cites:
        for key, line in c["lines"].items():
            if line <= 0:
                continue
            lines, spans = src.read(c["repo"], key, c["file"])
            yield name, c, key, line, lines, spans


def check(src, cites):
    bad = 0
    for name, c, key, line, lines, _ in each(src, cites):
        anchor = anchor_of(c, key)
        if anchor is None:
            print(f"[{name}] has no anchor")
            bad += 1
            continue
        got = lines[line - 1].strip() if line <= len(lines) else ""
        if got.startswith(anchor):
            continue
        bad += 1
        near = [n for d in range(1, NEAR + 1) for n in (line - d, line + d) if 0 < n <= len(lines)]
        fix = next((n for n in near if lines[n - 1].strip().startswith(anchor)), None)
        hint = f"nearest match: line {fix}" if fix else f"no line within {NEAR} starts with the anchor"
        print(f"[{name}] {key} {c['file']}:{line}: {got!r} does not start with {anchor!r}; {hint}")
    print(f"{bad} mismatch(es)")
    return 1 if bad else 0


def write(src, cites, out):
    rows = ["# NAME\trelease\tfile\tline\tstatement (generated by scripts/source-anchors.py --write; do not edit)"]
    for name, c, key, line, lines, spans in each(src, cites):
        rows.append(f"{name}\t{key}\t{c['file']}\t{line}\t{statement(lines, spans, line)}")
    Path(out).write_text("\n".join(rows) + "\n")
    print(f"wrote {len(rows) - 1} rows to {out}")
    return 0


def start_of(src, repo, key, file, line):
    """The first line of the innermost statement holding `line`; for a blank or comment line, the next statement's."""
    p = src.path(repo, key, file)
    lines, _ = src.read(repo, key, file)
    spans = all_spans(p.read_text())
    holding = [s for s in spans if s[0] <= line <= s[1]]
    if holding:
        return max(holding)[0]
    if not lines[line - 1].strip() or lines[line - 1].strip().startswith("#"):
        return min(s for s, _ in spans if s > line)
    return line


def fix(src, cites):
    """Moves every line that is not a statement's first line to the first line of the statement holding it, in the
    cite file that defines it (the anchors are not touched: --check afterwards)."""
    texts = {}
    moved = 0
    for name, c, key, line, lines, spans in each(src, cites):
        new = start_of(src, c["repo"], key, c["file"], line)
        if new == line:
            continue
        moved += 1
        print(f"{name}\t{key}\t{line} -> {new}")
        path = c["_file"]
        text = texts.setdefault(path, path.read_text())
        head = text.index(f"[{name}]\n")
        at = text.index("lines = {", head)
        end = text.index("\n", at)
        row = re.sub(rf'"{re.escape(key)}" = {line}\b', f'"{key}" = {new}', text[at:end])
        texts[path] = text[:at] + row + text[end:]
    for path, text in texts.items():
        path.write_text(text)
    print(f"{moved} line(s) moved")
    return 0


def propose(src, cites, new, base, report):
    """Adds `"NEW" = line` to every table that has a line in BASE (the next release, whose lines are checked): the line
    in NEW's file that starts with the table's anchor and whose whole statement equals BASE's; else, when exactly one
    line starts with the anchor, that line, listed in REPORT as "differs" (the statement changed: read it); else none,
    listed as "gone" or "ambiguous". A table that already has NEW is left alone."""
    texts, rows, added = {}, [], 0
    for name, c in cites:
        lines_of = c["lines"]
        if new in lines_of or base not in lines_of:
            continue
        try:
            nlines, nspans = src.read(c["repo"], new, c["file"])
        except FileNotFoundError:
            rows.append(f"{name}\tgone\t{c['file']} is not in {new}")
            continue
        blines, bspans = src.read(c["repo"], base, c["file"])
        want = statement(blines, bspans, lines_of[base])
        anchor = anchor_of(c, base)
        hits = [i + 1 for i, l in enumerate(nlines) if l.strip().startswith(anchor)]
        same = [h for h in hits if statement(nlines, nspans, h) == want]
        if len(same) > 1:
            # several identical statements (a repeated raise): the one at the same rank as BASE's
            bhits = [i + 1 for i, l in enumerate(blines) if l.strip().startswith(anchor) and statement(blines, bspans, i + 1) == want]
            rank = bhits.index(lines_of[base]) if lines_of[base] in bhits else 0
            pick, kind = (same[rank], "same") if rank < len(same) else (None, "ambiguous")
        elif same:
            pick, kind = same[0], "same"
        elif len(hits) == 1:
            pick, kind = hits[0], "differs"
        else:
            pick, kind = None, "gone" if not hits else "ambiguous"
        if kind != "same":
            detail = f"{c['file']}:{pick}" if pick else f"{c['file']} ({len(hits)} lines start with the anchor)"
            rows.append(f"{name}\t{kind}\t{detail}\t{base}: {want[:160]}" + (f"\t{new}: {statement(nlines, nspans, pick)[:160]}" if pick else ""))
        if pick is None:
            continue
        added += 1
        path = c["_file"]
        text = texts.setdefault(path, path.read_text())
        head = text.index(f"[{name}]\n")
        at = text.index("lines = {", head) + len("lines = {")
        texts[path] = text[:at] + f' "{new}" = {pick},' + text[at:]
    for path, text in texts.items():
        path.write_text(text.replace("lines = {  ", "lines = { "))
    Path(report).write_text("\n".join(rows) + "\n")
    print(f"{added} line(s) added for {new}; {len(rows)} to read listed in {report}")
    return 0


def show(src, cites):
    for name, c, key, line, lines, _ in each(src, cites):
        print(f"{name}\t{key}\t{line}\t{lines[line - 1].strip() if line <= len(lines) else '<past the end>'}")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", required=True, help="the unpacked sources (scripts/fetch-vllm-source.sh DIR)")
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--write", action="store_true")
    mode.add_argument("--show", action="store_true")
    mode.add_argument("--fix", action="store_true", help="move lines inside a statement to its first line")
    mode.add_argument("--propose", metavar="NEW", help="add NEW's lines to every table with a line in --base (see propose)")
    ap.add_argument("--base", help="with --propose: the release (or FlashInfer) whose lines NEW's are found from")
    ap.add_argument("--report", default="propose-report.tsv", help="with --propose: where the tables to read are listed")
    ap.add_argument("--out", default=str(REPO / "data/source-statements.tsv"), help="where --write writes")
    ap.add_argument("--lines", default=None, help="read only this cite file (default: data/source-lines.toml and data/source-lines/*.toml)")
    args = ap.parse_args()
    if args.lines:
        global LINES
        LINES = Path(args.lines)
    src, cites = Source(args.src), load_cites()
    if args.write:
        sys.exit(write(src, cites, args.out))
    if args.propose:
        sys.exit(propose(src, cites, args.propose, args.base, args.report))
    run = check if args.check else fix if args.fix else show
    sys.exit(run(src, cites))


if __name__ == "__main__":
    main()
