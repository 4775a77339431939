#!/usr/bin/env python3
"""Generate data/vllm-flags.tsv (and, with --enums, data/vllm-enums.tsv: the per-release name lists serve/enums.rs reads).

Inputs (nothing from vLLM is imported; the released sources are only read as text / AST), under the source folder SRC
(`--src DIR`, else $QPATH_VLLM_SRC, else ./vllm-src; scripts/fetch-vllm-source.sh fills it):
  SRC/notes/flags-<VER>.detail.tsv   the per-release `vllm serve` option lists (see docs/source-notes/cli-flags.md section 3)
  SRC/vllm-<VER>/vllm/...            the released sources, for the few corrections below and for --enums
The releases are those of data/releases.toml (`--releases FILE` to read another) that are released and have no `source`
key: a release with `source = "X"` has X's source files byte for byte, so it has X's rows (qpath reads them through
`Release::source_release`).

Usage:
  scripts/gen-vllm-flags.py [--src DIR] > data/vllm-flags.tsv
  scripts/gen-vllm-flags.py [--src DIR] --enums > data/vllm-enums.tsv

Every option becomes one or more rows `flag aliases kind first last choices type`; a flag gets a new row whenever its
aliases, kind, choices or type change between releases (or, once, when 0.31.0 reordered options: rows are ordered so that
filtering the table by one release gives that release's argparse registration order, which argparse's "ambiguous
option" message follows).
"""
import argparse
import ast
import os
import re
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# Set by main() from data/releases.toml and --src.
VERSIONS = []  # the releases read, in release order
BORROWED = []  # the releases that read another release's rows (`source` key, or never released)
NOTES = ""
SRC = ""


def load_releases(path):
    """The names of the releases to read (released, no `source`), in file order, and the names of the others."""
    with open(path, "rb") as f:
        data = tomllib.load(f)
    own, borrowed = [], []
    for r in data.get("release", []):
        if "name" not in r:
            raise SystemExit(f"{path}: a [[release]] without a name: {r}")
        (own if r.get("released", True) and "source" not in r else borrowed).append(r["name"])
    if not own:
        raise SystemExit(f"{path}: no released release with sources of its own")
    key = lambda v: tuple(int(p) for p in v.split("-")[0].split("."))
    if [key(v) for v in own] != sorted(key(v) for v in own):
        raise SystemExit(f"{path}: releases are not in release order: {own}")
    return own, borrowed

# Frontend fields whose `type` `_customize_cli_kwargs` replaces by a bare `json.loads` (a JSONDecodeError is then a
# ValueError that argparse reports as `invalid loads value: '...'`), entrypoints/*/cli_args.py.
RAW_JSON = {"--default-chat-template-kwargs", "--reasoning-effort-map", "--allowed-origins", "--allowed-methods",
            "--allowed-headers"}


def detail_fields(detail):
    out = {}
    for part in detail.split("; "):
        if "=" in part:
            k, v = part.split("=", 1)
            out[k.strip()] = v
    return out


def map_type(flag, kind, typ):
    if typ is None or typ == "":
        return "-"
    opt = typ.endswith("|None")
    base = typ[: -len("|None")] if opt else typ
    if flag in RAW_JSON:
        return "json_raw"
    if base.startswith("parse_dataclass["):
        return ("dataclass?:" if opt else "dataclass:") + base[len("parse_dataclass["):-1]
    table = {
        "int": "int", "float": "float", "human_readable_int": "hrint",
        "human_readable_int_or_auto": "hrint_or_auto", "json.loads": "json", "optional_type(json.loads)": "json",
        "union_dict_and_str": "dict_or_str", "str": "str",
        "lambda s: s.lower().replace('-', '_')": "lower_dash",
    }
    t = table.get(base)
    if t is None:
        # optional_type(str) (LoRA modules, custom action), the device-id lambda, parse_reasoning_parser: no failure
        # the parser has to reproduce
        return "-"
    if t == "str":
        return "str?" if opt else "-"
    if t == "hrint_or_auto":
        return t
    return t + "?" if opt else t


def esc_choice(c):
    return c.replace("\\", "\\\\").replace(",", "\\,")


def release_rows(v):
    rows = []
    for line in open(f"{NOTES}/flags-{v}.detail.tsv"):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        cols = line.split("\t")
        while len(cols) < 4:
            cols.append("")
        flag, aliases, kind, detail = cols[:4]
        d = detail_fields(detail)
        typ = map_type(flag, kind, d.get("type"))
        choices = None
        if "choices" in d:
            choices = d["choices"].split(",")
        # --mm-processor-device: choices=["auto", "cpu"] + [current_platform.device_type] (engine/arg_utils.py);
        # the AST list shows the expression, on CUDA it evaluates to auto, cpu, cuda.
        if flag == "--mm-processor-device":
            choices = ["auto", "cpu", "cuda"]
        # --collect-detailed-traces: 0.24.0-0.30.0 append every ordered pair "a,b" of the literal
        # (`permutations(get_args(DetailedTraceModules), r=2)` in EngineArgs.add_cli_args); gone from 0.31.0.
        if flag == "--collect-detailed-traces" and choices is not None:
            src = open(SRC.format(v=v) + "engine/arg_utils.py").read()
            if "permutations(get_args(DetailedTraceModules), r=2)" in src:
                mods = ["model", "worker", "all"]
                choices = choices + [f"{a},{b}" for a in mods for b in mods if a != b]
        ch = ",".join(esc_choice(c) for c in choices) if choices else "-"
        rows.append((flag, aliases or "-", kind, ch, typ))
    return rows


def merge(per_release):
    """per_release: list of (version, [(key, attrs)]) in release order. Returns [[key, attrs, first, last]] ordered so
    that filtering by any release reproduces that release's order."""
    merged = []  # entries: [key, attrs, first, last]
    prev_v = None
    for v, items in per_release:
        pos = {id(e): i for i, e in enumerate(merged)}
        cont = []  # (index in items, merged entry or None)
        for key, attrs in items:
            cand = None
            for e in merged:
                if e[0] == key and e[1] == attrs and e[3] == prev_v:
                    cand = e
            cont.append(cand)
        # longest increasing subsequence (by merged position) of the continuable entries
        idx = [i for i, c in enumerate(cont) if c is not None]
        best = {}
        parent = {}
        for i in idx:
            p = pos[id(cont[i])]
            best[i] = 1
            parent[i] = None
            for j in idx:
                if j >= i:
                    break
                if pos[id(cont[j])] < p and best[j] + 1 > best[i]:
                    best[i] = best[j] + 1
                    parent[i] = j
        keep = set()
        if idx:
            i = max(idx, key=lambda k: best[k])
            while i is not None:
                keep.add(i)
                i = parent[i]
        last_entry = None
        for i, (key, attrs) in enumerate(items):
            if i in keep:
                e = cont[i]
                e[3] = v
            else:
                e = [key, attrs, v, v]
                at = merged.index(last_entry) + 1 if last_entry is not None else 0
                # step over rows of earlier releases only (they are not in this one), so a flag's rows read in
                # release order
                while at < len(merged) and not any(merged[at] is c for c in cont):
                    at += 1
                merged.insert(at, e)
            last_entry = e
        prev_v = v
    return merged


def check(merged, per_release):
    order = {v: i for i, v in enumerate(VERSIONS)}
    for v, items in per_release:
        got = [(e[0], e[1]) for e in merged if order[e[2]] <= order[v] <= order[e[3]]]
        assert got == items, f"merge broke the order of {v}"


def tsv():
    per = [(v, [(r[0], r[1:]) for r in release_rows(v)]) for v in VERSIONS]
    merged = merge(per)
    check(merged, per)
    out = [
        f"# vLLM `vllm serve` options, {VERSIONS[0]}-{VERSIONS[-1]}, one row per option and release range. Generated by",
        "# scripts/gen-vllm-flags.py from the per-release option lists (notes/flags-<VER>.detail.tsv in its --src folder,",
        "# read from each release's engine/arg_utils.py, entrypoints/*/cli_args.py by AST; docs/source-notes/cli-flags.md",
        "# section 3); not edited by hand.",
        "# Columns (TAB-separated):",
        "#   flag     the first long option string (argparse's dest comes from it)",
        "#   aliases  other option strings, comma-separated, `-` if none; a leading `!` marks a negative boolean form",
        "#            (--no-X, and in 0.33.0 --disable-X for --enable-X and vice versa), which stores False",
        "#   kind     bool:store_true | bool:BooleanOptionalAction | value | value:optional (nargs ?, bare = True) |",
        "#            list:+ (nargs +) | list:append | json",
        f"#   first    first release with this row; last: last release with it, `-` = still in the newest ({VERSIONS[-1]})",
        "#   choices  argparse choices after the type conversion, comma-separated (`\\,` is a literal comma), `-` = any;",
        "#            `None` is vLLM's optional-value choice (a string before 0.31.0, Python None from 0.31.0)",
        "#   type     the argparse type the parser reproduces: - (any string) | str? (\"\" and None -> None) | int | int? |",
        "#            float | float? | hrint | hrint? (1k, 2M...) | hrint_or_auto | json | json? | json_raw |",
        "#            dict_or_str | dataclass:NAME | dataclass?:NAME (pydantic JSON) | lower_dash (lower-case, - -> _)",
        "# A flag has several rows when its aliases, kind, choices or type change between releases. Rows are ordered so",
        "# that the rows of one release, in file order, are that release's argparse registration order (which the",
        "# \"ambiguous option\" message follows). first and last are releases with sources of their own (data/releases.toml);",
        f"# the others ({', '.join(BORROWED) or 'none'}) read the rows of the release whose sources they have.",
        "# Corrections to the AST lists: --mm-processor-device choices evaluated for CUDA (auto,cpu,cuda);",
        "# --collect-detailed-traces gains the ordered pairs 0.24.0-0.30.0.",
        "flag\taliases\tkind\tfirst\tlast\tchoices\ttype",
    ]
    for key, attrs, first, last in merged:
        aliases, kind, ch, typ = attrs
        out.append("\t".join([key, aliases, kind, first, "-" if last == VERSIONS[-1] else last, ch, typ]))
    return "\n".join(out) + "\n"


def class_body(path, cls):
    m = ast.parse(open(path).read())
    for n in m.body:
        if isinstance(n, ast.ClassDef) and n.name == cls:
            return n
    raise SystemExit(f"{cls} not in {path}")


def enums():
    # AttentionBackendEnum members, declaration order (v1/attention/backends/registry.py)
    per = []
    for v in VERSIONS:
        body = class_body(SRC.format(v=v) + "v1/attention/backends/registry.py", "AttentionBackendEnum")
        names, seen = [], {}
        for s in body.body:
            if isinstance(s, ast.Assign) and isinstance(s.targets[0], ast.Name):
                val = ast.literal_eval(s.value)
                assert val not in seen, f"{v}: enum alias {s.targets[0].id} = {seen[val]}; serve/enums.rs assumes none"
                seen[val] = s.targets[0].id
                names.append((s.targets[0].id, ()))
        per.append((v, names))
    backends = merge(per)
    check(backends, per)
    # AttentionConfig fields, declaration order (config/attention.py)
    per = []
    for v in VERSIONS:
        body = class_body(SRC.format(v=v) + "config/attention.py", "AttentionConfig")
        fields = []
        for s in body.body:
            if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name):
                fields.append((s.target.id, ()))
        per.append((v, fields))
    fields = merge(per)
    check(fields, per)
    # CacheDType literal, declaration order (config/cache.py), for releases whose --kv-cache-dtype has no choices
    per = []
    for v in VERSIONS:
        src = open(SRC.format(v=v) + "config/cache.py").read()
        m = re.search(r"^CacheDType = Literal\[(.*?)\]", src, re.S | re.M)
        vals = ast.literal_eval("[" + m.group(1) + "]")
        per.append((v, [(x, ()) for x in vals]))
    dtypes = merge(per)
    check(dtypes, per)

    out = [
        f"# vLLM's per-release name lists that `vllm serve` validates against, {VERSIONS[0]}-{VERSIONS[-1]}. Generated by",
        "# `scripts/gen-vllm-flags.py --enums` from each release's sources (read by AST, nothing imported); not edited by hand.",
        "# Columns (TAB-separated):",
        "#   list   AttentionBackendEnum: the enum's members (v1/attention/backends/registry.py)",
        "#          AttentionConfig: the dataclass's fields (config/attention.py)",
        "#          CacheDType: the Literal's values (config/cache.py)",
        "#   name   the member, field or value",
        f"#   first  first release with it; last: last release with it, `-` = still in the newest ({VERSIONS[-1]})",
        "# The rows of one list, filtered by one release, are that release's declaration order. A release whose sources are",
        "# byte-identical to an earlier release's (`source` in data/releases.toml) reads that release's rows.",
        "list\tname\tfirst\tlast",
    ]
    for name, rows in [("AttentionBackendEnum", backends), ("AttentionConfig", fields), ("CacheDType", dtypes)]:
        for key, _, first, last in rows:
            out.append("\t".join([name, key, first, "-" if last == VERSIONS[-1] else last]))
    return "\n".join(out) + "\n"


def main():
    global VERSIONS, BORROWED, NOTES, SRC
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", default=os.environ.get("QPATH_VLLM_SRC", "vllm-src"),
                    help="the folder of unpacked releases (default: $QPATH_VLLM_SRC, else ./vllm-src)")
    ap.add_argument("--releases", default=str(REPO / "data" / "releases.toml"),
                    help="the release list (default: data/releases.toml of this repository)")
    ap.add_argument("--enums", action="store_true", help="print data/vllm-enums.tsv instead of data/vllm-flags.tsv")
    args = ap.parse_args()
    if not Path(args.releases).is_file():
        raise SystemExit(f"{args.releases}: no such file (the release list; see --releases)")
    VERSIONS, BORROWED = load_releases(args.releases)
    src = Path(args.src).resolve()
    if not src.is_dir():
        raise SystemExit(f"{src}: no such folder (run scripts/fetch-vllm-source.sh DIR, then pass --src DIR)")
    NOTES = str(src / "notes")
    SRC = str(src) + "/vllm-{v}/vllm/"
    sys.stdout.write(enums() if args.enums else tsv())


if __name__ == "__main__":
    main()
