#!/usr/bin/env python3
"""Write the per-release `vllm serve` option lists (notes/flags-<VER>.detail.tsv) that scripts/gen-vllm-flags.py reads.

Inputs, under the source folder SRC (`--src DIR`, else $QPATH_VLLM_SRC, else ./vllm-src; scripts/fetch-vllm-source.sh
fills it): SRC/vllm-<VER>/vllm/... , the released Python sources of each release. They are only read as text and parsed
with `ast`; nothing from vLLM (or torch, pydantic...) is imported or executed. The releases are those gen-vllm-flags.py
reads: the released releases of data/releases.toml without a `source` key (`--releases FILE` to read another list; a
release named with `--release VER`, repeatable, limits the run to those).

Output: SRC/notes/flags-<VER>.detail.tsv (`--out DIR` writes to DIR instead; `--stdout` prints them), one line per
option in argparse registration order, TAB-separated:
  flag     the first long option string (argparse's dest comes from it)
  aliases  the other option strings, comma-separated, `-` if none; a leading `!` marks a negative boolean form (the
           `--no-X` that argparse.BooleanOptionalAction adds, and the `--disable-X`/`--enable-X` inverse a release's
           FlexibleArgumentParser adds when it registers its own action for BooleanOptionalAction: 0.33.0)
  kind     bool:store_true | bool:BooleanOptionalAction | value | value:optional (nargs "?") | list:+ (nargs "+") |
           list:append | json (the type parses JSON); list:N (a fixed-length tuple field) would be new to gen-vllm-flags.py
  detail   `key=value` parts joined by "; ":
           type=     the argparse `type` as vLLM builds it: int, float, str, json.loads (also for parse_type(json.loads)),
                     human_readable_int, human_readable_int_or_auto, union_dict_and_str, parse_dataclass[CLASS], or the
                     source text of a type set in add_cli_args (e.g. `optional_type(json.loads)`, a lambda); a `|None`
                     suffix says the field's type hint has None (and no bool), so `_compute_kwargs` wrapped the type in
                     `optional_type` ("" / "None" -> None). An override of `type` in add_cli_args replaces the base and
                     keeps the suffix (the suffix describes the field's hint).
           choices=  argparse's choices, comma-separated, in vLLM's order (sorted literals; `None` appended for an
                     optional field)
           choices+= a part of `choices` that depends on the running platform or that add_cli_args appends later
                     (source text; gen-vllm-flags.py applies its corrections for these)
           metavar=  the sorted literals of a `Literal | str` field (shown in help, not enforced)
           nargs=, action=, const=  as passed to add_argument (action only when not implied by kind)
           field=    CLASS.FIELD whose get_kwargs entry the option uses; hint= the field's type hint (source text);
                     decl= file:line of the field's declaration
           at=       file:line of the add_argument call (paths relative to the vllm/ package)
Lines starting with `#` are comments (a header naming the release and the files read).

What it derives, all from the AST of each release:
  * the parser chain: ServeSubcommand.subparser_init -> make_arg_parser (found through entrypoints/cli/serve.py's import)
    -> its add_argument calls, FrontendArgs.add_cli_args (the loop over get_kwargs(cls) after _customize_cli_kwargs, base
    class then subclass, with `super()` calls), AsyncEngineArgs.add_cli_args -> EngineArgs.add_cli_args. These bodies are
    interpreted statement by statement: `X_kwargs = get_kwargs(Cls)`, aliases, item assignments / `del` / `+=` on those
    dicts, `**{**X_kwargs["f"], "default": None}`, `if` tests (sys.argv modelled as `vllm serve MODEL`), the frontend's
    `for key, value in ....items()` loop with its f-string option name and `value.pop("flags", [])`;
  * every field's kwargs as `_compute_kwargs` (engine/arg_utils.py) builds them: the field list of the (pydantic)
    dataclass and its bases, each type hint evaluated across modules (imports, aliases, `TYPE_CHECKING` else-branches,
    string forward references, `from X import *` with X's __all__, Literal / Union / Optional / Annotated / `X | Y`),
    then its rule chain (dataclass -> JSON;
    {bool, str, None} -> nargs "?"; bool -> BooleanOptionalAction; Literal -> choices or metavar; tuple/list/set ->
    nargs "+"; int; float; dict with str -> union_dict_and_str; dict -> json.loads; str / non-builtin -> str; None ->
    optional). The names that get human-readable int types and the dict-subclass rule are read from each release's
    `_compute_kwargs`; if its `if/elif` chain differs from the one modelled here the tool says so on stderr;
  * the negative boolean forms (CPython's BooleanOptionalAction `--no-` rule, and a release's own replacement action,
    found as `self.register("action", BooleanOptionalAction, X)` in FlexibleArgumentParser with X's `_inverse_prefixes`).

Limits (reported on stderr as `note:` lines, naming release and option, when they apply):
  * choices computed from the running platform (`--mm-processor-device`: `current_platform.device_type`) keep their
    literal part; the platform part is written as `choices+=` (gen-vllm-flags.py evaluates it for CUDA);
  * `+=` on choices (`--collect-detailed-traces`'s ordered pairs, 0.24.0-0.30.0) is written as `choices+=`, not expanded;
  * options added by general plugins (`load_general_plugins()`) or by a platform's `pre_register_and_update(parser)` are
    not modelled (the base Platform's method is a no-op and the CUDA platform does not override it; checked per release);
  * anything else the interpreter cannot evaluate is reported as `warning:` and the exit status is 1.

Usage:
  scripts/gen-flag-lists.py [--src DIR] [--releases FILE] [--release VER ...] [--out DIR | --stdout]
  then: scripts/gen-vllm-flags.py --src DIR > data/vllm-flags.tsv
"""
import argparse
import ast
import os
import sys
import time
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# ----------------------------------------------------------------------------------------------------------------------
# Diagnostics


class Diag:
    def __init__(self):
        self.version = "?"
        self.warnings = 0

    def note(self, msg):
        print(f"gen-flag-lists: note: {self.version}: {msg}", file=sys.stderr)

    def warn(self, msg):
        self.warnings += 1
        print(f"gen-flag-lists: warning: {self.version}: {msg}", file=sys.stderr)


DIAG = Diag()

# ----------------------------------------------------------------------------------------------------------------------
# Values of the static evaluator


class Ext:
    """Something outside the vLLM tree (builtins, typing, torch, argparse...), by module and name."""

    def __init__(self, mod, name):
        self.mod, self.name = mod, name

    def __eq__(self, o):
        return isinstance(o, Ext) and (self.mod, self.name) == (o.mod, o.name)

    def __hash__(self):
        return hash((self.mod, self.name))

    def __repr__(self):
        return f"{self.mod}.{self.name}"


def B(name):
    return Ext("builtins", name)


class ModRef:
    def __init__(self, module):
        self.module = module

    def __repr__(self):
        return f"<module {self.module.name}>"


class ClsRef:
    def __init__(self, module, node):
        self.module, self.node = module, node
        self.name = node.name

    def __eq__(self, o):
        return isinstance(o, ClsRef) and self.module is o.module and self.node is o.node

    def __hash__(self):
        return hash((self.module.name, self.node.name, self.node.lineno))

    def __repr__(self):
        return f"{self.module.name}.{self.name}"


class FuncRef:
    def __init__(self, module, node, owner=None):
        self.module, self.node, self.owner = module, node, owner
        self.name = node.name

    def __repr__(self):
        return f"{self.module.name}.{self.name}()"


class TNoneType:
    def __repr__(self):
        return "None"


TNONE = TNoneType()


class TLit:
    def __init__(self, values):
        out = []
        for v in values:  # typing.Literal drops duplicates, keeping the first
            if not any(type(v) is type(w) and v == w for w in out):
                out.append(v)
        self.values = tuple(out)

    def __eq__(self, o):
        return isinstance(o, TLit) and self.values == o.values

    def __hash__(self):
        return hash(("Literal",) + self.values)

    def __repr__(self):
        return f"Literal{list(self.values)}"


class TUnion:
    def __init__(self, members):
        self.members = members


class TAnn:
    def __init__(self, inner):
        self.inner = inner


class TGen:
    def __init__(self, origin, args):
        self.origin, self.args = origin, args

    def __eq__(self, o):
        return isinstance(o, TGen) and self.origin == o.origin and self.args == o.args

    def __hash__(self):
        return hash(("Gen", self.origin, len(self.args)))

    def __repr__(self):
        return f"{self.origin!r}[{', '.join(map(repr, self.args))}]"


class Unknown:
    def __init__(self, why):
        self.why = why

    def __repr__(self):
        return f"<unknown: {self.why}>"


ELLIPSIS = Ext("builtins", "Ellipsis")

BUILTIN_NAMES = {"int", "str", "float", "bool", "dict", "list", "tuple", "set", "frozenset", "bytes", "type", "object",
                 "complex", "bytearray"}
# typing spellings of builtin generics (their get_origin is the builtin)
TYPING_BUILTIN = {"Dict": "dict", "List": "list", "Tuple": "tuple", "Set": "set", "FrozenSet": "frozenset",
                  "Type": "type"}
TYPING_MODS = {"typing", "typing_extensions"}


# ----------------------------------------------------------------------------------------------------------------------
# Modules of one release


class Module:
    def __init__(self, tree, name, path, is_pkg):
        self.tree, self.name, self.path, self.is_pkg = tree, name, path, is_pkg
        self.source = open(path).read()
        self.node = ast.parse(self.source, filename=str(path))
        self._bindings = None
        self.stars = []

    @property
    def rel(self):
        return str(self.path.relative_to(self.tree.pkg_root))

    def bindings(self):
        if self._bindings is None:
            self._bindings = {}
            self._collect(self.node.body)
        return self._bindings

    def _collect(self, body):
        for s in body:
            if isinstance(s, ast.Import):
                for a in s.names:
                    if a.asname:
                        self._bindings[a.asname] = ("module", a.name)
                    else:
                        top = a.name.split(".")[0]
                        self._bindings[top] = ("module", top)
            elif isinstance(s, ast.ImportFrom):
                base = self.absolute(s.module, s.level)
                for a in s.names:
                    if a.name == "*":
                        self.stars.append(base)
                    else:
                        self._bindings[a.asname or a.name] = ("from", base, a.name)
            elif isinstance(s, ast.ClassDef):
                self._bindings[s.name] = ("class", s)
            elif isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self._bindings[s.name] = ("func", s)
            elif isinstance(s, ast.Assign):
                for t in s.targets:
                    if isinstance(t, ast.Name):
                        self._bindings[t.id] = ("expr", s.value)
            elif isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.value is not None:
                self._bindings[s.target.id] = ("expr", s.value)
            elif isinstance(s, ast.If):
                # At run time `if TYPE_CHECKING:` is false: its else branch binds the names (pydantic resolves the
                # annotations of the config dataclasses against these run-time globals).
                if is_type_checking(s.test):
                    self._collect(s.orelse)
                else:
                    self._collect(s.body)
                    self._collect(s.orelse)
            elif isinstance(s, ast.Try):
                self._collect(s.body)

    def absolute(self, mod, level):
        if not level:
            return mod
        parts = self.name.split(".")
        if not self.is_pkg:
            parts = parts[:-1]
        if level > 1:
            parts = parts[: len(parts) - (level - 1)]
        return ".".join(parts + ([mod] if mod else []))

    def line_of(self, node):
        return f"{self.rel}:{node.lineno}"


def is_type_checking(test):
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


class Tree:
    """The vllm package of one release (ROOT/vllm/...)."""

    def __init__(self, root):
        self.root = Path(root)
        self.pkg_root = self.root / "vllm"
        self.modules = {}

    def module(self, name):
        if name in self.modules:
            return self.modules[name]
        m = None
        if name == "vllm" or name.startswith("vllm."):
            rel = name.split(".")[1:]
            f = self.root.joinpath("vllm", *rel).with_suffix(".py") if rel else None
            pkg = self.root.joinpath("vllm", *rel, "__init__.py")
            if f is not None and f.is_file():
                m = Module(self, name, f, False)
            elif pkg.is_file():
                m = Module(self, name, pkg, True)
        self.modules[name] = m
        return m

    # --- name resolution ---------------------------------------------------------------------------------------------

    def resolve(self, mod, name, depth=0):
        """The object a module-level name of `mod` stands for at run time."""
        if depth > 40:
            return Unknown(f"import loop at {mod.name}.{name}")
        b = mod.bindings().get(name)
        if b is None:
            for star in mod.stars:  # `from X import *`: X's __all__ if it has one, else its public names
                sm = self.module(star)
                if sm is not None and name in self.star_names(sm):
                    return self.resolve(sm, name, depth + 1)
            if name in BUILTIN_NAMES or name in ("None", "Ellipsis"):
                return B(name)
            if name == "__builtins__":
                return Ext("builtins", "")
            return Unknown(f"{name} not defined in {mod.name}")
        kind = b[0]
        if kind == "module":
            m = self.module(b[1])
            return ModRef(m) if m else Ext(b[1], "")
        if kind == "from":
            src, attr = b[1], b[2]
            sm = self.module(src)
            if sm is None:
                return Ext(src, attr)
            if attr in sm.bindings() or any(self.module(s) and attr in self.star_names(self.module(s))
                                            for s in sm.stars):
                return self.resolve(sm, attr, depth + 1)
            sub = self.module(f"{src}.{attr}")
            if sub is not None:
                return ModRef(sub)
            return Unknown(f"{attr} not found in {src}")
        if kind == "class":
            return ClsRef(mod, b[1])
        if kind == "func":
            return FuncRef(mod, b[1])
        if kind == "expr":
            return ("expr", mod, b[1])
        return Unknown(f"binding {kind}")

    def star_names(self, m):
        b = m.bindings().get("__all__")
        if b is not None and b[0] == "expr":
            try:
                return set(ast.literal_eval(b[1]))
            except ValueError:
                DIAG.warn(f"{m.rel}: __all__ is not a literal; `import *` taken as all public names")
        names = {n for n in m.bindings() if not n.startswith("_")}
        for star in m.stars:
            sm = self.module(star)
            if sm is not None:
                names |= self.star_names(sm)
        return names

    def resolve_attr(self, obj, attr):
        if isinstance(obj, ModRef):
            m = obj.module
            if attr in m.bindings():
                return self.resolve(m, attr)
            sub = self.module(f"{m.name}.{attr}")
            if sub is not None:
                return ModRef(sub)
            return self.resolve(m, attr)
        if isinstance(obj, Ext):
            if obj.name == "":
                return Ext(obj.mod, attr)
            return Ext(f"{obj.mod}.{obj.name}", attr)
        if isinstance(obj, ClsRef):
            for s in obj.node.body:
                if isinstance(s, ast.ClassDef) and s.name == attr:
                    return ClsRef(obj.module, s)
                if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == attr:
                    return FuncRef(obj.module, s, obj)
            return Unknown(f"{obj.name}.{attr}")
        return Unknown(f"attribute {attr} of {obj!r}")

    def lookup(self, node, mod):
        """Resolve a Name / Attribute chain in module scope (no evaluation of assigned expressions)."""
        if isinstance(node, ast.Name):
            return self.resolve(mod, node.id)
        if isinstance(node, ast.Attribute):
            base = self.lookup(node.value, mod)
            if isinstance(base, tuple):
                return Unknown(f"attribute of an expression: {ast.unparse(node)}")
            return self.resolve_attr(base, node.attr)
        return Unknown(ast.unparse(node))

    # --- type expressions -------------------------------------------------------------------------------------------

    def type_of(self, node, mod, depth=0):
        """Evaluate a type hint expression (as the interpreter would) to Ext / ClsRef / TLit / TUnion / TAnn / TGen /
        TNONE, or Unknown."""
        if depth > 60:
            return Unknown("type alias loop")
        if isinstance(node, ast.Constant):
            if node.value is None:
                return TNONE
            if node.value is Ellipsis:
                return ELLIPSIS
            if isinstance(node.value, str):  # forward reference, resolved in the defining module
                try:
                    return self.type_of(ast.parse(node.value, mode="eval").body, mod, depth + 1)
                except SyntaxError:
                    return Unknown(f"bad forward reference {node.value!r}")
            return Unknown(f"constant {node.value!r} as a type")
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            return TUnion([self.type_of(node.left, mod, depth + 1), self.type_of(node.right, mod, depth + 1)])
        if isinstance(node, (ast.Name, ast.Attribute)):
            return self.as_type(self.lookup(node, mod), depth)
        if isinstance(node, ast.Subscript):
            base = self.as_type(self.lookup(node.value, mod), depth) if isinstance(
                node.value, (ast.Name, ast.Attribute)) else Unknown(ast.unparse(node.value))
            elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            if isinstance(base, Ext) and base.mod.split(".")[0] == "pydantic" and base.name == "SkipValidation":
                # pydantic's SkipValidation[X] is Annotated[X, SkipValidation()] (its __class_getitem__), so vLLM's
                # get_type_hints reads X; 0.20.0 to 0.22.1 declare CacheConfig.block_size so
                return TAnn(self.type_of(elts[0], mod, depth + 1))
            if isinstance(base, Ext) and base.mod in TYPING_MODS:
                if base.name == "Literal":
                    vals = []
                    for e in elts:
                        v = self.literal_value(e, mod, depth)
                        if isinstance(v, TLit):
                            vals.extend(v.values)
                        elif isinstance(v, Unknown):
                            return v
                        else:
                            vals.append(v)
                    return TLit(vals)
                if base.name == "Union":
                    return TUnion([self.type_of(e, mod, depth + 1) for e in elts])
                if base.name == "Optional":
                    return TUnion([self.type_of(elts[0], mod, depth + 1), TNONE])
                if base.name == "Annotated":
                    return TAnn(self.type_of(elts[0], mod, depth + 1))
                if base.name in ("ClassVar", "Final", "Required", "NotRequired", "ReadOnly"):
                    return self.type_of(elts[0], mod, depth + 1)
            if isinstance(base, Unknown):
                return base
            args = []
            for e in elts:
                if isinstance(e, ast.List):  # Callable[[A, B], C]
                    args.append(TGen(B("list"), [self.type_of(x, mod, depth + 1) for x in e.elts]))
                else:
                    args.append(self.type_of(e, mod, depth + 1))
            return TGen(base, args)
        return Unknown(f"type expression {ast.unparse(node)}")

    def literal_value(self, node, mod, depth):
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
            return -node.operand.value
        t = self.type_of(node, mod, depth + 1)  # a nested Literal alias
        if isinstance(t, TLit):
            return t
        return Unknown(f"Literal value {ast.unparse(node)}")

    def as_type(self, obj, depth=0):
        if isinstance(obj, tuple) and obj[0] == "expr":
            _, m, expr = obj
            # `X = TypeAliasType("X", value)` and plain aliases
            if isinstance(expr, ast.Call) and isinstance(expr.func, (ast.Name, ast.Attribute)):
                f = self.lookup(expr.func, m)
                if isinstance(f, Ext) and f.name == "TypeAliasType" and len(expr.args) >= 2:
                    return self.type_of(expr.args[1], m, depth + 1)
                if isinstance(f, Ext) and f.name == "NewType" and len(expr.args) >= 2:
                    return Ext(m.name, ast.literal_eval(expr.args[0]))
                if isinstance(f, Ext) and f.name == "TypeVar":
                    return Ext("typing", "TypeVar")
            return self.type_of(expr, m, depth + 1)
        if isinstance(obj, Ext):
            if obj.mod in TYPING_MODS and obj.name in TYPING_BUILTIN:
                return B(TYPING_BUILTIN[obj.name])
            if obj.mod == "builtins" and obj.name == "None":
                return TNONE
            return obj
        if isinstance(obj, ModRef):
            return Unknown(f"module {obj.module.name} used as a type")
        return obj

    # --- classes -----------------------------------------------------------------------------------------------------

    def bases(self, cls):
        out = []
        for b in cls.node.bases:
            node = b.value if isinstance(b, ast.Subscript) else b  # Generic[T], dict[str, X]
            r = self.lookup(node, cls.module) if isinstance(node, (ast.Name, ast.Attribute)) else Unknown(ast.unparse(b))
            r = self.as_type(r)
            if isinstance(r, TGen):
                r = r.origin
            out.append(r)
        return out

    def mro(self, cls):
        """C3 linearisation over the vLLM classes (external bases are leaves)."""
        if not isinstance(cls, ClsRef):
            return [cls]
        seqs = [self.mro(b) for b in self.bases(cls)] + [self.bases(cls)]
        res = [cls]
        seqs = [list(s) for s in seqs if s]
        while seqs:
            for s in seqs:
                head = s[0]
                if not any(head in t[1:] for t in seqs):
                    break
            else:
                DIAG.warn(f"inconsistent MRO for {cls!r}")
                break
            res.append(head)
            for t in seqs:
                if t and t[0] == head:
                    del t[0]
            seqs = [t for t in seqs if t]
        return res

    def decorated_dataclass(self, cls):
        for d in cls.node.decorator_list:
            f = d.func if isinstance(d, ast.Call) else d
            r = self.lookup(f, cls.module) if isinstance(f, (ast.Name, ast.Attribute)) else None
            name = getattr(r, "name", None)
            # std dataclasses.dataclass, pydantic.dataclasses.dataclass, vllm.config.utils.config (a pydantic dataclass)
            if name in ("dataclass", "config") and (isinstance(r, Ext) or (
                    isinstance(r, FuncRef) and r.module.name.startswith("vllm.config"))):
                return True
        return False

    def is_dataclass(self, t):
        return isinstance(t, ClsRef) and any(isinstance(c, ClsRef) and self.decorated_dataclass(c) for c in self.mro(t))

    def is_typeddict(self, t):
        return isinstance(t, ClsRef) and any(isinstance(c, Ext) and c.name == "TypedDict" for c in self.mro(t))

    def is_dict_subclass(self, t):
        if t == B("dict"):
            return True
        return isinstance(t, ClsRef) and not self.is_typeddict(t) and B("dict") in self.mro(t)

    def fields(self, cls):
        """dataclasses.fields(cls): (name, annotation node, module, class) in field order, bases first."""
        out = {}
        for c in reversed(self.mro(cls)):
            if not (isinstance(c, ClsRef) and self.decorated_dataclass(c)):
                continue
            for s in c.node.body:
                if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name):
                    # ClassVar / InitVar pseudo-fields and the KW_ONLY sentinel are not in dataclasses.fields()
                    if pseudo_field(s.annotation, c.module, self):
                        continue
                    out[s.target.id] = (s.target.id, s.annotation, c.module, c, s)
        return list(out.values())

    def method(self, cls, name, after=None):
        """The method `name` found along cls's MRO (starting after class `after` for super())."""
        mro = self.mro(cls)
        if after is not None:
            mro = mro[mro.index(after) + 1:]
        for c in mro:
            if isinstance(c, ClsRef):
                for s in c.node.body:
                    if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == name:
                        return FuncRef(c.module, s, c)
        return None


def pseudo_field(ann, mod, tree):
    node = ann.value if isinstance(ann, ast.Subscript) else ann
    if isinstance(node, (ast.Name, ast.Attribute)):
        r = tree.lookup(node, mod)
        return isinstance(r, Ext) and r.name in ("ClassVar", "InitVar", "KW_ONLY")
    return False


# ----------------------------------------------------------------------------------------------------------------------
# _compute_kwargs (engine/arg_utils.py)


def flatten(t):
    """get_type_hints: Annotated -> its first argument, Union / X | Y -> members; a set, kept in first-seen order."""
    out = []

    def add(x):
        if isinstance(x, TAnn):
            add(x.inner)
        elif isinstance(x, TUnion):
            for m in x.members:
                add(m)
        elif x not in out:
            out.append(x)

    add(t)
    return out


def origin_of(t):
    if isinstance(t, TGen):
        return t.origin
    return None


def is_type(t, name):
    """is_type(type_hint, <builtin name>)"""
    return t == B(name) or origin_of(t) == B(name)


def contains(th, name):
    if name == "Literal":
        return any(isinstance(t, TLit) for t in th)
    return any(is_type(t, name) for t in th)


def is_not_builtin(t):
    """type_hint.__module__ != "builtins" (a builtin generic such as list[int] or type[X] reports builtins)."""
    if isinstance(t, Ext):
        return t.mod != "builtins"
    if t is TNONE:
        return False
    if isinstance(t, TGen):
        o = t.origin
        return not (isinstance(o, Ext) and o.mod == "builtins")
    return True  # vLLM classes, Literal[...] (module typing)


def type_text(t):
    """How an element type reads in the `type=` column."""
    if isinstance(t, Ext):
        return t.name if t.mod == "builtins" else f"{t.mod}.{t.name}"
    if isinstance(t, ClsRef):
        return t.name
    return repr(t)


class ComputeRules:
    """The release's `_compute_kwargs`: its rule chain is modelled below; the name lists are read from its AST."""

    EXPECTED_CHAIN = [
        "dataclass_cls is not None",
        "type_hints == {bool, str, type(None)}",
        "contains_type(type_hints, bool)",
        "contains_type(type_hints, Literal)",
        "contains_type(type_hints, tuple)",
        "contains_type(type_hints, list)",
        "contains_type(type_hints, set)",
        "contains_type(type_hints, int)",
        "contains_type(type_hints, float)",
        "contains_type(type_hints, dict) and (contains_type(type_hints, str) or any((is_not_builtin(th) for th in "
        "type_hints)))",
        "contains_type(type_hints, dict)",
        "contains_type(type_hints, str) or any((is_not_builtin(th) for th in type_hints))",
    ]

    def __init__(self, tree):
        self.tree = tree
        mod = tree.module("vllm.engine.arg_utils")
        fn = next((s for s in mod.node.body if isinstance(s, ast.FunctionDef) and s.name == "_compute_kwargs"), None)
        if fn is None:
            raise SystemExit(f"{mod.path}: no _compute_kwargs")
        self.where = mod.line_of(fn)
        loop = next(s for s in ast.walk(fn) if isinstance(s, ast.For))
        # the dict-subclass rule (0.31.0+): `type_hints = {dict if is_dict_subclass(th) else th ...}`
        self.dict_subclass = any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                                 and n.func.id == "is_dict_subclass" for n in ast.walk(loop))
        chain = next(s for s in loop.body if isinstance(s, ast.If) and "dataclass_cls" in ast.unparse(s.test))
        tests, branches = [], []
        node = chain
        while True:
            tests.append(ast.unparse(node.test))
            branches.append(node.body)
            if len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):
                node = node.orelse[0]
            else:
                break
        # 0.20.x has no `{bool, str, None}` branch (0.21.0 added it between the dataclass and bool rules)
        self.optional_str_branch = "type_hints == {bool, str, type(None)}" in tests
        older = [x for x in self.EXPECTED_CHAIN if x != "type_hints == {bool, str, type(None)}"]
        if tests != self.EXPECTED_CHAIN and tests != older:
            DIAG.warn(f"_compute_kwargs ({self.where}) has another rule chain than the one modelled here: {tests}")
        # int branch: `if name == "max_model_len": ... elif name in (...) / name in var: ...` -> {name: type}
        self.int_names = {}
        int_body = branches[tests.index("contains_type(type_hints, int)")] if (
            "contains_type(type_hints, int)" in tests) else []
        local_sets = {}
        for s in int_body:
            if isinstance(s, ast.Assign) and isinstance(s.targets[0], ast.Name):
                try:
                    local_sets[s.targets[0].id] = set(ast.literal_eval(s.value))
                except ValueError:
                    pass
        for s in int_body:
            node = s if isinstance(s, ast.If) else None
            while node is not None:
                names = self._names_of_test(node.test, local_sets)
                typ = self._assigned_type(node.body)
                for n in names:
                    self.int_names[n] = typ
                if len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):
                    node = node.orelse[0]
                else:
                    node = None
        # The choice an optional field gets: the string "None" (0.24.0-0.30.0) or Python None (0.31.0+,
        # `kwargs[name]["choices"].append(None)`); both are written `None` in the lists, the header says which.
        self.none_choice = "None"
        self.none_choice_is_str = None
        for n in ast.walk(loop):
            if (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "append"
                    and "choices" in ast.unparse(n.func.value) and len(n.args) == 1
                    and isinstance(n.args[0], ast.Constant)):
                self.none_choice_is_str = isinstance(n.args[0].value, str)
        if self.none_choice_is_str is None:
            DIAG.warn(f"_compute_kwargs ({self.where}): no `choices.append(None)` for optional fields found")

    def _names_of_test(self, test, local_sets):
        if isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "name":
            op, right = test.ops[0], test.comparators[0]
            if isinstance(op, ast.Eq):
                return {ast.literal_eval(right)}
            if isinstance(op, ast.In):
                if isinstance(right, ast.Name):
                    return local_sets.get(right.id, set())
                return set(ast.literal_eval(right))
        DIAG.warn(f"_compute_kwargs ({self.where}): int branch test not understood: {ast.unparse(test)}")
        return set()

    def _assigned_type(self, body):
        for s in body:
            if isinstance(s, ast.Assign) and ast.unparse(s.targets[0]) == "kwargs[name]['type']":
                return ast.unparse(s.value)
        return "int"

    def field_kwargs(self, f):
        name, ann, mod, cls, stmt = f
        t = self.tree
        hint = t.type_of(ann, mod)
        th = flatten(hint)
        where = f"{cls.name}.{name} ({mod.line_of(stmt)})"
        for x in th:
            if isinstance(x, Unknown):
                DIAG.warn(f"{where}: type hint not resolved: {x.why}")
        if self.dict_subclass:
            th = [B("dict") if t.is_dict_subclass(x) else x for x in th]
            th = list(dict.fromkeys(th))
        kw = {"field": f"{cls.name}.{name}", "hint": ast.unparse(ann).replace("\n", " ")}
        dcs = [x for x in th if t.is_dataclass(x)]
        if len(dcs) > 1:
            DIAG.warn(f"{where}: several dataclasses in one hint ({dcs}); vLLM picks one from a set")
        if dcs:
            kw["type"] = f"parse_dataclass[{dcs[0].name}]"
        elif self.optional_str_branch and set(th) == {B("bool"), B("str"), TNONE} and len(th) == 3:
            kw.update(type="str", nargs="?", const="True")
        elif contains(th, "bool"):
            kw["action"] = "BooleanOptionalAction"
        elif contains(th, "Literal"):
            kw.update(self.literal_kwargs(th, where))
        elif contains(th, "tuple") or contains(th, "list") or contains(th, "set"):
            which = next(n for n in ("tuple", "list", "set") if contains(th, n))
            kw.update(self.collection_kwargs(th, which, where))
        elif contains(th, "int"):
            kw["type"] = self.int_names.get(name, "int")
        elif contains(th, "float"):
            kw["type"] = "float"
        elif contains(th, "dict") and (contains(th, "str") or any(is_not_builtin(x) for x in th)):
            kw["type"] = "union_dict_and_str"
        elif contains(th, "dict"):
            kw["type"] = "json.loads"  # parse_type(json.loads)
        elif contains(th, "str") or any(is_not_builtin(x) for x in th):
            kw["type"] = "str"
        else:
            DIAG.warn(f"{where}: unsupported type {th} (vLLM raises ValueError)")
            kw["type"] = "?"
        if isinstance(kw.get("type"), TLit):  # a sequence of literals
            kw.update(self.literal_kwargs([kw["type"]], where))
        if TNONE in th and not contains(th, "bool"):
            kw["optional"] = True
            if kw.get("choices"):
                kw["choices"] = kw["choices"] + [self.none_choice]
        return kw

    def literal_kwargs(self, th, where):
        lits = [x for x in th if isinstance(x, TLit)]
        if len(lits) > 1:
            DIAG.warn(f"{where}: several Literals in one hint; vLLM picks one from a set")
        opts = lits[0].values
        ot = type(opts[0])
        if not all(isinstance(o, ot) for o in opts):
            DIAG.warn(f"{where}: Literal options of mixed types (vLLM raises ValueError)")
        key = "metavar" if contains(th, "str") else "choices"
        return {"type": ot.__name__, key: [str(o) for o in sorted(opts)]}

    def collection_kwargs(self, th, which, where):
        t = next(x for x in th if is_type(x, which))
        types = t.args if isinstance(t, TGen) else []
        if not types:
            DIAG.warn(f"{where}: bare {which} without element type (vLLM fails)")
            return {"type": "?", "nargs": "+"}
        elem = types[0]
        if isinstance(elem, TUnion):
            members = flatten(elem)
            if B("str") not in members:
                DIAG.warn(f"{where}: element union without str")
            elem = B("str")
        elif isinstance(elem, TAnn):
            elem = elem.inner
        nargs = "+" if which != "tuple" or ELLIPSIS in types else str(len(types))
        return {"type": elem if isinstance(elem, TLit) else type_text(elem), "nargs": nargs}


# ----------------------------------------------------------------------------------------------------------------------
# The interpreter of the add_cli_args bodies


class Parser:
    """The serve parser or one of its argument groups (they all register into the same option list)."""

    def __init__(self, options):
        self.options = options


class KwTable:
    """get_kwargs(Cls): field name -> kwargs dict (computed lazily, in field order)."""

    def __init__(self, gen, cls):
        self.gen, self.cls = gen, cls
        self.fields = gen.tree.fields(cls)
        self.data = {}
        self.order = [f[0] for f in self.fields]
        self.deleted = set()

    def get(self, key):
        if key in self.deleted:
            raise KeyError(key)
        if key not in self.data:
            f = next((f for f in self.fields if f[0] == key), None)
            if f is None:
                raise KeyError(key)
            self.data[key] = self.gen.rules.field_kwargs(f)
            self.data[key]["_decl"] = f[2].line_of(f[4])
        return self.data[key]

    def keys(self):
        return [k for k in self.order if k not in self.deleted]


class Return(Exception):
    def __init__(self, value):
        self.value = value


class Gen:
    def __init__(self, root, version):
        self.version = version
        self.tree = Tree(root)
        self.rules = ComputeRules(self.tree)
        self.options = []
        self.argv = ["vllm", "serve", "MODEL"]  # `vllm serve MODEL [options]`, no --help
        self.inverse_prefixes = self.find_inverse_prefixes()

    # --- entry -------------------------------------------------------------------------------------------------------

    def run(self):
        serve = self.tree.module("vllm.entrypoints.cli.serve")
        if serve is None:
            raise SystemExit(f"{self.version}: no vllm/entrypoints/cli/serve.py")
        sub = self.tree.resolve(serve, "ServeSubcommand")
        init = self.tree.method(sub, "subparser_init") if isinstance(sub, ClsRef) else None
        call = None
        if init is not None:
            for n in ast.walk(init.node):
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "make_arg_parser":
                    call = n
        if call is None:
            raise SystemExit(f"{self.version}: ServeSubcommand.subparser_init does not call make_arg_parser")
        map_ = self.tree.resolve(serve, "make_arg_parser")
        if not isinstance(map_, FuncRef):
            raise SystemExit(f"{self.version}: make_arg_parser not resolved: {map_!r}")
        self.make_arg_parser = map_
        self.check_platform_hook()
        parser = Parser(self.options)
        self.call_function(map_, [parser], {})
        return self.options

    def find_inverse_prefixes(self):
        """A FlexibleArgumentParser that registers its own action for BooleanOptionalAction (0.33.0:
        `self.register("action", BooleanOptionalAction, EnableDisableAction)`, utils/argparse_utils.py) adds the
        inverse option strings of its `_inverse_prefixes` ("--enable-" <-> "--disable-")."""
        mod = self.tree.module("vllm.utils.argparse_utils")
        if mod is None:
            return {}
        fap = self.tree.resolve(mod, "FlexibleArgumentParser")
        if not isinstance(fap, ClsRef):
            return {}
        for n in ast.walk(fap.node):
            if (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "register"
                    and len(n.args) == 3 and isinstance(n.args[0], ast.Constant) and n.args[0].value == "action"):
                old = self.tree.lookup(n.args[1], mod)
                new = self.tree.lookup(n.args[2], mod)
                if isinstance(old, Ext) and old.name == "BooleanOptionalAction" and isinstance(new, ClsRef):
                    for c in self.tree.mro(new):
                        if not isinstance(c, ClsRef):
                            continue
                        for s in c.node.body:
                            if isinstance(s, ast.Assign) and ast.unparse(s.targets[0]) == "_inverse_prefixes":
                                self.replacement_action = f"{new.name} ({mod.line_of(new.node)})"
                                return ast.literal_eval(s.value)
                    DIAG.warn(f"{new.name} replaces BooleanOptionalAction but has no _inverse_prefixes")
        return {}

    def check_platform_hook(self):
        """AsyncEngineArgs.add_cli_args calls `current_platform.pre_register_and_update(parser)`: a no-op in the base
        Platform (platforms/interface.py) unless the CUDA platform overrides it."""
        iface = self.tree.module("vllm.platforms.interface")
        cuda = self.tree.module("vllm.platforms.cuda")
        ok = True
        for m in (cuda,):
            if m is not None and any(isinstance(n, ast.FunctionDef) and n.name == "pre_register_and_update"
                                     for n in ast.walk(m.node)):
                DIAG.note(f"{m.rel} overrides pre_register_and_update: options it adds are not modelled")
                ok = False
        if iface is not None:
            for n in ast.walk(iface.node):
                if isinstance(n, ast.FunctionDef) and n.name == "pre_register_and_update":
                    body = [s for s in n.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
                    if not all(isinstance(s, ast.Pass) for s in body):
                        DIAG.note(f"{iface.line_of(n)}: Platform.pre_register_and_update is not a no-op")
                        ok = False
        self.platform_hook_noop = ok

    # --- functions ---------------------------------------------------------------------------------------------------

    def call_function(self, fref, args, kwargs, cls=None):
        node, mod = fref.node, fref.module
        env = {"__module__": mod, "__cls__": cls, "__owner__": fref.owner}
        a = node.args
        params = [p.arg for p in a.posonlyargs + a.args]
        defaults = a.defaults
        is_static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list)
        is_class = any(isinstance(d, ast.Name) and d.id == "classmethod" for d in node.decorator_list)
        if is_class:
            env[params[0]] = cls
            params = params[1:]
        elif fref.owner is not None and not is_static:
            params = params[1:]  # self: not modelled
        for i, p in enumerate(params):
            if i < len(args):
                env[p] = args[i]
            elif p in kwargs:
                env[p] = kwargs[p]
            else:
                di = i - (len(params) - len(defaults))
                env[p] = self.eval(defaults[di], env) if di >= 0 else Unknown(f"parameter {p}")
        for p, d in zip(a.kwonlyargs, a.kw_defaults):
            env[p.arg] = kwargs.get(p.arg, self.eval(d, env) if d is not None else Unknown(p.arg))
        try:
            self.exec_body(node.body, env)
        except Return as r:
            return r.value
        return None

    def exec_body(self, body, env):
        for s in body:
            self.exec_stmt(s, env)

    def exec_stmt(self, s, env):
        mod = env["__module__"]
        if isinstance(s, ast.Expr):
            if isinstance(s.value, ast.Constant):
                return  # docstring
            self.eval(s.value, env)
        elif isinstance(s, ast.Assign):
            v = self.eval(s.value, env)
            for t in s.targets:
                self.assign(t, v, env, s)
        elif isinstance(s, ast.AnnAssign) and s.value is not None:
            self.assign(s.target, self.eval(s.value, env), env, s)
        elif isinstance(s, ast.AugAssign):
            if isinstance(s.target, ast.Subscript):
                container = self.eval(s.target.value, env)
                key = self.eval(s.target.slice, env)
                if isinstance(container, dict) and key == "choices":
                    # e.g. --collect-detailed-traces' ordered pairs; written as choices+=, gen-vllm-flags.py expands
                    container["choices+"] = ast.unparse(s.value)
                    DIAG.note(f"{container.get('field', '?')}: choices extended by `+= {ast.unparse(s.value)}` "
                              f"({mod.line_of(s)}): written as choices+=")
                elif isinstance(container, dict) and key in ("help", "metavar"):
                    pass
                else:
                    DIAG.warn(f"augmented assignment not modelled: {ast.unparse(s)} ({mod.line_of(s)})")
            elif isinstance(s.target, ast.Name):
                env[s.target.id] = Unknown(ast.unparse(s))
        elif isinstance(s, ast.Delete):
            for t in s.targets:
                if isinstance(t, ast.Subscript):
                    container = self.eval(t.value, env)
                    key = self.eval(t.slice, env)
                    if isinstance(container, dict):
                        container.pop(key, None)
                    elif isinstance(container, KwTable):
                        container.deleted.add(key)
                    else:
                        DIAG.warn(f"del not modelled: {ast.unparse(s)} ({mod.line_of(s)})")
        elif isinstance(s, ast.If):
            c = self.eval(s.test, env)
            if isinstance(c, Unknown):
                DIAG.warn(f"condition not evaluated, both branches run: {ast.unparse(s.test)} ({mod.line_of(s)})")
                self.exec_body(s.body, env)
                self.exec_body(s.orelse, env)
            elif c:
                self.exec_body(s.body, env)
            else:
                self.exec_body(s.orelse, env)
        elif isinstance(s, ast.For):
            it = self.eval(s.iter, env)
            if not isinstance(it, list):
                DIAG.warn(f"loop not modelled: for {ast.unparse(s.target)} in {ast.unparse(s.iter)} "
                          f"({mod.line_of(s)})")
                return
            for item in it:
                self.assign(s.target, item, env, s)
                self.exec_body(s.body, env)
        elif isinstance(s, ast.Return):
            raise Return(self.eval(s.value, env) if s.value is not None else None)
        elif isinstance(s, (ast.ImportFrom, ast.Import)):
            for a in s.names:
                if isinstance(s, ast.ImportFrom):
                    base = mod.absolute(s.module, s.level)
                    sm = self.tree.module(base)
                    env[a.asname or a.name] = self.tree.resolve(sm, a.name) if sm else Ext(base, a.name)
                else:
                    m = self.tree.module(a.name)
                    env[a.asname or a.name.split(".")[0]] = ModRef(m) if m else Ext(a.name, "")
        elif isinstance(s, ast.Pass):
            pass
        else:
            DIAG.warn(f"statement not modelled: {type(s).__name__} ({mod.line_of(s)})")

    def assign(self, target, v, env, s):
        if isinstance(target, ast.Name):
            env[target.id] = v
        elif isinstance(target, ast.Tuple):
            if isinstance(v, (list, tuple)) and len(v) == len(target.elts):
                for t, x in zip(target.elts, v):
                    self.assign(t, x, env, s)
            else:
                for t in target.elts:
                    self.assign(t, Unknown(ast.unparse(s)), env, s)
        elif isinstance(target, ast.Subscript):
            container = self.eval(target.value, env)
            key = self.eval(target.slice, env)
            if isinstance(container, dict):
                if key == "type":
                    # keep the source text of the new type (see the module docstring: `type=`)
                    v = ast.unparse(s.value)
                elif key == "action":
                    v = self.action_name(s.value, env)
                elif key == "choices":
                    v = self.choices_of(s.value, env, container.get("field", "?"))
                container[key] = v
            else:
                DIAG.warn(f"item assignment not modelled: {ast.unparse(s)} "
                          f"({env['__module__'].line_of(s)})")
        else:
            DIAG.warn(f"assignment target not modelled: {ast.unparse(target)}")

    # --- expressions -------------------------------------------------------------------------------------------------

    def name(self, n, env):
        if n in env:
            return env[n]
        r = self.tree.resolve(env["__module__"], n)
        if isinstance(r, tuple):  # module-level constant
            _, m, expr = r
            try:
                return ast.literal_eval(expr)
            except ValueError:
                return ("expr", m, expr)
        return r

    def eval(self, node, env):
        mod = env["__module__"]
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return self.name(node.id, env)
        if isinstance(node, ast.Attribute):
            base = self.eval(node.value, env)
            if isinstance(base, Ext) and base.mod == "sys" and node.attr == "argv":
                return list(self.argv)
            if isinstance(base, (ModRef, Ext, ClsRef)):
                return self.tree.resolve_attr(base, node.attr)
            if isinstance(base, str) or isinstance(base, (dict, KwTable, list)):
                return ("bound", base, node.attr)
            return Unknown(ast.unparse(node))
        if isinstance(node, (ast.List, ast.Tuple)):
            out = []
            for e in node.elts:
                if isinstance(e, ast.Starred):
                    v = self.eval(e.value, env)
                    out.extend(v if isinstance(v, list) else [Unknown(ast.unparse(e))])
                else:
                    out.append(self.eval(e, env))
            return out
        if isinstance(node, ast.Dict):
            out = {}
            for k, v in zip(node.keys, node.values):
                if k is None:
                    d = self.eval(v, env)
                    if isinstance(d, dict):
                        out.update(d)
                    else:
                        out["?"] = Unknown(ast.unparse(v))
                else:
                    out[self.eval(k, env)] = ("src", v)  # the value's source: add_argument looks at it per key
            return out
        if isinstance(node, ast.Subscript):
            base = self.eval(node.value, env)
            if isinstance(node.slice, ast.Slice):
                if isinstance(base, list):
                    lo = self.eval(node.slice.lower, env) if node.slice.lower else None
                    hi = self.eval(node.slice.upper, env) if node.slice.upper else None
                    return base[lo:hi]
                return Unknown(ast.unparse(node))
            key = self.eval(node.slice, env)
            if isinstance(base, KwTable):
                try:
                    return base.get(key)
                except KeyError:
                    DIAG.warn(f"{base.cls.name} has no field {key!r} ({mod.line_of(node)})")
                    return {"field": f"{base.cls.name}.{key}", "type": "?"}
            if isinstance(base, (dict, list)) and not isinstance(key, Unknown):
                try:
                    return base[key]
                except (KeyError, IndexError, TypeError):
                    return Unknown(ast.unparse(node))
            return Unknown(ast.unparse(node))
        if isinstance(node, ast.BoolOp):
            vals = [self.eval(v, env) for v in node.values]
            if any(isinstance(v, Unknown) for v in vals):
                return Unknown(ast.unparse(node))
            return all(vals) if isinstance(node.op, ast.And) else any(vals)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            v = self.eval(node.operand, env)
            return v if isinstance(v, Unknown) else (not v)
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            l, r = self.eval(node.left, env), self.eval(node.comparators[0], env)
            if isinstance(l, Unknown) or isinstance(r, Unknown):
                return Unknown(ast.unparse(node))
            op = node.ops[0]
            if isinstance(r, KwTable):
                r = r.keys()
            try:
                if isinstance(op, ast.In):
                    return l in r
                if isinstance(op, ast.NotIn):
                    return l not in r
                if isinstance(op, ast.Eq):
                    return l == r
                if isinstance(op, ast.NotEq):
                    return l != r
                if isinstance(op, ast.Is):
                    return l is r
                if isinstance(op, ast.IsNot):
                    return l is not r
            except TypeError:
                pass
            return Unknown(ast.unparse(node))
        if isinstance(node, ast.JoinedStr):
            parts = []
            for v in node.values:
                if isinstance(v, ast.Constant):
                    parts.append(v.value)
                else:
                    x = self.eval(v.value, env)
                    if not isinstance(x, str):
                        return Unknown(ast.unparse(node))
                    parts.append(x)
            return "".join(parts)
        if isinstance(node, ast.Call):
            return self.call(node, env)
        if isinstance(node, ast.Lambda):
            return ("lambda", ast.unparse(node))
        return Unknown(ast.unparse(node))

    def call(self, node, env):
        mod = env["__module__"]
        f = node.func
        # super().method(...)
        if (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Call) and isinstance(f.value.func, ast.Name)
                and f.value.func.id == "super"):
            cls, owner = env["__cls__"], env["__owner__"]
            m = self.tree.method(cls, f.attr, after=owner)
            if m is None:
                return Unknown(ast.unparse(node))
            return self.call_function(m, [self.eval(a, env) for a in node.args], {}, cls=cls)
        if isinstance(f, ast.Attribute):
            base = self.eval(f.value, env)
            if isinstance(base, Parser):
                if f.attr == "add_argument":
                    self.add_argument(node, env)
                    return None
                if f.attr == "add_argument_group" or f.attr == "add_mutually_exclusive_group":
                    return base
                DIAG.warn(f"parser method not modelled: {ast.unparse(node)[:80]} ({mod.line_of(node)})")
                return Unknown(ast.unparse(node))
            if isinstance(base, ClsRef):
                # A method that gets the parser or a kwargs dict can register or change options: interpret it.
                # Anything else (ToolParserManager.list_registered() for a help metavar...) cannot.
                args = [self.eval(a, env) for a in node.args]
                kws = {k.arg: self.eval(k.value, env) for k in node.keywords if k.arg}
                m = self.tree.method(base, f.attr)
                if m is None or not any(registers(a) for a in args + list(kws.values())):
                    return Unknown(ast.unparse(node))
                return self.call_function(m, args, kws, cls=base)
            if isinstance(base, dict) and f.attr == "pop":
                key = self.eval(node.args[0], env)
                default = self.eval(node.args[1], env) if len(node.args) > 1 else None
                return base.pop(key, default)
            if isinstance(base, KwTable) and f.attr == "items":
                return [(k, base.get(k)) for k in base.keys()]
            if isinstance(base, str):
                args = [self.eval(a, env) for a in node.args]
                if all(isinstance(a, (str, int)) for a in args) and f.attr in ("replace", "lower", "upper", "strip",
                                                                                "removeprefix", "removesuffix"):
                    return getattr(base, f.attr)(*args)
            args = [self.eval(a, env) for a in node.args]
            if any(isinstance(a, Parser) for a in args):
                if f.attr == "pre_register_and_update" and getattr(self, "platform_hook_noop", False):
                    return None  # a no-op on CUDA (checked in check_platform_hook)
                DIAG.warn(f"call with the parser not modelled: {ast.unparse(node)[:100]} ({mod.line_of(node)})")
            return Unknown(ast.unparse(node))
        if isinstance(f, ast.Name):
            callee = self.name(f.id, env)
            if isinstance(callee, FuncRef) and callee.name == "get_kwargs":
                cls = self.eval(node.args[0], env)
                if not isinstance(cls, ClsRef):
                    DIAG.warn(f"get_kwargs of an unresolved class: {ast.unparse(node)} ({mod.line_of(node)})")
                    return Unknown(ast.unparse(node))
                return KwTable(self, cls)
            if isinstance(callee, Ext) and callee.mod == "builtins" and f.id in ("list", "dict"):
                v = self.eval(node.args[0], env) if node.args else []
                return v
            args = [self.eval(a, env) for a in node.args]
            if isinstance(callee, FuncRef) and any(registers(a) for a in args):
                return self.call_function(callee, args, {k.arg: self.eval(k.value, env) for k in node.keywords
                                                         if k.arg})
            if any(isinstance(a, Parser) for a in args):
                DIAG.warn(f"call with the parser not modelled: {ast.unparse(node)[:100]} ({mod.line_of(node)})")
            return Unknown(ast.unparse(node))
        return Unknown(ast.unparse(node))

    # --- add_argument ------------------------------------------------------------------------------------------------

    def action_name(self, node, env):
        if isinstance(node, ast.Constant):
            return node.value
        v = self.eval(node, env)
        if isinstance(v, Ext):
            return v.name
        if isinstance(v, ClsRef):
            # a custom argparse.Action subclass; a subclass of BooleanOptionalAction behaves as one
            if any(isinstance(c, Ext) and c.name == "BooleanOptionalAction" for c in self.tree.mro(v)):
                return "BooleanOptionalAction"
            return v.name
        return ast.unparse(node)

    def choices_of(self, node, env, flag):
        """A list of the choices; an unevaluable part is kept as ("+", source)."""
        mod = env["__module__"]
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return self.choices_of(node.left, env, flag) + self.choices_of(node.right, env, flag)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "get_args":
            t = self.tree.type_of(node.args[0], mod)
            if isinstance(t, TLit):
                return [str(v) for v in t.values]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("sorted", "list"):
            inner = self.choices_of(node.args[0], env, flag)
            if node.func.id == "sorted" and all(isinstance(x, str) for x in inner):
                return sorted(inner)
            return inner
        v = self.eval(node, env)
        if isinstance(v, list) and all(isinstance(x, (str, int, float)) for x in v):
            return [str(x) for x in v]
        return [("+", ast.unparse(node))]

    def add_argument(self, node, env):
        mod = env["__module__"]
        strings = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                v = self.eval(a.value, env)
                if isinstance(v, list):
                    strings.extend(v)
                else:
                    DIAG.warn(f"option strings not evaluated: {ast.unparse(a)} ({mod.line_of(node)})")
            else:
                strings.append(self.eval(a, env))
        if not strings or any(not isinstance(s, str) for s in strings):
            DIAG.warn(f"option strings not evaluated: {ast.unparse(node)[:100]} ({mod.line_of(node)})")
            return
        kw = {}
        for k in node.keywords:
            if k.arg is None:
                d = self.eval(k.value, env)
                if not isinstance(d, dict):
                    DIAG.warn(f"**kwargs not evaluated: {ast.unparse(k.value)} ({mod.line_of(node)})")
                    continue
                for key, val in d.items():
                    if isinstance(val, tuple) and len(val) == 2 and val[0] == "src":
                        self.keyword(kw, key, val[1], env)
                    else:
                        kw[key] = val
            else:
                self.keyword(kw, k.arg, k.value, env)
        kw["_at"] = mod.line_of(node)
        if not strings[0].startswith("-"):
            return  # the positional model_tag
        self.options.append((strings, kw))

    def keyword(self, kw, key, vnode, env):
        if key == "type":
            kw["type"] = ast.unparse(vnode)
        elif key == "action":
            kw["action"] = self.action_name(vnode, env)
        elif key == "choices":
            kw["choices"] = self.choices_of(vnode, env, "?")
        elif key in ("nargs", "const"):
            v = self.eval(vnode, env)
            kw[key] = str(v) if not isinstance(v, Unknown) else ast.unparse(vnode)
        elif key == "metavar":
            v = self.eval(vnode, env)
            if isinstance(v, str):
                kw["metavar"] = v
        # dest, default, help, deprecated: not part of the lists

    # --- rows --------------------------------------------------------------------------------------------------------

    def rows(self):
        out = []
        seen = {}
        for strings, kw in self.options:
            flag = next((s for s in strings if s.startswith("--")), strings[0])
            others = [s for s in strings if s != flag]
            action = kw.get("action")
            negs = []
            if action == "BooleanOptionalAction":
                for s in strings:
                    if s.startswith("--"):
                        negs.append("--no-" + s[2:])
                for s in strings:
                    for prefix, inverse in self.inverse_prefixes.items():
                        if s.startswith(prefix):
                            negs.append(inverse + s[len(prefix):])
            aliases = others + ["!" + n for n in negs]
            typ = kw.get("type")
            if isinstance(typ, TLit):
                typ = None
            nargs = kw.get("nargs")
            if action == "store_true":
                kind = "bool:store_true"
            elif action == "BooleanOptionalAction":
                kind = "bool:BooleanOptionalAction"
            elif action == "append":
                kind = "list:append"
            elif nargs == "?":
                kind = "value:optional"
            elif nargs == "+":
                kind = "list:+"
            elif nargs is not None and nargs.isdigit():
                kind = f"list:{nargs}"
            elif typ is not None and is_json_type(typ):
                kind = "json"
            elif action in (None, "store") or action.endswith("Action"):
                kind = "value"
            else:
                DIAG.warn(f"{flag}: action {action!r} not modelled")
                kind = "value"
            parts = []
            if typ is not None:
                parts.append("type=" + typ + ("|None" if kw.get("optional") else ""))
            ch = kw.get("choices")
            if ch:
                known = [c for c in ch if isinstance(c, str)]
                extra = [c[1] for c in ch if not isinstance(c, str)]
                for c in known:
                    if "," in c:
                        DIAG.warn(f"{flag}: choice {c!r} contains a comma (the lists split choices on commas)")
                if known:
                    parts.append("choices=" + ",".join(known))
                for e in extra:
                    parts.append("choices+=" + e)
                    DIAG.note(f"{flag}: choices depend on the running platform ({e}); the list keeps "
                              f"{','.join(known) or 'nothing'} and writes the rest as choices+= ({kw['_at']})")
            if kw.get("choices+"):
                parts.append("choices+=" + kw["choices+"])
            if isinstance(kw.get("metavar"), list):
                parts.append("metavar=" + ",".join(kw["metavar"]))
            if nargs is not None and kind not in ("value:optional", "list:+"):
                parts.append(f"nargs={nargs}")
            if action not in (None, "store", "store_true", "BooleanOptionalAction", "append"):
                parts.append(f"action={action}")
            if kw.get("const") is not None and kind != "value:optional":
                parts.append(f"const={kw['const']}")
            if kw.get("field"):
                parts.append("field=" + kw["field"])
                parts.append("hint=" + kw["hint"])
                parts.append("decl=" + kw["_decl"])
            parts.append("at=" + kw["_at"])
            for p in parts:
                if "; " in p or "\t" in p or "\n" in p:
                    DIAG.warn(f"{flag}: detail part {p!r} contains a separator")
            if flag in seen:
                DIAG.warn(f"{flag} registered twice ({seen[flag]}, {kw['_at']}): argparse raises a conflict")
            seen[flag] = kw["_at"]
            out.append((flag, ",".join(aliases) or "-", kind, "; ".join(parts)))
        return out


def registers(v):
    """Can a call that gets v register or change options?"""
    return isinstance(v, (Parser, KwTable)) or (isinstance(v, dict) and "field" in v)


def is_json_type(t):
    base = t
    return (base.startswith("parse_dataclass[") or base in ("json.loads", "optional_type(json.loads)",
                                                           "parse_type(json.loads)", "union_dict_and_str"))


# ----------------------------------------------------------------------------------------------------------------------


def load_releases(path):
    """The releases gen-vllm-flags.py reads: released, no `source` key, in file order."""
    with open(path, "rb") as f:
        data = tomllib.load(f)
    return [r["name"] for r in data.get("release", []) if r.get("released", True) and "source" not in r]


def write_release(src, v, out_dir, to_stdout):
    DIAG.version = v
    root = src / f"vllm-{v}"
    if not (root / "vllm" / "engine" / "arg_utils.py").is_file():
        DIAG.warn(f"{root}/vllm/engine/arg_utils.py not found (run scripts/fetch-vllm-source.sh {src})")
        return False
    gen = Gen(root, v)
    gen.run()
    rows = gen.rows()
    header = [
        f"# vLLM {v}: `vllm serve` options in argparse registration order. Written by scripts/gen-flag-lists.py from",
        f"# vllm-{v}/vllm/{gen.make_arg_parser.module.rel} (make_arg_parser) and vllm/engine/arg_utils.py",
        "# (EngineArgs / AsyncEngineArgs.add_cli_args, _compute_kwargs), read by AST; not edited by hand.",
        f"# {len(rows)} options (the positional model_tag and -h/--help not listed). Columns: flag, aliases, kind, detail.",
    ]
    header.append("# `None` in choices (optional fields) is " + (
        "the string \"None\" (a literal None on the command line fails the choices check)"
        if gen.rules.none_choice_is_str else "Python None (what optional_type returns for \"None\")") + ".")
    if gen.inverse_prefixes:
        header.append(f"# Boolean options also get the inverse forms of {gen.replacement_action}: "
                      + ", ".join(f"{a} -> {b}" for a, b in gen.inverse_prefixes.items()))
    text = "\n".join(header + ["\t".join(r) for r in rows]) + "\n"
    if to_stdout:
        sys.stdout.write(text)
    else:
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / f"flags-{v}.detail.tsv").write_text(text)
        print(f"gen-flag-lists: {v}: {len(rows)} options -> {out_dir / f'flags-{v}.detail.tsv'}", file=sys.stderr)
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", default=os.environ.get("QPATH_VLLM_SRC", "vllm-src"),
                    help="the folder of unpacked releases (default: $QPATH_VLLM_SRC, else ./vllm-src)")
    ap.add_argument("--releases", default=str(REPO / "data" / "releases.toml"),
                    help="the release list (default: data/releases.toml of this repository)")
    ap.add_argument("--release", action="append", help="only this release (repeatable)")
    ap.add_argument("--out", help="write the lists here (default: SRC/notes)")
    ap.add_argument("--stdout", action="store_true", help="print the lists instead of writing them")
    args = ap.parse_args()
    src = Path(args.src).resolve()
    if not src.is_dir():
        raise SystemExit(f"{src}: no such folder (run scripts/fetch-vllm-source.sh DIR, then pass --src DIR)")
    versions = load_releases(args.releases)
    if args.release:
        unknown = [v for v in args.release if v not in versions]
        if unknown:
            raise SystemExit(f"not releases with sources of their own in {args.releases}: {', '.join(unknown)}")
        versions = [v for v in versions if v in args.release]
    out_dir = Path(args.out) if args.out else src / "notes"
    t0 = time.monotonic()
    ok = True
    for v in versions:
        ok = write_release(src, v, out_dir, args.stdout) and ok
    DIAG.version = "all"
    print(f"gen-flag-lists: {len(versions)} releases in {time.monotonic() - t0:.1f} s", file=sys.stderr)
    if DIAG.warnings or not ok:
        print(f"gen-flag-lists: {DIAG.warnings} warnings: the lists may be incomplete", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
