// A tiny element builder: h("button", {type: "button", onclick}, "Undo").
// Attributes starting with "on" become listeners; `dataset` and `hidden`
// are set as properties; everything else is an attribute.

export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else if (name === "dataset") Object.assign(element.dataset, value);
    else if (name === "hidden" || name === "checked" || name === "value") element[name] = value;
    else element.setAttribute(name, value === true ? "" : String(value));
  }
  element.append(...children.flat().filter((child) => child !== null && child !== undefined && child !== false));
  return element;
}

export function formatTime(ms) {
  const seconds = Math.floor(ms / 1000);
  const minutes = Math.floor(seconds / 60);
  const hours = Math.floor(minutes / 60);
  const pad = (n) => String(n).padStart(2, "0");
  return hours ? `${hours}:${pad(minutes % 60)}:${pad(seconds % 60)}` : `${minutes}:${pad(seconds % 60)}`;
}

// "1:02.4": a time that ranks, where tenths of a second decide.
export function formatPreciseTime(ms) {
  return `${formatTime(ms)}.${Math.floor((ms % 1000) / 100)}`;
}

// "15 s", "1.5 s": whole seconds from ten up, halves below.
export function formatSeconds(ms) {
  const seconds = ms / 1000;
  const shown = seconds >= 10 ? Math.round(seconds) : Math.round(seconds * 2) / 2;
  return `${shown} s`;
}
