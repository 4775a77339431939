// qpath's one include line: <script type="module" src="QPATH/qpath-embed.js"></script> (docs/embedding.md).
// It defines <qpath-explainer> at once but loads nothing until an element comes within a screen of the viewport (or
// has loading="eager", or the browser lacks IntersectionObserver); then qpath-web.js and the wasm next to this file
// load once for the page, and src/embed.rs renders each element near the viewport into its shadow root.
// `ready` is a thenable of the JS API (the exports of qpath-web.js); using it starts the load:
//   import { ready } from "QPATH/qpath-embed.js"; const qpath = await ready; qpath.resolve("vllm serve …", { gpu: "l4" });
// If qpath cannot start (no WebAssembly, a module or wasm that fails to load, a CSP), each element says so in a
// sentence, a console warning names the cause, and `ready` rejects with it. Until then an element's shadow root holds
// only an empty block of the height --qpath-reserve (default 100vh), so the host's text does not shift when it renders.
const here = (file) => new URL(file, import.meta.url);
const shown = new WeakSet();
const waiting = [];
let started, hooks, failed;

const say = (el) => { (el.shadowRoot ?? el.attachShadow({ mode: "open" })).textContent = failed; };

const load = () => {
  if (!started) {
    started = (async () => {
      if (typeof WebAssembly !== "object") throw new Error("it needs WebAssembly, which this browser lacks or has turned off");
      const qpath = await import(here("./qpath-web.js").href);
      await qpath.default({ module_or_path: here("./qpath-web_bg.wasm") });
      qpath.defineExplainer();
      return qpath;
    })();
    started.catch((error) => {
      const why = `qpath could not start here: ${error?.message ?? error}.`;
      console.warn(why);
      failed = `${why} The same answers come from qpath's command-line tool (qpath, crates/qpath-cli).`;
      waiting.forEach(say);
    });
  }
  return started;
};

export const ready = { then: (a, b) => load().then(a, b), catch: (b) => load().catch(b), finally: (f) => load().finally(f) };

const show = (el) => {
  if (shown.has(el)) return;
  shown.add(el);
  near?.unobserve(el);
  if (hooks) hooks.connect(el);
  else if (failed) say(el);
  else { waiting.push(el); load(); }
};

const near = typeof IntersectionObserver === "function"
  ? new IntersectionObserver((seen) => seen.forEach((e) => e.isIntersecting && show(e.target)), { rootMargin: "100%" })
  : null;

if (typeof customElements === "object" && !customElements.get("qpath-explainer")) {
  customElements.define("qpath-explainer", class extends HTMLElement {
    static observedAttributes = "gpu vllm cuda cubins flashinfer cmd compact theme".split(" ");
    // Called once by src/embed.rs's define with its hooks: the elements already shown connect now.
    static attach(h) {
      if (hooks) return false;
      hooks = h;
      waiting.splice(0).forEach((el) => el.isConnected && h.connect(el));
      return true;
    }
    connectedCallback() {
      // Until qpath renders, the element holds a screen's height (the host can set --qpath-reserve): the text after it
      // is below the first screen already and does not move when the explainer appears (no layout shift).
      if (!this.shadowRoot) {
        const hold = document.createElement("div");
        hold.style.minHeight = "var(--qpath-reserve, 100vh)";
        this.attachShadow({ mode: "open" }).append(hold);
      }
      if (shown.has(this)) hooks?.connect(this);
      else if (near && this.getAttribute("loading") !== "eager") near.observe(this);
      else show(this);
    }
    attributeChangedCallback(...a) { hooks?.change(this, ...a); }
    disconnectedCallback() { near?.unobserve(this); hooks?.disconnect(this); }
  });
}
