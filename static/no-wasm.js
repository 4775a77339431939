// Runs before the page's module: when this browser has no WebAssembly, or the module or its wasm fails to load or
// start, the text in #qpath-app (which the app replaces when it mounts) says so and points to the CLI, instead of a
// blank page. Errors after the app mounted are the panic box's (src/panic.rs).
(function () {
  var app = document.getElementById('qpath-app');
  var start = document.getElementById('qpath-start');
  if (!app || !start) return;
  var cli = ' The same answers come from qpath\u2019s command-line tool (`qpath`, in the repository\u2019s crates/qpath-cli): ';
  function fail(reason) {
    if (!app.contains(start)) return; // the app mounted: not a start-up failure
    start.setAttribute('role', 'alert');
    start.textContent = reason + cli;
    var a = document.createElement('a');
    a.href = 'README.md';
    a.id = 'qpath-cli-link';
    a.textContent = 'README, \u201cThe CLI\u201d';
    start.appendChild(a);
    start.appendChild(document.createTextNode('.'));
  }
  if (typeof WebAssembly !== 'object' || typeof WebAssembly.instantiate !== 'function') {
    fail('qpath cannot run in this browser: it needs WebAssembly, which this browser does not provide or has turned off (some locked-down browsers and policies do).');
    return;
  }
  function failed(what) {
    fail('qpath could not start: ' + what + '. Reloading may help; if it does not, this browser or network blocks it.');
  }
  window.addEventListener('error', function (e) {
    var t = e.target;
    if (t && t !== window && t.tagName === 'SCRIPT') failed('its module did not load');
    else if (e.message) failed('its WebAssembly did not load or start (' + e.message + ')');
  }, true);
  window.addEventListener('unhandledrejection', function (e) {
    failed('its WebAssembly did not load or start (' + (e.reason && e.reason.message || e.reason) + ')');
  });
})();
