// Record oracle for kirin's tests: reads game records with tsshogi, the record library of the
// ShogiHome GUI (npm `tsshogi`, MIT, pinned in package.json beside this file), the way the GUI
// opens a file, and prints what it read.
//
// Usage: node tsshogi_oracle.mjs PATH...
//
// The format is taken from the extension, as ShogiHome does: .kif/.kifu (KIF), .ki2/.ki2u (KI2),
// .csa, .jkf. `.kif` and `.ki2` are decoded as Shift_JIS unless they are valid UTF-8, the others
// as UTF-8. For every path one JSON line:
//   {"path", "error": null | message, "start": SFEN, "moves": [USI...],
//    "scores": [null | int per move], "pvs": [null | {"moves": [USI...], "error": null | text}]}
// where `scores[i]` is the value of a `#評価値=` comment line on move i+1 (ShogiHome's own
// comment format), and `pvs[i]` the `#読み筋=` line of that move read as ShogiHome reads it:
// tsshogi's move-text reader from the position after the move, with no previous move (so a
// leading `同` is an error there, as in the GUI).

import { readFileSync } from "node:fs";
import {
  importCSA,
  importJKFString,
  importKI2,
  importKIF,
  parseMoves,
  Position,
} from "tsshogi";

function decode(path, bytes) {
  const sjisFirst = /\.(kif|ki2)$/i.test(path);
  if (sjisFirst) {
    try {
      return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
      return new TextDecoder("shift_jis").decode(bytes);
    }
  }
  return new TextDecoder("utf-8").decode(bytes);
}

function importer(path) {
  if (/\.kifu?$/i.test(path)) return importKIF;
  if (/\.ki2u?$/i.test(path)) return importKI2;
  if (/\.csa$/i.test(path)) return importCSA;
  if (/\.jkf$/i.test(path)) return importJKFString;
  throw new Error(`unknown extension: ${path}`);
}

function read(path) {
  const text = decode(path, readFileSync(path)).replace(/^\uFEFF/, "");
  const record = importer(path)(text);
  if (record instanceof Error) {
    return { path, error: record.message, start: null, moves: [], scores: [], pvs: [] };
  }
  const moves = [];
  const scores = [];
  const pvs = [];
  for (let node = record.first.next; node; node = node.next) {
    if (!node.move || typeof node.move.usi !== "string") break; // a special move ends the game
    moves.push(node.move.usi);
    let score = null;
    let pv = null;
    for (const line of node.comment.split("\n")) {
      const s = /^#評価値=(-?\d+)$/.exec(line);
      if (s) score = Number(s[1]);
      if (line.startsWith("#読み筋=")) {
        const position = Position.newBySFEN(node.sfen);
        const [read, error] = parseMoves(position, line.substring(5));
        pv = { moves: read.map((m) => m.usi), error: error ? error.message : null };
      }
    }
    scores.push(score);
    pvs.push(pv);
  }
  return { path, error: null, start: record.initialPosition.sfen, moves, scores, pvs };
}

for (const path of process.argv.slice(2)) {
  let out;
  try {
    out = read(path);
  } catch (e) {
    out = { path, error: `exception: ${e.message}`, start: null, moves: [], scores: [], pvs: [] };
  }
  process.stdout.write(JSON.stringify(out) + "\n");
}
