// example_node: a subprocess bot in JavaScript (Node.js) speaking protocol v1, JSON lines on
// stdin/stdout, logs on stderr. Same strategy as example_python. Seeded: same seed, same play.
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

const send = (msg) => process.stdout.write(JSON.stringify(msg) + "\n");
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const msg = JSON.parse(line);
  if (msg.type === "hello") {
    send({ type: "hello", protocol: 1, name: "example_node", version: "1.0",
           games: ["arschmallows", "take4"] });
  } else if (msg.type === "start") {
    rand = mulberry32(msg.info.seed % 4294967296); send({ type: "ok" });
  } else if (msg.type === "act") {
    send({ type: "action", action: choose(msg.observation) });
  } else if (msg.type === "end") {
    console.error("result:", JSON.stringify(msg.info.result.ranks)); send({ type: "ok" });
  } else {
    process.exit(0);  // "quit"
  }
});
