// The play page: asks the server for the person's seat's view (its table as one replay frame
// and the legal actions in words), draws the table with replay.js, and sends the chosen
// action. No game rule lives here: the server checks every answer.
(function () {
  "use strict";
  var session = JSON.parse(document.getElementById("session").textContent);
  var statusEl = document.getElementById("status");
  var actionsEl = document.getElementById("actions");
  var resultEl = document.getElementById("result");
  var storyEl = document.getElementById("story");
  var decision = -1;
  var replayLoaded = false;

  function draw(frame) {
    var framesEl = document.getElementById("frames");
    if (!replayLoaded) {
      framesEl.textContent = JSON.stringify([frame]);
      var s = document.createElement("script");
      s.src = "/static/replay.js";
      document.body.appendChild(s);
      replayLoaded = true;
      return;
    }
    if (window.mallowsReplay) {
      var frames = window.mallowsReplay.frames;
      frames.length = 0;
      frames.push(frame);
      window.mallowsReplay.show(0);
    } else {
      framesEl.textContent = JSON.stringify([frame]);
    }
  }

  function tell(story) {
    // the game's narration of the match so far: every line, the newest last
    if (!story) return;
    for (var i = storyEl.children.length; i < story.length; i++) {
      var li = document.createElement("li");
      li.textContent = story[i];
      if (/^\s/.test(story[i])) li.className = "detail";
      storyEl.appendChild(li);
    }
    if (storyEl.lastElementChild && storyEl.lastElementChild.scrollIntoView) {
      storyEl.lastElementChild.scrollIntoView({block: "nearest"});
    }
    var step = document.getElementById("step");
    if (step) step.textContent = "";
    var controls = document.getElementById("controls");  // one frame: nothing to step through
    if (controls) controls.style.display = "none";
  }

  function button(text, onClick, id) {
    var b = document.createElement("button");
    b.textContent = text;
    b.className = "action";
    if (id) b.id = id;
    b.addEventListener("click", onClick);
    return b;
  }

  function send(body) {
    actionsEl.querySelectorAll("button").forEach(function (b) { b.disabled = true; });
    fetch("/play/" + session.id + "/act", {method: "POST", headers: {"Content-Type": "application/json", "X-CSRF-Token": session.csrf},
      body: JSON.stringify(body)}).then(function (r) { return r.json(); }).then(function (answer) {
      if (answer.error) {
        statusEl.textContent = "refused: " + answer.error;
        actionsEl.querySelectorAll("button").forEach(function (b) { b.disabled = false; });
        return;
      }
      statusEl.textContent = "sent: waiting for the table…";
    });
  }

  function getRid(action) {
    // choose the slots one by one, in reveal order, then reveal
    actionsEl.textContent = "";
    var chosen = [];
    var line = document.createElement("p");
    line.id = "chosen";
    line.textContent = "get rid of: choose two or more slots in reveal order";
    actionsEl.appendChild(line);
    action.slots.forEach(function (slot) {
      var b = button("slot " + slot, function () {
        chosen.push(slot);
        b.disabled = true;
        line.textContent = "reveal order: " + chosen.join(", ");
      }, "slot-" + slot);
      actionsEl.appendChild(b);
    });
    actionsEl.appendChild(button("reveal", function () { send({index: action.index, slots: chosen}); }, "reveal"));
    actionsEl.appendChild(button("back", function () { poll(); }, "back"));
  }

  function show(view) {
    draw(view.frame);
    actionsEl.textContent = "";
    var list = document.createElement("ol");
    list.id = "legal";
    view.actions.forEach(function (a) {
      var li = document.createElement("li");
      li.appendChild(button(a.words, function () {
        if (a.slots) getRid(a); else send({index: a.index});
      }));
      list.appendChild(li);
    });
    actionsEl.appendChild(list);
  }

  var current = null;

  function state(st) {
    if (st.error) { statusEl.textContent = "error: " + st.error; return; }
    tell(st.story);
    if (st.over) {
      if (st.view) draw(st.view.frame);
      actionsEl.textContent = "";
      statusEl.textContent = "match over";
      statusEl.dataset.over = "1";
      resultEl.textContent = st.result;
      if (st.replay) {
        var a = document.createElement("a");
        a.href = st.replay;
        a.id = "replay-link";
        a.textContent = " replay it";
        resultEl.appendChild(a);
      }
      return;
    }
    if (!st.view) return;  // the bots are playing: the next event brings the person's turn
    current = st;
    decision = st.decision;
    statusEl.textContent = "your turn: decision " + st.decision;
    statusEl.dataset.decision = st.decision;
    show(st.view);
  }

  function poll() { if (current) show(current.view); }

  // the server pushes the seat's view each time it changes (server-sent events); closing the
  // page closes the stream, and the server ends the match at once
  var source = new EventSource("/play/" + session.id + "/events");
  source.addEventListener("state", function (e) {
    var st = JSON.parse(e.data);
    if (st.over || st.error) source.close();
    state(st);
  });
})();
