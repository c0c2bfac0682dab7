// Take4's replay table (its replay face, mallows.games.faces.ReplayView.script): draws one
// frame of games/take4/frames.py (the positions on show with the round's picks, every seat's
// collection by squad) into the replay page's table. Loaded before report/static/replay.js,
// which calls it; the play page draws its seat's view (web.py) with it too.
(function () {
  "use strict";
  function draw(f, table, ctx) {
    var el = ctx.el, names = ctx.names, meta = ctx.meta;
    var positions = el("div", "positions");
    f.positions.forEach(function (name, i) {
      var p = el("div", "position");
      p.appendChild(el("div", "label", "position " + (i + 1)));
      var c = el("span", "card t4 " + (name ? "squad-" + meta.squad_of[name] : "empty"), name || "–");
      c.dataset.value = name || "";
      p.appendChild(c);
      if (name) p.appendChild(el("div", "label", meta.squad_of[name]));
      if (f.picks) {
        var who = [];
        f.picks.forEach(function (pick, s) { if (pick === i + 1) who.push(names[s] + (f.took[s] ? " ✓" : " ✗")); });
        p.appendChild(el("div", "picked", who.length ? who.join(", ") : "nobody"));
      }
      positions.appendChild(p);
    });
    var info = el("div", "info");
    info.appendChild(el("div", null, "round " + (f.round + 1)));
    info.appendChild(el("div", null, f.deck + " cards left in the deck"));
    positions.appendChild(info);
    table.appendChild(positions);
    f.collections.forEach(function (held, s) {
      var r = el("div", "seat" + (f.winners.indexOf(s) >= 0 ? " winner" : ""));
      r.dataset.seat = s;
      var label = el("div", "who");
      label.appendChild(el("b", null, "seat " + s));
      label.appendChild(el("span", null, " " + names[s]));
      label.appendChild(el("div", "total", held.length + " cards" + (f.winners.indexOf(s) >= 0 ? " · winner" : "")));
      r.appendChild(label);
      var squads = el("div", "squads");
      meta.squads.forEach(function (sq) {
        var box = el("div", "squad squad-" + sq[0]);
        var have = sq[1].filter(function (n) { return held.indexOf(n) >= 0; }).length;
        box.appendChild(el("div", "label", sq[0] + " " + have + "/4"));
        sq[1].forEach(function (n) {
          var count = held.filter(function (x) { return x === n; }).length;
          var c = el("span", "card t4 " + (count ? "squad-" + sq[0] : "missing"), n + (count > 1 ? " ×" + count : ""));
          c.dataset.value = n;
          c.dataset.count = count;
          box.appendChild(c);
        });
        squads.appendChild(box);
      });
      r.appendChild(squads);
      table.appendChild(r);
    });
  }

  (window.mallowsTables = window.mallowsTables || {}).take4 = {seatViews: false, draw: draw};
})();
