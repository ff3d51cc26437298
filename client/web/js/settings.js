// The player's settings (WordLink's rule text lists them), kept in localStorage
// so they survive a reload and apply to every game on this browser.

const KEY = "arena.settings";

export const DEFAULTS = Object.freeze({
  sound: true,
  draw: 1,
  leftHanded: false,
  timer: true,
  autoHints: false,
  autoCollect: false,
  skipCelebration: false,
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
      settings[name] = control.type === "checkbox" ? control.checked : Number(control.value);
      saveSettings(settings);
      changed(name);
    });
  }
}
