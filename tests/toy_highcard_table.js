// High card's replay table (its replay face's script, see toy_highcard_faces.py): every
// seat's card and rounds won; the play page draws a seat's own card, the others hidden.
(function () {
  "use strict";
  function draw(f, table, ctx) {
    var el = ctx.el;
    table.appendChild(el("div", "info", "round " + (f.round + 1) + " of " + ctx.meta.rounds));
    f.cards.forEach(function (card, s) {
      var row = el("div", "seat" + (s === f.current ? " to-move" : "") + (s === f.winner ? " winner" : ""));
      row.dataset.seat = s;
      var who = el("div", "who");
      who.appendChild(el("b", null, "seat " + s));
      who.appendChild(el("span", null, " " + ctx.names[s]));
      who.appendChild(el("div", "total", f.wins[s] + " won"));
      row.appendChild(who);
      var c = el("span", "card " + (card === null ? "down hidden" : "up"), card === null ? "?" : String(card));
      c.dataset.value = card === null ? "" : String(card);
      row.appendChild(c);
      table.appendChild(row);
    });
  }
  (window.mallowsTables = window.mallowsTables || {}).highcard = {seatViews: false, draw: draw};
})();
