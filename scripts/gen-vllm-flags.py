#!/usr/bin/env python3
"""Generate data/vllm-flags.tsv (and, with --rust, the small per-release tables of crates/qpath-core/src/serve.rs).

Inputs (nothing from vLLM is imported; the released sources are only read as text / AST):
  /work/vllm-src/notes/flags-<VER>.detail.tsv   the per-release `vllm serve` option lists (see docs/source-notes/cli-flags.md §3)
  /work/vllm-src/vllm-<VER>/vllm/...            the released sources, for the few corrections below and for --rust

Usage:
  scripts/gen-vllm-flags.py > data/vllm-flags.tsv
  scripts/gen-vllm-flags.py --rust              # prints the Rust consts BACKENDS, ATTENTION_FIELDS, CACHE_DTYPES

Every option becomes one or more rows `flag aliases kind first last choices type`; a flag gets a new row whenever its
aliases, kind, choices or type change between releases (or, once, when 0.31.0 reordered options: rows are ordered so that
filtering the table by one release gives that release's argparse registration order, which argparse's "ambiguous
option" message follows).
"""
import ast
import re
import sys

VERSIONS = "0.24.0 0.25.0 0.25.1 0.26.0 0.27.0 0.28.0 0.29.0 0.30.0 0.31.0 0.32.0 0.33.0".split()
NOTES = "/work/vllm-src/notes"
SRC = "/work/vllm-src/vllm-{v}/vllm/"

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
        "# vLLM `vllm serve` options, 0.24.0-0.33.0, one row per option and release range. Generated by",
        "# scripts/gen-vllm-flags.py from /work/vllm-src/notes/flags-<VER>.detail.tsv (read from each release's",
        "# engine/arg_utils.py, entrypoints/*/cli_args.py by AST; docs/source-notes/cli-flags.md section 3); not edited by hand.",
        "# Columns (TAB-separated):",
        "#   flag     the first long option string (argparse's dest comes from it)",
        "#   aliases  other option strings, comma-separated, `-` if none; a leading `!` marks a negative boolean form",
        "#            (--no-X, and in 0.33.0 --disable-X for --enable-X and vice versa), which stores False",
        "#   kind     bool:store_true | bool:BooleanOptionalAction | value | value:optional (nargs ?, bare = True) |",
        "#            list:+ (nargs +) | list:append | json",
        "#   first    first release with this row; last: last release with it, `-` = still in the newest (0.33.0)",
        "#   choices  argparse choices after the type conversion, comma-separated (`\\,` is a literal comma), `-` = any;",
        "#            `None` is vLLM's optional-value choice (a string before 0.31.0, Python None from 0.31.0)",
        "#   type     the argparse type the parser reproduces: - (any string) | str? (\"\" and None -> None) | int | int? |",
        "#            float | float? | hrint | hrint? (1k, 2M...) | hrint_or_auto | json | json? | json_raw |",
        "#            dict_or_str | dataclass:NAME | dataclass?:NAME (pydantic JSON) | lower_dash (lower-case, - -> _)",
        "# A flag has several rows when its aliases, kind, choices or type change between releases. Rows are ordered so",
        "# that the rows of one release, in file order, are that release's argparse registration order (which the",
        "# \"ambiguous option\" message follows). 0.25.0-prefix (qpath's unreleased state) reads the 0.25.0 rows.",
        "# Corrections to the AST lists: --mm-processor-device choices evaluated for CUDA (auto,cpu,cuda);",
        "# --collect-detailed-traces gains the ordered pairs 0.24.0-0.30.0.",
        "flag\taliases\tkind\tfirst\tlast\tchoices\ttype",
    ]
    for key, attrs, first, last in merged:
        aliases, kind, ch, typ = attrs
        out.append("\t".join([key, aliases, kind, first, "-" if last == VERSIONS[-1] else last, ch, typ]))
    return "\n".join(out) + "\n"


def variant(v):
    return "V" + v.replace(".", "_")


def class_body(path, cls):
    m = ast.parse(open(path).read())
    for n in m.body:
        if isinstance(n, ast.ClassDef) and n.name == cls:
            return n
    raise SystemExit(f"{cls} not in {path}")


def rust():
    # AttentionBackendEnum members, declaration order (v1/attention/backends/registry.py)
    per = []
    for v in VERSIONS:
        body = class_body(SRC.format(v=v) + "v1/attention/backends/registry.py", "AttentionBackendEnum")
        names, seen = [], {}
        for s in body.body:
            if isinstance(s, ast.Assign) and isinstance(s.targets[0], ast.Name):
                val = ast.literal_eval(s.value)
                assert val not in seen, f"{v}: enum alias {s.targets[0].id} = {seen[val]}; serve.rs assumes none"
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

    def emit(name, comment, rows):
        print(f"/// {comment}")
        print(f"const {name}: &[(&str, Release, Option<Release>)] = &[")
        for key, _, first, last in rows:
            lastv = "None" if last == VERSIONS[-1] else f"Some({variant(last)})"
            print(f'    ("{key}", {variant(first)}, {lastv}),')
        print("];")

    emit("BACKENDS", "`AttentionBackendEnum` members in declaration order (v1/attention/backends/registry.py).", backends)
    emit("ATTENTION_FIELDS", "`AttentionConfig` fields in declaration order (config/attention.py).", fields)
    emit("CACHE_DTYPES", "`CacheDType` literal values in declaration order (config/cache.py).", dtypes)


if __name__ == "__main__":
    if sys.argv[1:] == ["--rust"]:
        rust()
    else:
        sys.stdout.write(tsv())
