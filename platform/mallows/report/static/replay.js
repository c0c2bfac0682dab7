// The replay page: draws the frames computed in Python (one per record event) as a card
// table, with the game's own table script (window.mallowsTables[game], from the game's
// package). No game rule lives here: every number comes from the engine's replay of the record.
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
  // each game's table script (its package's table.js, loaded before this one) registers
  // window.mallowsTables[game] = {seatViews: whether frames say what each seat saw,
  // draw(frame, table, {meta, names, viewer, el})}
  function drawer() {
    return (window.mallowsTables || {})[meta.game] || null;
  }
  function viewer() {
    var d = drawer();
    return !viewSelect || !d || !d.seatViews || viewSelect.value === "all"
      ? null : parseInt(viewSelect.value, 10);
  }
  // "[[7|5]]": value 7, seen by seats 0 and 2 (bit mask); others read "?"
  function seen(text, v) {
    return text.replace(/\[\[([^|\]]*)\|(\d+)\]\]/g, function (_, value, mask) {
      return v === null || (parseInt(mask, 10) >> v) & 1 ? value : "?";
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
    var d = drawer();
    if (d) d.draw(f, table, {meta: meta, names: names, viewer: viewer(), el: el});
    else table.appendChild(el("p", "error", "no card table is drawn for " + meta.game));
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
    meta = Object.assign({}, index.meta || {}, {game: m.game, players: m.players, rounds: m.rounds});
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
      var seatViews = !!(drawer() && drawer().seatViews);
      byId("view-label").hidden = !seatViews;
      if (seatViews) {
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
