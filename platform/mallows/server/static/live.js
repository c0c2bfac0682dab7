// A running tournament's or ladder's page on mallows serve: listens to the server's events
// (server-sent events) and, when the database changed, fetches its own address again and swaps
// its <main> for the new one: no reload, no timer. A page that is no longer running (the new
// one has no event source) stops listening.
(function () {
  "use strict";
  if (!window.EventSource || !window.DOMParser) return;
  var me = document.currentScript;
  var source = new EventSource(me.dataset.events);
  var busy = false, again = false;
  function update() {
    if (busy) { again = true; return; }
    busy = true;
    fetch(location.href, {cache: "no-store", credentials: "same-origin"}).then(function (r) {
      return r.ok ? r.text() : null;
    }).then(function (html) {
      busy = false;
      if (html === null) return;
      var doc = new DOMParser().parseFromString(html, "text/html");
      var fresh = doc.querySelector("main"), old = document.querySelector("main");
      if (fresh && old) {
        old.replaceWith(fresh);
        if (window.mallowsSortable) window.mallowsSortable(fresh);
        document.body.dataset.updates = String((+document.body.dataset.updates || 0) + 1);
      }
      if (!doc.querySelector("script[data-events]")) { source.close(); return; }
      if (again) { again = false; update(); }
    }).catch(function () { busy = false; });
  }
  source.addEventListener("hello", function () { document.body.dataset.live = "1"; });
  source.addEventListener("change", update);
})();
