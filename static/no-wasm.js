// qpath's start-up check; see index.html. Until the app replaces #qpath-start, a missing WebAssembly or a module or
// wasm that fails to load or start is said there, with a link to the CLI; later errors are the panic box's.
(function () {
  var app = document.getElementById('qpath-app'), start = document.getElementById('qpath-start');
  function fail(reason) {
    if (!app || !start || !app.contains(start)) return;
    start.setAttribute('role', 'alert');
    start.textContent = reason + ' The same answers come from qpath\u2019s command-line tool: see ';
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
