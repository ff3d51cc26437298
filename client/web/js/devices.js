// The lobby's devices panel: one player on every device.
//
// "Link a device" asks the server for a one-time code and shows it with
// the time it has left; on the other device, "Use a code" says hello with
// it (connection.js) and becomes this player, with a token of its own.
// The list shows the player's devices (this one marked) with a Revoke
// button each; "New token" replaces this device's token, the old one
// stops working (a token copied off this browser is then worthless).

import { h } from "./dom.js";
import { errorSentence } from "./errors.js";
import { agoWords, expiryWords, groupedCode, typedCode } from "./friends.js";

const TICK_MS = 1000;
const LINK_GROUP = 5;

export class DevicesPanel {
  constructor(app) {
    this.app = app;
    this.link = null;
    this.devices = null;
    this.codeInput = h("input", { id: "link-code-input", maxlength: 24, autocomplete: "off", spellcheck: "false",
      autocapitalize: "characters", placeholder: "e.g. 7K2QF-M9XDA" });
    this.linkSlot = h("div", { class: "link-device" });
    this.listSlot = h("div");
    this.node = h("section", { class: "panel devices", id: "devices", "aria-labelledby": "devices-title" },
      h("h2", { id: "devices-title" }, "Your devices"),
      h("p", { class: "note" }, "Play as the same player on your phone and your computer: your games, records and friends go with you."),
      h("div", { class: "device-halves" }, this.linkSlot, this.useHalf()),
      this.listSlot);
    this.render();
    const connection = app.connection;
    connection.on("linked", (welcome) => app.toast(`This browser now plays as ${welcome.name}.`));
    connection.on("link_refused", (error) => app.toast(errorSentence(error)));
  }

  now() {
    return this.app.serverClock.now();
  }

  // The list of devices (the lobby asks whenever it refreshes).
  async refresh() {
    await this.ask({ type: "devices" }, (reply) => { this.devices = reply.devices; });
  }

  // Send `message`; on its reply, `then(reply)` and redraw; a refusal is said.
  async ask(message, then) {
    try {
      then(await this.app.request(message));
      this.render();
    } catch (error) {
      if (error.code !== "offline") this.app.toast(errorSentence(error));
    }
  }

  async linkDevice() {
    await this.ask({ type: "link_device" }, (reply) => { this.link = { code: reply.code, expires: reply.expires }; });
    clearInterval(this.ticker);
    this.ticker = setInterval(() => this.tick(), TICK_MS);
  }

  // From the lobby's "Already playing on another device?".
  focusCode() {
    this.node.scrollIntoView({ block: "start" });
    this.codeInput.focus();
  }

  useCode(code) {
    this.codeInput.value = "";
    this.app.connection.useLinkCode(code);
  }

  revoke(deviceId) {
    return this.ask({ type: "revoke_device", device_id: deviceId }, () => {
      this.devices = this.devices.filter((device) => device.device_id !== deviceId);
    });
  }

  rotate() {
    return this.ask({ type: "rotate_token" }, (reply) => {
      this.app.connection.keepToken(reply.token);
      this.app.toast("This device has a new token; the old one no longer works.");
    });
  }

  render() {
    this.linkSlot.replaceChildren(...this.linkHalf(this.now()));
    this.listSlot.replaceChildren(...[this.deviceList(this.now())].filter(Boolean));
  }

  // Each second while a code shows: its time left, and the panel once it expires.
  tick() {
    const now = this.now();
    const expiry = this.linkSlot.querySelector("#link-expiry");
    if (!this.link || this.link.expires <= now || !expiry) {
      clearInterval(this.ticker);
      this.render();
      return;
    }
    expiry.textContent = `${expiryWords(this.link.expires, now)}, works once`;
  }

  linkHalf(now) {
    const link = this.link;
    const live = link !== null && link.expires > now;
    return [
      h("h3", {}, "Link a device"),
      live
        ? h("div", { class: "invite", id: "link-code-box" },
          h("span", { class: "label" }, "On the other device, open this site and type this code under Use a code:"),
          h("strong", { class: "code", id: "link-code" }, groupedCode(typedCode(link.code), LINK_GROUP)),
          h("small", { id: "link-expiry" }, `${expiryWords(link.expires, now)}, works once`))
        : h("p", { class: "note" }, link ? "That code has expired; ask for a new one." : "Shows a code to type on your other device."),
      h("button", { type: "button", id: "link-device", onclick: () => this.linkDevice() }, live ? "New code" : "Link a device"),
    ];
  }

  useHalf() {
    return h("form", { class: "use-code", onsubmit: (event) => {
      event.preventDefault();
      const code = typedCode(this.codeInput.value);
      if (code) this.useCode(code);
    } },
      h("h3", {}, "Use a code"),
      h("label", { class: "choice", for: "link-code-input" },
        "A code shown on your other device: this browser becomes that player. The player it is now stays on its other devices; with none, it is left behind."),
      h("div", { class: "join-race" }, this.codeInput, h("button", { type: "submit", id: "use-link-code" }, "Use code")));
  }

  deviceList(now) {
    if (!this.devices) return null;
    return h("div", {},
      h("h3", {}, "Signed in on"),
      h("ul", { class: "friend-list", id: "device-list" }, this.devices.map((device) => {
        const name = device.name || "A device";
        const seen = device.last_seen === null ? "not seen since it was linked" : `last seen ${agoWords(device.last_seen, now)}`;
        return h("li", { dataset: { device: device.device_id, current: device.current ? "true" : null } },
          h("span", { class: "friend-who" }, h("strong", {}, name), h("small", {}, device.current ? "this device" : seen)),
          device.current
            ? h("button", { type: "button", class: "small", id: "rotate-token", onclick: () => this.rotate() }, "New token")
            : h("button", { type: "button", class: "small", dataset: { revoke: device.device_id },
              "aria-label": `Revoke ${name}`, onclick: () => this.revoke(device.device_id) }, "Revoke"));
      })));
  }
}
