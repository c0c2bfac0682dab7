// The replay page: draws the frames computed in Python (one per record event) as a card
// table. No game rule lives here: every number comes from the engine's replay of the record.
// Frames arrive as deltas (a key only when it changed; in "rows", null for an unchanged seat).
// Two kinds of page: a match's own page (its frames embedded: #frames, #meta), or a
// tournament's one replay page (#replay-index) that draws the match named after "#" in its
// address from the tournament's data files (report/replay_data.py): scripts that hand over
// gzip-compressed, base64-encoded lines, one match a line; scripts, not fetch, so the page
// works from the file system too.
(function () {
  "use strict";
  var meta = {}, names = [], frames = [], current = 0;
  var slider = document.getElementById("slider");
  var viewSelect = document.getElementById("view");
  var table = document.getElementById("table");
  var log = document.getElementById("log");

  function expand(deltas) {
    var out = [], state = {};
    deltas.forEach(function (d) {
      var next = Object.assign({}, state);
      Object.keys(d).forEach(function (k) {
        if (k === "rows" && state.rows) {
          next.rows = d.rows.map(function (r, i) { return r === null ? state.rows[i] : r; });
        } else {
          next[k] = d[k];
        }
      });
      out.push(next);
      state = next;
    });
    return out;
  }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  function viewer() {
    return !viewSelect || meta.game !== "arschmallows" || viewSelect.value === "all"
      ? null : parseInt(viewSelect.value, 10);
  }
  // "[[7|5]]": value 7, seen by seats 0 and 2 (bit mask); others read "?"
  function seen(text, v) {
    return text.replace(/\[\[([^|\]]*)\|(\d+)\]\]/g, function (_, value, mask) {
      return v === null || (parseInt(mask, 10) >> v) & 1 ? value : "?";
    });
  }
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

  function drawArsch(f) {
    var v = viewer();
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

  function drawTake4(f) {
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

  function textFor(f) {
    var v = viewer();
    return seen(f.text, v);
  }
  function fillLog() {
    log.textContent = "";
    frames.forEach(function (f, i) {
      var li = el("li", null, textFor(f));
      li.dataset.step = i;
      li.addEventListener("click", function () { show(i); });
      log.appendChild(li);
    });
  }
  function show(i) {
    current = Math.max(0, Math.min(frames.length - 1, i));
    var f = frames[current];
    slider.value = current;
    document.getElementById("step").textContent = "step " + current + " / " + (frames.length - 1);
    document.getElementById("text").textContent = textFor(f);
    table.textContent = "";
    table.dataset.step = current;
    if (meta.game === "arschmallows") drawArsch(f); else drawTake4(f);
    var old = log.querySelector("li.current");
    if (old) old.classList.remove("current");
    var li = log.children[current];
    if (li) li.classList.add("current");
  }
  document.addEventListener("keydown", function (e) {
    if (e.target && (e.target.tagName === "SELECT" || e.target.tagName === "INPUT") && e.key !== "ArrowLeft" && e.key !== "ArrowRight") return;
    if (e.key === "ArrowRight") { show(current + 1); e.preventDefault(); }
    else if (e.key === "ArrowLeft") { show(current - 1); e.preventDefault(); }
    else if (e.key === "Home") { show(0); e.preventDefault(); }
    else if (e.key === "End") { show(frames.length - 1); e.preventDefault(); }
  });
  slider.addEventListener("input", function () { show(parseInt(slider.value, 10)); });
  document.getElementById("first").addEventListener("click", function () { show(0); });
  document.getElementById("prev").addEventListener("click", function () { show(current - 1); });
  document.getElementById("next").addEventListener("click", function () { show(current + 1); });
  document.getElementById("last").addEventListener("click", function () { show(frames.length - 1); });
  if (viewSelect) viewSelect.addEventListener("change", function () { fillLog(); show(current); viewSelect.blur(); });
  window.mallowsReplay = {frames: frames, show: show, current: function () { return current; }};

  function start(deltas) {
    frames = expand(deltas);
    names = meta.players;
    window.mallowsReplay.frames = frames;
    slider.max = frames.length - 1;
    fillLog();
    show(0);
  }

  var embedded = document.getElementById("frames");
  if (embedded) {  // a match's own page
    meta = JSON.parse(document.getElementById("meta").textContent);
    start(JSON.parse(embedded.textContent));
    return;
  }

  // -- a tournament's replay page: the match from the address, its data from a data file --
  var index = JSON.parse(document.getElementById("replay-index").textContent);
  var chunks = {}, waiting = {}, wanted = null;
  function byId(id) { return document.getElementById(id); }
  window.mallowsReplayChunk = function (slug, k, packed) {
    if (slug === index.slug && waiting[k]) { waiting[k].resolve(packed); delete waiting[k]; }
  };
  function decode(packed) {
    if (typeof DecompressionStream === "undefined") {
      throw new Error("this browser cannot unpack the replay data (it has no " +
                      "DecompressionStream): open the report in a current browser");
    }
    var text = atob(packed), bytes = new Uint8Array(text.length);
    for (var i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text().then(function (lines) {
      var byIdx = {};  // each line ends with its match's ,"idx":N}: parsed only when shown
      lines.split("\n").forEach(function (line) {
        var m = /"idx":(\d+)\}$/.exec(line);
        if (m) byIdx[m[1]] = line;
      });
      return byIdx;
    });
  }
  function loadChunk(k) {
    if (!chunks[k]) {
      var src = "../d/" + encodeURIComponent(index.slug) + "/" + k + ".js";
      chunks[k] = new Promise(function (resolve, reject) {
        waiting[k] = {resolve: resolve};
        var s = document.createElement("script");
        s.src = src;
        s.onerror = function () { delete waiting[k]; reject(new Error("cannot load the replay data " + src + ": is the report complete?")); };
        s.onload = function () {
          if (waiting[k]) { delete waiting[k]; reject(new Error("the replay data " + src + " is damaged: write the report again")); }
        };
        document.head.appendChild(s);
      }).then(decode);
      chunks[k].catch(function () { delete chunks[k]; });  // a later visit tries again
    }
    return chunks[k];
  }
  function problem(text) {
    byId("loading").hidden = true;
    byId("replay").hidden = true;
    byId("problem").hidden = false;
    byId("problem").textContent = text;
  }
  function render(m) {
    meta = {game: m.game, players: m.players, rounds: m.rounds,
            squads: index.squads, squad_of: index.squad_of};
    document.title = "match " + m.id + " · mallows";
    byId("match-id").textContent = m.id;
    byId("crumb").textContent = "match " + m.idx;
    byId("match-about").textContent = m.game + (m.rules ? " (" + m.rules + ")" : "") + " · seed " + m.seed;
    var head = document.querySelector("table.result thead tr");
    var body = document.querySelector("table.result tbody");
    head.textContent = "";
    body.textContent = "";
    m.headers.forEach(function (h) { head.appendChild(el("th", null, String(h))); });
    m.rows.forEach(function (r) {
      var tr = el("tr");
      r.forEach(function (c) { tr.appendChild(el("td", null, String(c))); });
      body.appendChild(tr);
    });
    var notes = byId("notes");
    notes.textContent = "";
    m.notes.forEach(function (n) { notes.appendChild(el("li", null, n)); });
    notes.hidden = !m.notes.length;
    byId("no-table").hidden = !m.error;
    byId("drawn").hidden = !!m.error;
    byId("loading").hidden = true;
    byId("problem").hidden = true;
    byId("replay").hidden = false;
    table.className = m.game;
    if (m.error) {
      byId("error").textContent = "No card table for this match: " + m.error;
      var lines = byId("lines");
      lines.textContent = "";
      m.lines.forEach(function (l) { lines.appendChild(el("li", null, l)); });
    } else {
      viewSelect.textContent = "";
      byId("view-label").hidden = m.game !== "arschmallows";
      if (m.game === "arschmallows") {
        var all = el("option", null, "all-seeing");
        all.value = "all";
        viewSelect.appendChild(all);
        m.players.forEach(function (p, s) {
          var o = el("option", null, "seat " + s + " (" + p + ")");
          o.value = String(s);
          viewSelect.appendChild(o);
        });
      }
      start(m.frames);
    }
    var first = index.chunks[0][0], last = index.chunks[index.chunks.length - 1][1];
    byId("prev-match").hidden = m.idx <= first;
    byId("prev-match").href = "#" + (m.idx - 1);
    byId("next-match").hidden = m.idx >= last;
    byId("next-match").href = "#" + (m.idx + 1);
    byId("replay").dataset.match = m.id;
  }
  function route() {
    if (!index.chunks.length) { problem("this tournament has no matches yet"); return; }
    var wantedText = location.hash.slice(1);
    if (!/^\d+$/.test(wantedText)) { location.replace("#" + index.chunks[0][0]); return; }
    var idx = parseInt(wantedText, 10);
    wanted = idx;
    var k = -1;
    index.chunks.forEach(function (c, i) { if (c[0] <= idx && idx <= c[1]) k = i; });
    var name = index.tournament + "/" + idx;
    if (k < 0) { problem("no match " + name + " in this report"); return; }
    byId("loading").hidden = false;
    loadChunk(k).then(function (byIdx) {
      if (wanted !== idx) return;  // another match was asked for meanwhile
      if (!byIdx[idx]) { problem("no match " + name + " in this report"); return; }
      render(JSON.parse(byIdx[idx]));
    }).catch(function (e) { if (wanted === idx) problem(String(e.message || e)); });
  }
  window.addEventListener("hashchange", route);
  route();
})();
