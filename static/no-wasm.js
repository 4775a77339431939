// qpath's start-up check; see index.html. Until the app replaces #qpath-start, a missing WebAssembly or a module or
// wasm that fails to load or start is said there, with a link to the CLI; later errors are the panic box's.
// Inlined at the top of <head> (trunk's rel="inline"), so it runs before anything can fail and waits for nothing: a
// failure before the body is parsed is said once it is (DOMContentLoaded).
(function () {
  function fail(reason) {
    if (document.readyState == 'loading') return addEventListener('DOMContentLoaded', function () { fail(reason); });
    var app = document.getElementById('qpath-app'), start = document.getElementById('qpath-start');
    if (!app || !start || !app.contains(start)) return;
    start.setAttribute('role', 'alert');
    start.textContent = reason + ' The same answers come from qpath’s command-line tool: see ';
    var a = start.appendChild(document.createElement('a'));
    a.href = 'README.txt';
    a.id = 'qpath-cli-link';
    a.textContent = 'the README (The CLI)';
    start.append('.');
  }
  function failed(what) {
    fail('qpath could not start: ' + what + '. Reloading may help; if not, this browser or network blocks it.');
  }
  if (typeof WebAssembly != 'object') {
    return fail('qpath cannot run in this browser: it needs WebAssembly, which this browser lacks or has turned off.');
  }
  addEventListener('error', function (e) {
    var t = e.target;
    failed(t && t.tagName == 'SCRIPT' ? 'its module did not load' : 'its WebAssembly did not load or start (' + e.message + ')');
  }, true);
  addEventListener('unhandledrejection', function (e) {
    failed('its WebAssembly did not load or start (' + ((e.reason && e.reason.message) || e.reason) + ')');
  });
})();
