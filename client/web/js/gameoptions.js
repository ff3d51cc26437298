// The Game Options dialog (Broken Deck's difficulty): it shows the
// game's current options and hands the changed ones to `apply`, which
// restarts the deal with them.

import { GAMES } from "./games.js";

export function openGameOptions(mirror, spec, apply) {
  const dialog = document.getElementById("game-options");
  const fields = document.getElementById("game-options-fields");
  const meta = GAMES[mirror.game];
  const controls = meta.gameOptions.map((name) => {
    const option = meta.lobbyOptions.find((candidate) => candidate.name === name);
    const current = mirror.view.options[name];
    const control = option.toggle
      ? Object.assign(document.createElement("input"), { type: "checkbox", checked: Boolean(current) })
      : document.createElement("select");
    control.id = `game-option-${name}`;
    if (!option.toggle) {
      for (const [value, label] of option.choices) control.append(new Option(label, value));
      control.value = current;
    }
    const label = document.createElement("label");
    label.className = option.toggle ? "switch" : "choice";
    label.append(option.toggle ? control : option.label, option.toggle ? ` ${option.label}` : control);
    return { name, control, option, label };
  });
  fields.replaceChildren(...controls.map((entry) => entry.label));
  const known = spec && typeof spec.deal === "number";
  document.getElementById("game-options-note").textContent = known
    ? `Changing an option restarts deal ${spec.deal}; this game ends (resigned).`
    : spec?.deal === "daily"
      ? "The daily deal's number stays secret until the game ends, so a change starts the daily deal of the new options."
      : "This browser did not start this game, so it does not know the deal number: a change starts a new deal.";
  dialog.onclose = () => {
    if (dialog.returnValue !== "apply") return;
    const options = lobbyOptions(mirror);
    for (const { name, control, option } of controls) options[name] = option.toggle ? control.checked : control.value;
    apply({ deal: known ? spec.deal : spec?.deal ?? "random", options });
  };
  dialog.returnValue = "";
  dialog.showModal();
}

// The options a player chose for this game (without the ones that come
// from settings, which a new game takes afresh).
export function lobbyOptions(mirror) {
  const meta = GAMES[mirror.game];
  const options = {};
  for (const option of meta.lobbyOptions) options[option.name] = mirror.view.options[option.name];
  return options;
}
