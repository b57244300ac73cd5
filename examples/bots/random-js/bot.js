// A bot for every ruleset: a uniformly random index into the offered actions.
// Plain node, no dependencies: one JSON message per line on stdin, one answer per line on stdout.
"use strict";

const readline = require("readline");

const rl = readline.createInterface({ input: process.stdin, terminal: false });

function send(message) {
  // One whole line per write, so the referee never sees a partial answer. Node sends
  // it at once when the pipe has room and otherwise queues it (and flushes it before
  // exiting, which is why the bot ends by closing its input, not by process.exit()).
  process.stdout.write(JSON.stringify(message) + "\n");
}

function stop() {
  // Stop reading: with no input left and the queued output flushed, node exits.
  rl.close();
  process.stdin.destroy();
}

rl.on("line", (line) => {
  if (!line.trim()) return;
  const msg = JSON.parse(line);
  if (msg.type === "hello") {
    send({ type: "ready", name: "random-js" });
  } else if (msg.type === "act") {
    send({ type: "action", index: Math.floor(Math.random() * msg.actions.length) });
  } else if (msg.type === "game_over") {
    stop();
  }
});
