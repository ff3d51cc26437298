// The player's settings (WordLink's rule text lists them), kept in localStorage
// so they survive a reload and apply to every game on this browser.

const KEY = "arena.settings";

// Sound starts off: a page that beeps unasked is a page people mute or leave.
export const DEFAULTS = Object.freeze({
  sound: false,
  draw: 1,
  leftHanded: false,
  timer: true,
  autoHints: false,
  autoCollect: false,
  skipCelebration: false,
  theme: "system",
  cardBack: "blue",
  fourColour: false,
});

// The values a setting chosen from a list may take (anything else stored is dropped).
export const CHOICES = Object.freeze({
  theme: ["system", "light", "dark"],
  cardBack: ["blue", "red", "grey"],
});

// The settings dialog's control for each setting.
const CONTROLS = {
  sound: "setting-sound",
  draw: "setting-draw",
  leftHanded: "setting-left-handed",
  timer: "setting-timer",
  autoHints: "setting-auto-hints",
  autoCollect: "setting-auto-collect",
  skipCelebration: "setting-skip-celebration",
  theme: "setting-theme",
  cardBack: "setting-card-back",
  fourColour: "setting-four-colour",
};

export function loadSettings() {
  let stored = {};
  try {
    stored = JSON.parse(localStorage.getItem(KEY) ?? "{}") ?? {};
  } catch {
    stored = {};
  }
  const settings = { ...DEFAULTS };
  for (const name of Object.keys(DEFAULTS)) {
    if (typeof stored[name] === typeof DEFAULTS[name]) settings[name] = stored[name];
  }
  if (settings.draw !== 1 && settings.draw !== 3) settings.draw = DEFAULTS.draw;
  for (const [name, values] of Object.entries(CHOICES)) {
    if (!values.includes(settings[name])) settings[name] = DEFAULTS[name];
  }
  return settings;
}

export function saveSettings(settings) {
  localStorage.setItem(KEY, JSON.stringify(settings));
}

// Fill the dialog from `settings` and save every change; `changed` hears
// about it so the screen can redraw (left-handed layout, timer).
export function bindSettingsDialog(document, settings, changed) {
  for (const [name, id] of Object.entries(CONTROLS)) {
    const control = document.getElementById(id);
    if (control.type === "checkbox") control.checked = settings[name];
    else control.value = String(settings[name]);
    control.addEventListener("change", () => {
      settings[name] = control.type === "checkbox" ? control.checked
        : typeof DEFAULTS[name] === "number" ? Number(control.value) : control.value;
      saveSettings(settings);
      changed(name);
    });
  }
}
