// Arschmallows' replay table (its replay face, mallows.games.faces.ReplayView.script): draws
// one frame of games/arschmallows/frames.py (the rows with what each seat saw, the piles, the
// held card) into the replay page's table. Loaded before report/static/replay.js, which calls
// it; the play page draws its seat's view (web.py) with it too. No game rule lives here.
(function () {
  "use strict";
  var el;
  var ACTION = {9: "Spy", 10: "Exchange", 11: "Play twice"};
  function card(value, up, known, extra) {
    var c = el("span", "card " + (up ? "up" : known ? "down known" : "down hidden") + (extra ? " " + extra : ""));
    if (up || known) {
      c.textContent = value;
      c.dataset.value = value;
      if (ACTION[value]) c.title = ACTION[value];
      if (value < 0) c.classList.add("neg");
      else if (value >= 9) c.classList.add("action");
    } else {
      c.textContent = "?";
    }
    c.dataset.up = up ? "1" : "0";
    return c;
  }

  function draw(f, table, ctx) {
    var v = ctx.viewer, names = ctx.names, meta = ctx.meta;
    var center = el("div", "center");
    var pile = el("div", "pile");
    pile.appendChild(el("div", "label", "discard"));
    var top = f.discard === null ? el("span", "card empty", "–") : card(f.discard, true, true);
    top.id = "discard";
    pile.appendChild(top);
    pile.appendChild(el("div", "label", f.discard_size + " in the pile"));
    center.appendChild(pile);
    var draw = el("div", "pile");
    draw.appendChild(el("div", "label", "draw pile"));
    var back = el("span", "card down hidden", String(f.draw_pile));
    back.id = "draw-pile";
    draw.appendChild(back);
    draw.appendChild(el("div", "label", f.draw_pile + " cards"));
    center.appendChild(draw);
    var held = el("div", "pile");
    held.appendChild(el("div", "label", "held"));
    if (f.held) {
      var sees = v === null || v === f.held.seat || f.held.source === "discard";
      var h = card(f.held.value, false, sees, "held");
      h.id = "held";
      held.appendChild(h);
      held.appendChild(el("div", "label", "seat " + f.held.seat + " holds it (from the " + f.held.source + " pile)"));
    } else {
      held.appendChild(el("span", "card empty", "–"));
    }
    center.appendChild(held);
    var info = el("div", "info");
    info.appendChild(el("div", null, "round " + (f.round + 1) + " of " + meta.rounds));
    var PHASE = {peek: "look at two cards", take: "take a card", use: "use the held card", end: "call or end the turn"};
    if (f.phase && f.phase !== "scored") info.appendChild(el("div", null, "seat " + f.current + " to " + (PHASE[f.phase] || f.phase)));
    if (f.phase === "scored") info.appendChild(el("div", null, "round scored: every card turned over"));
    if (f.caller !== null && f.caller !== undefined) info.appendChild(el("div", null, "seat " + f.caller + " called"));
    if (f.final_turns) info.appendChild(el("div", null, "final turns"));
    center.appendChild(info);
    table.appendChild(center);
    f.rows.forEach(function (row, s) {
      var r = el("div", "seat" + (s === f.current && f.phase !== "scored" ? " to-move" : "") + (s === v ? " viewer" : ""));
      r.dataset.seat = s;
      var label = el("div", "who");
      label.appendChild(el("b", null, "seat " + s));
      label.appendChild(el("span", null, " " + names[s]));
      label.appendChild(el("div", "total", "total " + f.totals[s] + (s === f.caller ? " · caller" : "")));
      r.appendChild(label);
      var cards = el("div", "cards");
      row.forEach(function (c, slot) {
        var known = v === null || ((c[2] >> v) & 1) === 1;
        var k = card(c[0], c[1] === 1, known, v === null && !c[1] ? "open" : "");
        k.dataset.slot = slot;
        var who = [];
        for (var q = 0; q < names.length; q++) if ((c[2] >> q) & 1) who.push("seat " + q);
        if (known) k.title = (k.title ? k.title + "; " : "") + (c[1] ? "face up" : "face down, seen by " + (who.length ? who.join(", ") : "nobody"));
        var wrap = el("span", "slot");
        wrap.appendChild(k);
        wrap.appendChild(el("span", "slotno", String(slot)));
        cards.appendChild(wrap);
      });
      r.appendChild(cards);
      table.appendChild(r);
    });
  }

  (window.mallowsTables = window.mallowsTables || {}).arschmallows = {
    seatViews: true,
    draw: function (f, table, ctx) { el = ctx.el; draw(f, table, ctx); }
  };
})();
