// The pure half of a replay: the positions of a finished game, the move
// list, and where its analysis falls in them.
//
// The server's `replay` gives the first snapshot and each action's diff
// (the messages a watcher got), so the positions come from applying the
// diffs with the mirror's own `applyOps`: no rules engine here.
//
// The analysis counts moves of the line finally played (undone moves
// left out, a restart starts the line again; `played_line` on the
// server), while a replay steps through every action.  `analysisMarks`
// maps one onto the other: the last winnable position is the last step
// whose played line is the first `last_winnable` moves of the final line
// (a resignation is no new position, so it never is that step).

import { applyOps } from "./mirror.js";
import { moveWords } from "./movewords.js";

/**
 * A finished game's whole replay, every page of it, as positions.
 * @param {(message: object) => Promise<object>} request the app's request function
 * @param {string} gameId the finished game
 * @returns {Promise<{start: object, result: string, steps: object[]}>}
 */
export async function fetchReplay(request, gameId) {
  const page = (fields) => request({ type: "replay", game_id: gameId, ...fields });
  const first = await page({});
  const diffs = [...first.diffs];
  let reply = first;
  while (first.start.seq + diffs.length < reply.last_seq) {
    reply = await page({ from_seq: first.start.seq + diffs.length });
    if (!reply.diffs.length) break;
    diffs.push(...reply.diffs);
  }
  return { start: first.start, result: first.result, steps: replaySteps(first.start, diffs) };
}

// Every position of the replay, step 0 (the deal) first:
// {seq, view, status, counters, score, action} (action null at step 0).
export function replaySteps(start, diffs) {
  const steps = [{ seq: start.seq, view: start.view, status: start.status, counters: start.counters,
    score: start.score, action: null }];
  for (const diff of diffs) {
    const last = steps[steps.length - 1];
    if (diff.seq !== last.seq + 1) throw new Error(`replay skips from ${last.seq} to ${diff.seq}`);
    steps.push({ seq: diff.seq, view: applyOps(last.view, diff.ops), status: diff.status, counters: diff.counters,
      score: diff.score, action: diff.action });
  }
  return steps;
}

// The line as played after each step (the server's `played_line`, step by step).
export function playedLines(actions) {
  const lines = [[]];
  let line = [];
  let undone = [];
  for (const action of actions) {
    if (action.kind === "move") {
      line = [...line, action.text];
      undone = [];
    } else if (action.kind === "undo" && line.length) {
      undone = [...undone, line[line.length - 1]];
      line = line.slice(0, -1);
    } else if (action.kind === "redo" && undone.length) {
      line = [...line, undone[undone.length - 1]];
      undone = undone.slice(0, -1);
    } else if (action.kind === "restart") {
      line = [];
      undone = [];
    }
    lines.push(line);
  }
  return lines;
}

/**
 * Where an `analysis` reply falls in the steps.  A step is null when the
 * analysis names none (a won game, a deal never shown winnable).  The
 * losing move is put in words from the position it was played in (the
 * step before `losingStep`, else the last winnable one).
 * @param {object[]} steps the replay's positions (`replaySteps`)
 * @param {object} analysis the server's `analysis`
 * @returns {{winnableStep: ?number, losingStep: ?number, losingWords: ?string, sentence: string}}
 */
export function analysisMarks(steps, analysis) {
  const actions = steps.slice(1).map((step) => step.action);
  const lines = playedLines(actions);
  const winnable = analysis.last_winnable;
  let winnableStep = null;
  if (winnable !== null && winnable !== undefined) {
    const prefix = analysis.line.slice(0, winnable);
    lines.forEach((line, step) => {
      if (step > 0 && actions[step - 1].kind === "resign") return;
      if (sameLine(line, prefix)) winnableStep = step;
    });
  }
  let losingStep = null;
  if (winnableStep !== null && analysis.verdict === "lost_at") {
    const next = analysis.line.slice(0, winnable + 1);
    losingStep = lines.findIndex((line, step) => step > winnableStep && sameLine(line, next));
    if (losingStep < 0) losingStep = null;
  }
  const playedIn = steps[losingStep === null ? winnableStep ?? -1 : losingStep - 1];
  const losingWords = analysis.losing_move && playedIn ? moveWords(playedIn.view, analysis.losing_move)
    : analysis.losing_move ?? null;
  return { winnableStep, losingStep, losingWords, sentence: markSentence(analysis, winnableStep, losingWords) };
}

function sameLine(a, b) {
  return a.length === b.length && a.every((move, i) => move === b[i]);
}

function markSentence(analysis, winnableStep, losingWords) {
  switch (analysis.verdict) {
    case "won":
      return "This game was won.";
    case "still_winnable":
      return `Still winnable at the end (move ${analysis.last_winnable}).`;
    case "lost_at":
      return `Still winnable until move ${analysis.last_winnable}`
        + `${winnableStep === null ? "" : ` (step ${winnableStep})`}`
        + `${analysis.certain ? "" : ", at least"}; move ${analysis.last_winnable + 1}, ${losingWords}, lost it.`;
    default:
      return analysis.certain ? "This deal could not be won from the start."
        : "The solver found no win for this deal within its budget.";
  }
}

const ACTION_WORDS = { undo: "Undo", redo: "Redo", hint: "Hint", restart: "Restart", resign: "Resigned" };

/**
 * A step's line in the move list: the move in words, or what was done.
 * @param {?{kind: string, text: string}} action the step's action (null: the deal)
 * @param {?object} view the position the move was played in (without one, the move's notation)
 * @returns {string}
 */
export function actionLabel(action, view = null) {
  if (action === null) return "Deal";
  if (action.kind === "move") return view ? moveWords(view, action.text) : action.text;
  if (action.kind === "resign" && action.text === "abandoned") return "Abandoned";
  return ACTION_WORDS[action.kind] ?? action.kind;
}

// The step a scrubber button leads to from `step` of `count`.
export function scrub(button, step, count) {
  const last = count - 1;
  const to = { first: 0, previous: step - 1, next: step + 1, last }[button];
  if (to === undefined) throw new Error(`no scrubber button ${button}`);
  return Math.max(0, Math.min(last, to));
}
