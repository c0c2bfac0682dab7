// The author page of mallows serve: sign in with a token (kept in sessionStorage, sent only in
// the Authorization header, never in an address), list the account's bots and versions
// (GET /api/me), their forfeits with the reasons (hidden from everyone else's pages), their
// ladders' standings and questions, submit an archive (POST /api/bots) and follow its check
// (GET /api/submissions/<id>), withdraw a version. Another author's bots are never listed (an
// admin's page lists every account's).
(function () {
  "use strict";
  var token = sessionStorage.getItem("mallows-token") || "";
  var whoEl = document.getElementById("who");
  var mine = document.getElementById("mine");
  var stateEl = document.getElementById("upload-state");
  var outEl = document.getElementById("upload-output");

  function api(method, path, body) {
    return fetch(path, {method: method, body: body || undefined, cache: "no-store",
      headers: {"Authorization": "Bearer " + token}}).then(function (r) {
      return r.json().then(function (j) { if (!r.ok) throw new Error(j.error || r.status); return j; });
    });
  }

  function cell(row, text) {
    var td = document.createElement("td");
    td.textContent = text;
    row.appendChild(td);
    return td;
  }

  function show() {
    api("GET", "/api/me").then(function (me) {
      whoEl.textContent = "signed in as " + me.name + (me.admin ? " (admin)" : "");
      whoEl.dataset.account = me.name;
      mine.hidden = false;
      var body = document.querySelector("#versions tbody");
      body.textContent = "";
      me.bots.forEach(function (bot) {
        bot.versions.forEach(function (v) {
          var row = document.createElement("tr");
          row.dataset.bot = v.version;
          cell(row, v.version);
          cell(row, bot.owner || "");
          cell(row, v.created);
          var games = Object.keys((v.check && v.check.games) || {});
          cell(row, games.length ? "passed in " + games.join(", ") : "");
          cell(row, v.withdrawn ? "withdrawn " + v.withdrawn : "active");
          var td = cell(row, "");
          if (!v.withdrawn) {
            var b = document.createElement("button");
            b.textContent = "withdraw";
            b.className = "withdraw";
            b.addEventListener("click", function () {
              api("POST", "/api/bots/" + encodeURIComponent(v.version) + "/withdraw").then(show);
            });
            td.appendChild(b);
          }
          body.appendChild(row);
        });
      });
      showForfeits(me.bots);
      showLadders(me.bots);
    }).catch(function (e) { whoEl.textContent = "not signed in: " + e.message; mine.hidden = true; });
  }

  function interval(low, high, digits) {
    return low == null ? "" : low.toFixed(digits) + "–" + high.toFixed(digits);
  }

  function showForfeits(bots) {
    var body = document.querySelector("#forfeits tbody");
    body.textContent = "";
    bots.forEach(function (bot) {
      (bot.forfeits || []).forEach(function (f) {
        var row = document.createElement("tr");
        var link = document.createElement("a");
        link.href = f.page;
        link.textContent = f.match;
        cell(row, "").appendChild(link);
        cell(row, f.bot);
        cell(row, String(f.seat));
        cell(row, f.kind || "-");
        cell(row, f.reason).className = "reason";
        body.appendChild(row);
      });
    });
  }

  function showLadders(bots) {
    var body = document.querySelector("#ladders tbody");
    var questions = document.getElementById("questions");
    body.textContent = "";
    questions.textContent = "";
    bots.forEach(function (bot) {
      (bot.ladders || []).forEach(function (l) {
        l.standings.forEach(function (s) {
          var row = document.createElement("tr");
          var link = document.createElement("a");
          link.href = l.page;
          link.textContent = l.ladder;
          cell(row, "").appendChild(link);
          cell(row, s.bot);
          cell(row, s.rank == null ? "unrated" : s.rank + " (" + s.rank_low + "–" + s.rank_high + ")");
          cell(row, s.rating == null ? "" : s.rating.toFixed(1) + " (" + interval(s.low, s.high, 1) + ")");
          cell(row, String(s.matches || 0));
          cell(row, s.status || "");
          cell(row, s.note || "");
          body.appendChild(row);
        });
        l.questions.forEach(function (q) {
          var li = document.createElement("li");
          li.textContent = l.ladder + ": " + q.question + (q.answered ? " (answered)" : "") +
            ", P = " + q.probability.toFixed(3) + " · " + q.explanation;
          questions.appendChild(li);
        });
      });
    });
  }

  function follow(status) {
    api("GET", status).then(function (s) {
      stateEl.dataset.state = s.state;
      if (s.state === "queued") stateEl.textContent = "queued: place " + s.position;
      else if (s.state === "checking") stateEl.textContent = "being checked…";
      else {
        stateEl.textContent = s.state === "passed" ? "passed: stored as " + s.bot : "failed: " + s.reason;
        outEl.textContent = s.output || "";
        outEl.hidden = false;
        show();
        return;
      }
      setTimeout(function () { follow(status); }, 1000);
    }).catch(function (e) { stateEl.textContent = "error: " + e.message; });
  }

  document.getElementById("sign-in").addEventListener("submit", function (e) {
    e.preventDefault();
    token = document.getElementById("token").value.trim();
    sessionStorage.setItem("mallows-token", token);
    show();
  });
  document.getElementById("upload").addEventListener("submit", function (e) {
    e.preventDefault();
    var file = document.getElementById("archive").files[0];
    var name = document.getElementById("bot-name").value;
    outEl.hidden = true;
    stateEl.textContent = "sending…";
    api("POST", "/api/bots?name=" + encodeURIComponent(name), file).then(function (s) {
      follow(s.status);
    }).catch(function (e) { stateEl.textContent = "refused: " + e.message; });
  });
  if (token) show();
})();
