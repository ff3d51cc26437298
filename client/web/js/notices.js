// The notifications: a count on the header's bell and, when the player
// opens it, the list with what each one offers (accept a friend request,
// accept or decline a challenge).
//
// A notification arriving never covers anything: the count changes and a
// screen reader hears one polite sentence; the list shows only when asked
// for, and opening it marks what it shows as read.

import { h } from "./dom.js";
import { agoWords, noticeWords } from "./friends.js";
import { gameTitle } from "./games.js";

export class NoticeList {
  // `actions`: opened(notes) (they are now read), answer(note, accepted),
  // nowMs() (the server's clock, for "5 min ago").
  constructor(doc, actions) {
    this.actions = actions;
    this.button = doc.getElementById("open-notices");
    this.badge = doc.getElementById("notice-count");
    this.announcer = doc.getElementById("notice-announce");
    this.dialog = doc.getElementById("notices");
    this.list = doc.getElementById("notice-list");
    this.notes = [];
    this.button.addEventListener("click", () => this.open());
  }

  // Redraw from `notes` (newest first); announce those in `fresh`.
  show(notes, nowMs, fresh = []) {
    this.notes = notes;
    const unread = notes.filter((note) => !note.read).length;
    this.badge.textContent = unread > 99 ? "99+" : String(unread);
    this.badge.hidden = unread === 0;
    this.button.setAttribute("aria-label", unread ? `Notifications, ${unread} unread` : "Notifications");
    if (fresh.length) this.announcer.textContent = fresh.map((note) => noticeWords(note, gameTitle)).join(" ");
    if (this.dialog.open) this.render(nowMs);
  }

  open() {
    this.render(this.actions.nowMs());
    this.dialog.showModal();
    const unread = this.notes.filter((note) => !note.read);
    if (unread.length) this.actions.opened(unread);
  }

  render(nowMs) {
    if (!this.notes.length) {
      this.list.replaceChildren(h("li", { class: "note" }, "Nothing new. Friend requests, challenges and your friends' dailies show here."));
      return;
    }
    this.list.replaceChildren(...this.notes.map((note) => h("li", { class: note.read ? "" : "unread", dataset: { notice: note.kind } },
      h("span", {}, noticeWords(note, gameTitle), " ", h("small", {}, agoWords(note.at_ms, nowMs))),
      this.answers(note))));
  }

  answers(note) {
    if (!note.answerable) return null;
    const answer = (accepted) => {
      this.dialog.close();
      this.actions.answer(note, accepted);
    };
    return h("span", { class: "actions" },
      h("button", { type: "button", class: "small primary", dataset: { accept: note.notification_id }, onclick: () => answer(true) },
        "Accept"),
      h("button", { type: "button", class: "small", dataset: { decline: note.notification_id }, onclick: () => answer(false) },
        "Decline"));
  }
}
