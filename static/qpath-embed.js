// qpath's one include line for a host page: <script type="module" src="QPATH/qpath-embed.js"></script>
// It loads the module and the wasm next to this file (URLs relative to import.meta.url, so any folder or origin works)
// and defines <qpath-explainer>; each element renders into its own shadow root with its own styles (docs/embedding.md).
// As a module it also re-exports the JS API (resolve, gpus, releases, presets, …) and `ready`, a promise of it:
//   import { ready } from "QPATH/qpath-embed.js"; const qpath = await ready; qpath.resolve("vllm serve …", { gpu: "l4" });
// If the wasm cannot start (no WebAssembly, blocked by a CSP, not found), each element says so in text instead.
import init, * as qpath from "./qpath-web.js";

export * from "./qpath-web.js";

export const ready = init({ module_or_path: new URL("./qpath-web_bg.wasm", import.meta.url) }).then(
  () => {
    qpath.defineExplainer();
    return qpath;
  },
  (error) => {
    const why = typeof WebAssembly === "undefined" ? "this browser has no WebAssembly" : String(error);
    if (typeof customElements !== "undefined" && !customElements.get("qpath-explainer")) {
      customElements.define("qpath-explainer", class extends HTMLElement {
        connectedCallback() {
          const root = this.shadowRoot ?? this.attachShadow({ mode: "open" });
          root.textContent = `qpath could not start here (${why}). The same answers come from its command-line ` +
            "tool: qpath explain 'vllm serve …' (crates/qpath-cli).";
        }
      });
    }
    throw error;
  },
);
