// The stats screen's chart geometry and words (client/web/js/charts.js).
import assert from "node:assert/strict";
import test from "node:test";

import {
  axisLabels, bucketLabels, bucketOf, calendarCells, calendarSummary, histogramBars, histogramSummary, historyBars, historySummary,
} from "../../../client/web/js/charts.js";

const EDGES = [60000, 120000, 180000, 300000, 600000, 1200000, 1800000, 3600000];
const HISTOGRAM = { date: "2026-12-01", edges_ms: EDGES, counts: [0, 3, 11, 25, 40, 18, 6, 2, 1], finishers: 106,
  place: 9, top_percent: 9, time_ms: 171400 };

test("the buckets are labelled from under the first edge to over the last", () => {
  const labels = bucketLabels(EDGES);
  assert.equal(labels.length, EDGES.length + 1);
  assert.deepEqual([labels[0], labels[1], labels[3], labels[7], labels[8]],
    ["under 1 min", "1–2 min", "3–5 min", "30 min–1 h", "1 h or more"]);
  assert.deepEqual(axisLabels(EDGES), ["<1", "1–2", "2–3", "3–5", "5–10", "10–20", "20–30", "30–60", "60+"]);
});

test("a time falls in the bucket under its edge and at or over the one before", () => {
  assert.equal(bucketOf(EDGES, 59999), 0);
  assert.equal(bucketOf(EDGES, 60000), 1);
  assert.equal(bucketOf(EDGES, 171400), 2);
  assert.equal(bucketOf(EDGES, 3600000), 8);
});

test("the bars scale to the fullest bucket, mark yours, and leave room for the labels", () => {
  const bars = histogramBars(HISTOGRAM, { width: 360, height: 150, labelRoom: 30, gap: 4 });
  assert.equal(bars.length, 9);
  const fullest = bars[4];
  assert.equal(fullest.height, 120);
  assert.equal(fullest.y, 0);
  assert.equal(bars[0].height, 0, "an empty bucket has no bar");
  assert.equal(bars[8].height, 3);
  assert.equal(bars[8].y + bars[8].height, 120, "every bar stands on the same baseline");
  assert.deepEqual(bars.map((bar) => bar.yours), [false, false, true, false, false, false, false, false, false]);
  assert.equal(bars[1].x, 40 + 2);
  assert.equal(bars[1].width, 36);
  assert.ok(bars.every((bar) => bar.x + bar.width <= 360));
});

test("a histogram without your win marks nothing, and an empty one draws no bar", () => {
  const bars = histogramBars({ ...HISTOGRAM, place: null, top_percent: null, time_ms: null }, { width: 90, height: 50 });
  assert.ok(bars.every((bar) => !bar.yours));
  const empty = histogramBars({ ...HISTOGRAM, counts: Array(9).fill(0), finishers: 0 }, { width: 90, height: 50 });
  assert.ok(empty.every((bar) => bar.height === 0));
});

test("the histogram's sentence says how many won, your place and percentile", () => {
  assert.equal(histogramSummary(HISTOGRAM),
    "Finishing times of the 2026-12-01 daily: 106 players won it. You are 9th, in the top 9%.");
  assert.equal(histogramSummary({ ...HISTOGRAM, finishers: 1, place: null }), "Finishing times of the 2026-12-01 daily: 1 player won it.");
  assert.equal(histogramSummary({ ...HISTOGRAM, finishers: 0 }), "Nobody has won the daily of 2026-12-01 yet.");
});

test("the calendar puts each day in its weekday's row and its week's column", () => {
  // 2026-09-09 is a Wednesday: the first column starts two rows down.
  const marks = Array(84).fill("missed");
  marks[0] = "won";
  marks[83] = "open";
  const { cells, weeks } = calendarCells("2026-09-09", marks, { cell: 10, gap: 2 });
  assert.equal(weeks, 13);
  assert.deepEqual(cells[0], { x: 0, y: 24, date: "2026-09-09", mark: "won" });
  assert.deepEqual(cells[5], { x: 12, y: 0, date: "2026-09-14", mark: "missed" }, "the Monday after starts the next column");
  assert.equal(cells[83].date, "2026-12-01");
  assert.equal(cells[83].mark, "open");
  assert.equal(new Set(cells.map((cell) => `${cell.x},${cell.y}`)).size, 84, "no two days share a square");
});

test("the calendar's sentence counts the days of each kind", () => {
  const marks = [...Array(80).fill("missed"), "won", "won", "played", "open"];
  assert.equal(calendarSummary(marks), "The last 12 weeks: 2 days won, 1 day played without a win, 80 days missed.");
});

test("the history shows the newest days oldest left, a won day's bar as tall as its time", () => {
  const history = [
    { date: "2026-12-01", won: true, time_ms: 100000, actions: 90 },
    { date: "2026-11-30", won: false, time_ms: null, actions: 40 },
    { date: "2026-11-29", won: true, time_ms: 200000, actions: 120 },
    { date: "2026-11-28", won: true, time_ms: 50000, actions: 80 },
  ];
  const bars = historyBars(history, { width: 30, height: 100, days: 3, gap: 2 });
  assert.deepEqual(bars.map((bar) => bar.date), ["2026-11-29", "2026-11-30", "2026-12-01"]);
  assert.deepEqual(bars.map((bar) => bar.height), [100, 2, 50]);
  assert.deepEqual(bars.map((bar) => bar.y + bar.height), [100, 100, 100]);
  assert.deepEqual(bars.map((bar) => bar.x), [1, 11, 21]);
  assert.equal(historySummary(history, 3), "Your last 3 days played: 2 won; each bar is a won day's time, a stub a day played without a win.");
  assert.equal(historySummary([], 30), "No daily played yet.");
});
