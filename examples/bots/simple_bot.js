#!/usr/bin/env node
// A drawlog bot in JavaScript (Node 18+): plays its heaviest legal tile, else draws or passes.
// Run it in an arena:  drawlog arena --bot js="node examples/bots/simple_bot.js" --builtin greedy -o arena/
// The protocol: docs/bot-protocol.md.
"use strict";
const readline = require("readline");

function choose(turn) {
  const plays = turn.legal.filter((action) => action.type === "play");
  if (plays.length === 0) return turn.legal[0]; // the legal draw or pass
  const pips = (action) => action.tile[0] + action.tile[1];
  return plays.reduce((best, action) => (pips(action) > pips(best) ? action : best));
}

const input = readline.createInterface({ input: process.stdin, terminal: false });
input.on("line", (line) => {
  const message = JSON.parse(line);
  let answer = null;
  if (message.type === "hello") {
    console.error(`js bot: ${message.variant}, ${message.players} players`);
    answer = { type: "ready", name: "simple-js" };
  } else if (message.type === "turn") {
    answer = choose(message);
  } else if (message.type === "bye") {
    input.close();
    return;
  }
  if (answer !== null) process.stdout.write(JSON.stringify(answer) + "\n");
});
