"""qpath's explainer in Sphinx: a ``.. qpath-explainer::`` directive and the include line, in one file.

Copy this file next to your ``conf.py`` (or into any folder on ``sys.path``), then in ``conf.py``::

    extensions = ["qpath_sphinx"]
    qpath_build = "qpath"            # qpath's release build (its dist/ folder), copied to _static/qpath/
    # or, instead of a local copy:
    # qpath_url = "https://<you>.github.io/qpath/"

and in a page::

    .. qpath-explainer::
       :gpu: l4
       :vllm: 0.25.0
       :compact:

       vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8

The directive's content is the command line (lines are joined; a trailing backslash is dropped, so a multi-line shell
command pastes as is). Options are the element's attributes: ``gpu``, ``vllm``, ``cuda``, ``cubins``, ``flashinfer``,
``theme`` (default ``auto``: the explainer follows the theme's light/dark switch) and the flag ``compact``.
Only HTML builders render it; other builders get the command line as a literal block. Every HTML page gets, in its
``<head>``, the one CSS line that holds an explainer's height until it renders (no layout shift; docs/embedding.md).
qpath's repository tests this file with Furo and sphinx_rtd_theme (tests/docsites/, scripts/docsites-test.sh).
"""

import html
import shutil
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import Directive, directives
from sphinx.errors import ConfigError

__version__ = "1.0"

ATTRIBUTES = ("gpu", "vllm", "cuda", "cubins", "flashinfer", "theme")

# Holds an explainer's height from the first paint until qpath-embed.js has defined the element (which then holds it
# until the explainer renders), so the page's text does not shift (docs/embedding.md, "No layout shift").
RESERVE = "<style>qpath-explainer:not(:defined) { display: block; min-height: 100vh }</style>"


class QpathExplainer(Directive):
    has_content = True
    option_spec = {name: directives.unchanged_required for name in ATTRIBUTES}
    option_spec["compact"] = directives.flag

    def run(self):
        self.assert_has_content()
        cmd = " ".join(line.strip().removesuffix("\\").strip() for line in self.content if line.strip())
        attrs = [f'{name}="{html.escape(self.options[name])}"' for name in ATTRIBUTES if name in self.options]
        if "theme" not in self.options:
            attrs.append('theme="auto"')
        if "compact" in self.options:
            attrs.append("compact")
        attrs.append(f'cmd="{html.escape(cmd)}"')
        element = f"<qpath-explainer {' '.join(attrs)}></qpath-explainer>"
        return [nodes.raw("", element, format="html"), nodes.literal_block(cmd, cmd, classes=["qpath-fallback"])]


def _keep_for_builder(app, doctree, docname):
    """HTML builders keep the element; others keep the command line as a literal block."""
    html_builder = app.builder.format == "html"
    for block in list(doctree.findall(nodes.literal_block)):
        if "qpath-fallback" in block["classes"] and html_builder:
            block.parent.remove(block)
    if not html_builder:
        for raw in list(doctree.findall(nodes.raw)):
            if raw.astext().startswith("<qpath-explainer "):
                raw.parent.remove(raw)


def _include(app, config):
    if config.qpath_url:
        app.add_js_file(config.qpath_url.rstrip("/") + "/qpath-embed.js", type="module")
        return
    if not config.qpath_build:
        raise ConfigError("qpath_sphinx: set qpath_build (the folder of qpath's release build) or qpath_url")
    if not Path(app.confdir, config.qpath_build, "qpath-embed.js").is_file():
        raise ConfigError(f"qpath_build = {config.qpath_build!r}: no qpath-embed.js in {Path(app.confdir, config.qpath_build)}")
    app.add_js_file("qpath/qpath-embed.js", type="module")


def _reserve(app, pagename, templatename, context, doctree):
    context["metatags"] = context.get("metatags", "") + RESERVE


def _copy_build(app, exception):
    if exception is not None or app.builder.format != "html" or app.config.qpath_url or not app.config.qpath_build:
        return
    shutil.copytree(Path(app.confdir, app.config.qpath_build), Path(app.outdir, "_static", "qpath"), dirs_exist_ok=True)


def setup(app):
    app.add_config_value("qpath_build", "", "html", types=[str])
    app.add_config_value("qpath_url", "", "html", types=[str])
    app.add_directive("qpath-explainer", QpathExplainer)
    app.connect("config-inited", _include)
    app.connect("doctree-resolved", _keep_for_builder)
    app.connect("html-page-context", _reserve)
    app.connect("build-finished", _copy_build)
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True}
