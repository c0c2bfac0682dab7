// Sortable tables: click a header of a table.sortable to sort by that column (again: reverse);
// numbers sort largest first on the first click.
// A cell's data-sort attribute, when present, is the value sorted by; th[data-type=num] sorts
// numerically.
(function () {
  "use strict";
  function bind(root) {
  root.querySelectorAll("table.sortable").forEach(function (table) {
    table.querySelectorAll("thead th").forEach(function (th, col) {
      th.classList.add("sort-key");
      th.addEventListener("click", function () {
        var numeric = th.dataset.type === "num";
        // first click: numbers largest first, text A to Z; a second click reverses
        var desc = th.dataset.dir ? th.dataset.dir === "asc" : numeric;
        table.querySelectorAll("thead th").forEach(function (o) { delete o.dataset.dir; });
        th.dataset.dir = desc ? "desc" : "asc";
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        var key = function (row) {
          var cell = row.cells[col];
          var v = cell.dataset.sort !== undefined ? cell.dataset.sort : cell.textContent.trim();
          return numeric ? parseFloat(v) : v.toLowerCase();
        };
        rows.sort(function (a, b) {
          var x = key(a), y = key(b);
          var c = x < y ? -1 : x > y ? 1 : 0;
          return desc ? -c : c;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });
  }
  // serve's pages swap their content as matches are stored (live.js): bound again then
  window.mallowsSortable = bind;
  bind(document);
})();
