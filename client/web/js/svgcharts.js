// The stats screen's charts as SVG (geometry and words from charts.js).
//
// Each chart is a figure: the SVG is one image to assistive technology
// (role="img", its accessible name the chart's summary sentence, its
// <title> the same), and a visually hidden table beside it holds every
// number the picture shows, so a screen reader can read the chart
// value by value.  The SVGs scale with their box (viewBox, width 100%).

import { h, formatTime } from "./dom.js";
import {
  CALENDAR_WEEKDAYS, CALENDAR_WORDS, calendarCells, calendarSummary, histogramBars, histogramSummary,
  historyBars, historySummary,
} from "./charts.js";

const SVG = "http://www.w3.org/2000/svg";
const HISTORY_DAYS = 30;

function s(tag, attributes = {}, ...children) {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value !== null && value !== undefined) element.setAttribute(name, String(value));
  }
  element.append(...children.filter((child) => child !== null && child !== undefined));
  return element;
}

function image(id, width, height, summary, ...shapes) {
  return s("svg", { id, viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": summary,
    preserveAspectRatio: "xMidYMid meet", class: "chart" }, s("title", {}, summary), ...shapes);
}

function hiddenTable(caption, head, rows) {
  return h("table", { class: "visually-hidden" }, h("caption", {}, caption),
    h("thead", {}, h("tr", {}, head.map((label) => h("th", { scope: "col" }, label)))),
    h("tbody", {}, rows.map((cells) => h("tr", {}, cells.map((cell) => h("td", {}, String(cell)))))));
}

/**
 * The day's finishing times: a bar per bucket, yours in the accent colour.
 * @param {string} id the figure's element id
 * @param {object} histogram the server's histogram (stats_reply)
 * @returns {HTMLElement} a figure
 */
export function histogramFigure(id, histogram) {
  const [width, height, labelRoom] = [360, 150, 30];
  const bars = histogramBars(histogram, { width, height, labelRoom });
  const summary = histogramSummary(histogram);
  const shapes = bars.flatMap((bar) => [
    s("rect", { x: bar.x, y: bar.y, width: bar.width, height: bar.height, class: bar.yours ? "bar yours" : "bar" }),
    bar.count ? s("text", { x: bar.x + bar.width / 2, y: bar.y - 3, class: "count" }, String(bar.count)) : null,
    s("text", { x: bar.x + bar.width / 2, y: height - labelRoom + 12, class: "axis" }, bar.axis),
  ]);
  shapes.push(s("text", { x: width / 2, y: height - 2, class: "axis" }, "minutes to win"));
  return h("figure", { class: "chart-figure", id },
    image(`${id}-svg`, width, height, summary, ...shapes),
    h("figcaption", {}, summary),
    hiddenTable(`Finishing times of ${histogram.date}`, ["Time", "Players", "Yours"],
      bars.map((bar) => [bar.label, bar.count, bar.yours ? "your time" : ""])));
}

/**
 * The last 12 weeks, a square per day.
 * @param {string} id the figure's element id
 * @param {object} stats one variant of the stats reply (calendar_start, calendar)
 * @returns {HTMLElement} a figure
 */
export function calendarFigure(id, stats) {
  const [cell, gap, left] = [14, 3, 30];
  const { cells, weeks } = calendarCells(stats.calendar_start, stats.calendar, { cell, gap });
  const summary = calendarSummary(stats.calendar);
  const width = left + weeks * (cell + gap);
  const height = 7 * (cell + gap);
  const shapes = [
    ...CALENDAR_WEEKDAYS.map((day, row) => (row % 2 === 0
      ? s("text", { x: 0, y: row * (cell + gap) + cell - 3, class: "axis weekday" }, day) : null)),
    ...cells.map((day) => s("rect", { x: left + day.x, y: day.y, width: cell, height: cell, rx: 2,
      class: `day ${day.mark}`, "data-date": day.date }, s("title", {}, `${day.date}: ${CALENDAR_WORDS[day.mark]}`))),
  ];
  return h("figure", { class: "chart-figure", id },
    image(`${id}-svg`, width, height, summary, ...shapes),
    h("figcaption", {}, summary, " ", h("span", { class: "legend" },
      ["won", "played", "missed"].map((mark) => h("span", { class: `key ${mark}` }, CALENDAR_WORDS[mark])))),
    hiddenTable("The last 12 weeks", ["Day", "Result"], cells.map((day) => [day.date, CALENDAR_WORDS[day.mark]])));
}

/**
 * The last days played: each won day's time as a bar, oldest left.
 * @param {string} id the figure's element id
 * @param {object[]} history the variant's history, newest first
 * @returns {HTMLElement} a figure
 */
export function historyFigure(id, history) {
  const [width, height] = [360, 90];
  const bars = historyBars(history, { width, height, days: HISTORY_DAYS });
  const summary = historySummary(history, HISTORY_DAYS);
  const shapes = bars.map((bar) => s("rect", { x: bar.x, y: bar.y, width: bar.width, height: bar.height,
    class: bar.won ? "bar" : "bar lost" }, s("title", {}, `${bar.date}: ${bar.won ? formatTime(bar.time_ms) : "not won"}`)));
  return h("figure", { class: "chart-figure", id },
    image(`${id}-svg`, width, height, summary, ...shapes),
    h("figcaption", {}, summary));
}
