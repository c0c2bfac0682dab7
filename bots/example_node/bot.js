// example_node: a subprocess bot in JavaScript (Node.js) speaking protocol 2 (or 1), JSON lines
// on stdin/stdout, logs on stderr. Same strategy as example_python. Seeded: same seed, same play.
// Protocol 2: the platform offers "protocols": [1, 2] in its hello; this bot answers 2 with its
// history mode (parameter history=delta|full, default delta) unless given protocol=1, and then
// each act brings the events since its last message (delta) or all of them (full) beside the
// observation, which leaves out what the start info said once (game, seat, players, options,
// rules or squads). The bot keeps every event (numbered n = 0, 1, ... without a gap) and
// counts, per opponent, the drawn cards it kept (a draw, then a swap): what the events add.
const readline = require("readline");

function mulberry32(a) {  // a small seeded generator (Math.random cannot be seeded)
  return () => {
    a = (a + 0x6D2B79F5) | 0; let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t; return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
let rand = mulberry32(0);

function choose(obs) {
  const legal = obs.legal_actions, of = (type) => legal.filter((a) => a.type === type);
  if (obs.game === "take4") {
    const mine = new Set(obs.collections[obs.seat]);
    const score = (a) => {
      const card = obs.positions[a.position - 1];
      const squad = Object.values(obs.squads).find((s) => s.includes(card));
      return mine.has(card) ? rand() : 1 + squad.filter((c) => mine.has(c)).length + rand();
    };
    return legal.reduce((best, a) => (score(a) > score(best) ? a : best));
  }
  const row = obs.rows[obs.seat], held = obs.held, top = obs.discard[obs.discard.length - 1];
  if (obs.phase === "take") {
    if (of("take_discard").length && top !== undefined && top <= 3) return of("take_discard")[0];
    return (of("draw")[0] || legal[0]);
  }
  if (obs.phase === "use") {
    const down = row.map((s, i) => ({ ...s, i })).filter((s) => !s.face_up);
    const known = down.filter((s) => s.value !== null).sort((x, y) => y.value - x.value);
    const unknown = down.filter((s) => s.value === null);
    let target = known.length && known[0].value > held.value ? known[0].i : null;
    if (target === null && held.value <= 4 && unknown.length) target = unknown[0].i;
    const swap = of("swap").find((a) => a.slot === target);
    if (swap) return swap;
    const low = known.length ? known[known.length - 1].i : null;
    return of("refuse").find((a) => a.slot === low) || of("refuse")[0] || legal[0];
  }
  if (obs.phase === "end") return of("pass")[0] || legal[0];
  return legal[0];  // peek: the first pair
}

let protocol = 1, history = "delta", fixed = {}, story = [], kept = {}, drew = {};

function fold(events) {  // add the events not seen yet (full history repeats them)
  for (const e of events) {
    if (e.n < story.length) continue;
    if (e.n !== story.length) throw new Error(`event ${e.n} came, ${story.length} expected`);
    story.push(e);
    if (e.type === "draw") drew[e.seat] = true;
    else if (e.type === "swap" && drew[e.seat]) kept[e.seat] = (kept[e.seat] || 0) + 1;
    if (e.type !== "draw") drew[e.seat] = false;
  }
}

const send = (msg) => process.stdout.write(JSON.stringify(msg) + "\n");
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const msg = JSON.parse(line);
  if (msg.type === "hello") {
    const params = msg.params || {};
    protocol = (msg.protocols || [1]).includes(2) && params.protocol !== "1" ? 2 : 1;
    history = params.history || "delta";
    send({ type: "hello", protocol, name: "example_node", version: "1.0",
           games: ["arschmallows", "take4"], ...(protocol === 2 ? { history } : {}) });
  } else if (msg.type === "start") {
    rand = mulberry32(msg.info.seed % 4294967296); story = []; kept = {}; drew = {};
    const { game, seat, players, options, rules, squads } = msg.info;
    fixed = { game, seat, players, options, rules, squads };  // what v2 observations leave out
    send({ type: "ok" });
  } else if (msg.type === "act") {
    if (protocol === 2) fold(msg.events);
    const obs = protocol === 2 ? { ...fixed, ...msg.observation } : msg.observation;
    send({ type: "action", action: choose(obs) });
  } else if (msg.type === "end") {
    if (protocol === 2) fold(msg.events);
    console.error("result:", JSON.stringify(msg.info.result.ranks), "protocol", protocol,
                  "events", story.length, "kept drawn cards by seat", JSON.stringify(kept));
    send({ type: "ok" });
  } else {
    process.exit(0);  // "quit"
  }
});
