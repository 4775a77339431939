#!/usr/bin/env python3
"""Generate data/vllm-field-bounds.tsv: the numeric range every `vllm serve` flag's value must meet when
`EngineArgs.create_engine_config` builds the config it feeds (pydantic `Field(gt=/ge=/lt=/le=)`), per release.

Read from each release's sources by AST (nothing imported), under SRC (`--src DIR`, else $QPATH_VLLM_SRC, else
./vllm-src), for the releases of data/releases.toml that have sources of their own (as scripts/gen-vllm-flags.py):
  vllm/engine/arg_utils.py   `X_kwargs = get_kwargs(Cls)` and `group.add_argument("--flag", ..., **X_kwargs["field"])`:
                             which config field each flag feeds; `EngineArgs.create_engine_config` (with the
                             `self.create_*` helpers it calls inlined where it calls them): the order the config
                             classes are built in, and whether the field is passed as `field=self.field` (a field
                             vLLM computes before building the config is left out: qpath does not restate it)
  vllm/config/*.py           the class's field: its annotation (int / float, `| None`; `SkipValidation[...]` is not
                             validated) and its `Field(...)` bounds, and its position among the class's fields
Usage: scripts/gen-field-bounds.py [--src DIR] > data/vllm-field-bounds.tsv
"""
import argparse
import ast
import importlib.util
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BOUND_KEYS = ("gt", "ge", "lt", "le")


def load_releases(path):
    spec = importlib.util.spec_from_file_location("genflags", REPO / "scripts" / "gen-vllm-flags.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.load_releases(path)[0]


def number(node):
    """A numeric literal (with a leading minus) as its source text, else None."""
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return repr(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = number(node.operand)
        return None if inner is None else "-" + inner
    return None


def config_fields(root):
    """{class: [(field, annotation, bounds or None, file, line)]} for every class of vllm/config/*.py."""
    out = {}
    for path in sorted((root / "config").glob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
            fields = out.setdefault(cls.name, [])
            for st in cls.body:
                if not (isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name)):
                    continue
                bounds = None
                v = st.value
                if isinstance(v, ast.Call) and getattr(v.func, "id", None) == "Field":
                    got = [(k.arg, number(k.value)) for k in v.keywords if k.arg in BOUND_KEYS]
                    if got and all(n is not None for _, n in got):
                        bounds = ",".join(f"{k}={n}" for k, n in got)
                fields.append((st.target.id, ast.unparse(st.annotation), bounds, path.name, st.lineno))
    return out


def flag_fields(tree):
    """[(flag, class, field)] in registration order: `add_argument("--flag", ..., **X_kwargs["field"])`."""
    kw_class = {}
    for node in ast.walk(tree):
        if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Call) and getattr(node.value.func, "id", None) == "get_kwargs"
                and node.value.args and isinstance(node.value.args[0], ast.Name)):
            kw_class[node.targets[0].id] = node.value.args[0].id
    out = []
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "attr", None) == "add_argument"]
    for call in sorted(calls, key=lambda c: (c.lineno, c.col_offset)):
        if not (call.args and isinstance(call.args[0], ast.Constant) and str(call.args[0].value).startswith("--")):
            continue
        for k in call.keywords:
            s = k.value
            if (k.arg is None and isinstance(s, ast.Subscript) and isinstance(s.value, ast.Name)
                    and s.value.id in kw_class and isinstance(s.slice, ast.Constant)):
                out.append((call.args[0].value, kw_class[s.value.id], s.slice.value))
    return out


def constructions(tree):
    """[(class, {keyword: source text})] in the order create_engine_config builds them (helpers inlined)."""
    engine = next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == "EngineArgs")
    methods = {m.name: m for m in engine.body if isinstance(m, ast.FunctionDef)}
    out, seen = [], set()

    def walk(fn, depth):
        calls = [n for n in ast.walk(fn) if isinstance(n, ast.Call)]
        for c in sorted(calls, key=lambda c: (c.lineno, c.col_offset)):
            f = c.func
            if (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "self"
                    and f.attr.startswith("create_") and f.attr in methods and depth < 3):
                walk(methods[f.attr], depth + 1)
            elif isinstance(f, ast.Name) and f.id.endswith("Config") and f.id not in seen:
                seen.add(f.id)
                out.append((f.id, {k.arg: ast.unparse(k.value) for k in c.keywords if k.arg}))

    walk(methods["create_engine_config"], 0)
    return out


def release_rows(src, v):
    root = Path(src) / f"vllm-{v}" / "vllm"
    tree = ast.parse((root / "engine" / "arg_utils.py").read_text())
    fields = config_fields(root)
    built = constructions(tree)
    order = {cls: i for i, (cls, _) in enumerate(built)}
    kwargs = dict(built)
    rows = []
    for flag, cls, field in flag_fields(tree):
        decl = [f for f in fields.get(cls, [])]
        hit = [(i, f) for i, f in enumerate(decl) if f[0] == field]
        if not hit or hit[0][1][2] is None:
            continue
        pos, (_, ann, bounds, fname, line) = hit[0]
        if ann.startswith("SkipValidation"):
            continue
        if cls not in order:
            print(f"{v}: {flag} -> {cls}.{field} ({bounds}): {cls} is not built by create_engine_config; left out",
                  file=sys.stderr)
            continue
        passed = kwargs[cls].get(field)
        if passed != f"self.{field}":
            print(f"{v}: {flag} -> {cls}.{field} ({bounds}): passed as {passed!r}, not self.{field}; left out",
                  file=sys.stderr)
            continue
        ty = "float" if "float" in ann else "int"
        if "None" in ann:
            ty += "?"
        rows.append((flag, cls, field, ty, bounds, str(order[cls]), str(pos), f"{fname}:{line}"))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", default=os.environ.get("QPATH_VLLM_SRC", "vllm-src"))
    ap.add_argument("--releases", default=str(REPO / "data" / "releases.toml"))
    a = ap.parse_args()
    versions = load_releases(a.releases)
    per = {v: release_rows(a.src, v) for v in versions}
    # One row per run of consecutive releases with the same facts; the source line is the run's first release's.
    # Rows are ordered so that the rows of one release, in file order, are in the order vLLM validates them (the
    # class built first, then the class's field order); checked below for every release.
    merged = []  # [key, cite, first, last, (seq, pos) in the run's last release]
    open_rows = {}
    for i, v in enumerate(versions):
        for r in per[v]:
            key = r[:5]
            prev = open_rows.get(key)
            if prev is not None and prev[3] == versions[i - 1]:
                prev[3] = v
                prev[4] = (int(r[5]), int(r[6]))
            else:
                row = [key, r[7], v, v, (int(r[5]), int(r[6]))]
                merged.append(row)
                open_rows[key] = row
    merged.sort(key=lambda m: m[4])
    for v in versions:
        want = [r[:5] for r in sorted(per[v], key=lambda r: (int(r[5]), int(r[6])))]
        got = [m[0] for m in merged if versions.index(m[2]) <= versions.index(v) <= versions.index(m[3])]
        if got != want:
            raise SystemExit(f"{v}: no single row order gives this release's validation order: {got} != {want}")
    newest = versions[-1]
    print(f"# vLLM's pydantic range checks on the config fields `vllm serve` flags feed, {versions[0]}-{newest}. "
          "Generated by\n# scripts/gen-field-bounds.py from each release's sources (AST); not edited by hand.\n"
          "# Columns (TAB-separated):\n"
          "#   flag    the option (its first long spelling); class: the config dataclass it feeds; field: the field\n"
          "#   type    int | float, `?` when None is allowed (the field's annotation)\n"
          "#   bounds  Field(...)'s gt= / ge= / lt= / le=, in the order written\n"
          "#   first   first release of the row; last: last release, `-` = still in the newest\n"
          "#   source  config/<file>:<line> of the field in the row's first release\n"
          "# The rows of one release, in file order, are in the order vLLM validates them: the classes in the order\n"
          "# create_engine_config builds them, each class's fields in declaration order (pydantic's error order).\n"
          "flag\tclass\tfield\ttype\tbounds\tfirst\tlast\tsource")
    for key, cite, first, last, _ in merged:
        print("\t".join([*key, first, "-" if last == newest else last, cite]))

if __name__ == "__main__":
    main()
