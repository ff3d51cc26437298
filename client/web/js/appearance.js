// How the page looks, from the settings: the colour scheme, the card
// back and four-colour suits.  Everything is CSS keyed on the root
// element's attributes, so a change applies at once, to every card,
// without redrawing the board.
//
// The scheme is resolved here rather than in a CSS media query so that
// the dark rules are written once: "system" follows the system's
// preference, and keeps following it when it changes (a phone at dusk).

const DARK_QUERY = "(prefers-color-scheme: dark)";

/**
 * The scheme a theme setting shows with the system's preference `systemDark`.
 * @param {"system"|"light"|"dark"} theme
 * @param {boolean} systemDark
 * @returns {"light"|"dark"}
 */
export function schemeOf(theme, systemDark) {
  if (theme === "light" || theme === "dark") return theme;
  return systemDark ? "dark" : "light";
}

/**
 * Mark `root` (the <html> element) with the appearance `settings` choose,
 * and keep its scheme in step with the system's while the theme is "system".
 * @param {HTMLElement} root
 * @param {{theme: string, cardBack: string, fourColour: boolean}} settings
 */
export function applyAppearance(root, settings) {
  const query = window.matchMedia(DARK_QUERY);
  const show = () => { root.dataset.scheme = schemeOf(settings.theme, query.matches); };
  show();
  if (!root.dataset.followsSystem) {
    root.dataset.followsSystem = "true";
    query.addEventListener("change", show);
  }
  root.dataset.theme = settings.theme;
  root.dataset.back = settings.cardBack;
  root.classList.toggle("four-colour", settings.fourColour);
}
