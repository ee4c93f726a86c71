#!/usr/bin/env node
// An Atout bot in JavaScript (Node 18 or later, no package needed): it speaks the bot protocol,
// JSON lines on stdin and stdout, the same for the local arena and for a bot account on a service.
//
//   atout bot run --cmd "node examples/bots/node/bot.js" --url http://localhost:8000 --join GAME
//   atout arena --game rough --b-cmd "node examples/bots/node/bot.js" --target 200
//
// One process plays one seat of one game. Every line it reads is one JSON object with a "type":
//
//   hello       {"type": "hello", "protocol": 1, "host": "arena" | "runner"}
//               -> answer {"type": "hello", "protocol": 1, "name": "..."} (the only answer but turns)
//   game_start  {"type": "game_start", "game_id", "kind", "seat", "players", "options", "budget_s"}
//   your_turn   {"type": "your_turn", "game_id", "seat", "version", "hand", "budget_s",
//                "view": {...}, "legal_actions": [...]}
//               -> answer one action, e.g. {"type": "play", "card": "4S"}, within budget_s seconds
//   hand_end    {"type": "hand_end", "game_id", "seat", "hand", "result", "scores"}
//   game_end    {"type": "game_end", "game_id", "seat", "winners", "scores", "reason"}; stdin closes
//
// game_start, hand_end and game_end are never answered: a line written unasked is a failure (the
// arena forfeits the match, the runner logs it and does what its on_failure says). Protocol 0, the
// first one (no hello, each line {"view", "legal_actions"} without "type"), is answered too: the
// same decide() serves both.
//
// The rule: pass when passing is legal, discard the lowest cards, play the lowest legal card,
// else the first legal action. Debug output goes to stderr (stdout carries answers only); set
// BOT_TRACE to a file's path to append every message received to it, one a line.

"use strict";

const fs = require("fs");
const readline = require("readline");

const PROTOCOL = 1;
const NAME = "lowest-legal (node)";
const ORDER = "456789TJQKABR"; // low to high by a card code's first letter; jokers (BJ, RJ) highest
const TRACE = process.env.BOT_TRACE;

function rank(card) {
  return ORDER.indexOf(card[0]);
}

function lowest(cards) {
  return [...cards].sort((a, b) => rank(a) - rank(b));
}

// One decision: the seat's view and its legal actions in, one legal action out.
function decide(view, legal) {
  const pass = legal.find((action) => action.type === "pass");
  if (pass) {
    return pass;
  }
  const discard = legal.find((action) => action.type === "discard");
  if (discard) {
    // a template: answer with "count" cards of "choices"
    return { type: "discard", cards: lowest(discard.choices).slice(0, discard.count) };
  }
  const plays = legal.filter((action) => action.type === "play");
  if (plays.length > 0) {
    return plays.reduce((low, action) => (rank(action.card) < rank(low.card) ? action : low));
  }
  return legal[0];
}

function answer(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

let game = null; // the game_start message: kind, seat, options

function handle(message) {
  switch (message.type) {
    case "hello":
      answer({ type: "hello", protocol: PROTOCOL, name: NAME });
      break;
    case "game_start":
      game = message;
      break;
    case "your_turn":
      answer(decide(message.view, message.legal_actions));
      break;
    case "hand_end":
      console.error(`hand ${message.hand} over, scores ${JSON.stringify(message.scores)}`);
      break;
    case "game_end":
      console.error(`game over (${message.reason}), winners ${JSON.stringify(message.winners)}`);
      break;
    case undefined: // protocol 0: the turn alone
      answer(decide(message.view, message.legal_actions));
      break;
    default: // a message of a later protocol: not answered
      console.error(`unknown message ${message.type}`);
  }
}

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", (line) => {
  if (!line.trim()) {
    return;
  }
  if (TRACE) {
    fs.appendFileSync(TRACE, line + "\n");
  }
  handle(JSON.parse(line));
});
lines.on("close", () => process.exit(0)); // stdin closed: the game is over
