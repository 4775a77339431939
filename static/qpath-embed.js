// qpath's one include line for a host page: <script type="module" src="QPATH/qpath-embed.js"></script>
// It loads the module and the wasm next to this file (URLs relative to import.meta.url, so any folder or origin works)
// and defines <qpath-explainer>; each element renders into its own shadow root with its own styles (docs/embedding.md).
// `ready` is a promise of the JS API (resolve, gpus, releases, presets, …; the exports of qpath-web.js):
//   import { ready } from "QPATH/qpath-embed.js"; const qpath = await ready; qpath.resolve("vllm serve …", { gpu: "l4" });
// If qpath cannot start (no WebAssembly, a module or wasm that fails to load, a CSP that blocks it), each element says
// so in a sentence instead, a console warning names the cause, and `ready` rejects with it.
const here = (file) => new URL(file, import.meta.url);

export const ready = (async () => {
  if (typeof WebAssembly !== "object") throw new Error("it needs WebAssembly, which this browser lacks or has turned off");
  const qpath = await import(here("./qpath-web.js").href);
  await qpath.default({ module_or_path: here("./qpath-web_bg.wasm") });
  qpath.defineExplainer();
  return qpath;
})();

ready.catch((error) => {
  const why = `qpath could not start here: ${error?.message ?? error}.`;
  console.warn(why);
  if (typeof customElements === "undefined" || customElements.get("qpath-explainer")) return;
  customElements.define("qpath-explainer", class extends HTMLElement {
    connectedCallback() {
      const root = this.shadowRoot ?? this.attachShadow({ mode: "open" });
      root.textContent = `${why} The same answers come from qpath's command-line tool (qpath, crates/qpath-cli).`;
    }
  });
});
