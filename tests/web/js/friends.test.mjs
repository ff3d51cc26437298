// Friends and notifications as the page knows them (client/web/js/friends.js).
import assert from "node:assert/strict";
import test from "node:test";

import {
  Inbox, activityWords, agoWords, answerable, expiryWords, followable, friendInviteLink, groupedCode, noticeWords,
  presenceLine, sortFriends, typedCode,
} from "../../../client/web/js/friends.js";

const MINUTE = 60_000;

function note(fields = {}) {
  return { notification_id: "n1", kind: "friend_request", at_ms: 1000, read: false,
    sender: { player_id: "p_ann", name: "Ann" }, ...fields };
}

test("how long ago reads in the largest unit that fits", () => {
  const now = 10 * 24 * 60 * MINUTE;
  assert.deepEqual([0, 59_000, MINUTE, 59 * MINUTE, 60 * MINUTE, 23 * 60 * MINUTE, 24 * 60 * MINUTE, 72 * 60 * MINUTE]
    .map((ago) => agoWords(now - ago, now)),
  ["just now", "just now", "1 min ago", "59 min ago", "1 h ago", "23 h ago", "yesterday", "3 days ago"]);
  assert.equal(agoWords(now + MINUTE, now), "just now", "a clock a little ahead is not the future");
});

test("a code's time left counts down to expired", () => {
  assert.equal(expiryWords(600_000, 0), "10:00 left");
  assert.equal(expiryWords(600_000, 598_500), "0:02 left");
  assert.equal(expiryWords(600_000, 600_000), "expired");
});

test("codes are grouped by four to read out, and read back whatever was typed around them", () => {
  assert.equal(groupedCode("ABCD2345"), "ABCD-2345");
  assert.equal(groupedCode("ABCD23456"), "ABCD-2345-6");
  assert.equal(groupedCode("7K2QFM9XDA", 5), "7K2QF-M9XDA");
  assert.equal(groupedCode(""), "");
  assert.equal(typedCode(" abcd-2345 "), "ABCD2345");
  assert.equal(typedCode("7kq2 m9xd"), "7KQ2M9XD");
});

test("the invite link is this page's address with the code", () => {
  const location = { origin: "https://arena.example", pathname: "/play/" };
  assert.equal(friendInviteLink("ABCD-2345", location), "https://arena.example/play/#friend=ABCD-2345");
});

test("the inbox holds each notification once, newest first, up to its limit", () => {
  const inbox = new Inbox(2);
  inbox.receive([note({ notification_id: "a", at_ms: 1 }), note({ notification_id: "b", at_ms: 3 })]);
  assert.equal(inbox.knows("a"), true);
  assert.equal(inbox.knows("z"), false);
  inbox.receive([note({ notification_id: "a", at_ms: 1 })]);
  assert.deepEqual(inbox.list().map((entry) => entry.notification_id), ["b", "a"]);
  inbox.markRead(["b"]);
  assert.deepEqual(inbox.unread().map((entry) => entry.notification_id), ["a"]);
  inbox.receive([note({ notification_id: "b", at_ms: 3 })]);
  assert.deepEqual(inbox.unread().map((entry) => entry.notification_id), ["a"], "read here stays read when it comes again");
  inbox.receive([note({ notification_id: "c", at_ms: 2 })]);
  assert.deepEqual(inbox.list().map((entry) => entry.notification_id), ["b", "c"], "the oldest goes past the limit");
});

test("each kind of notification reads as a sentence", () => {
  const title = (game) => ({ klondike: "WordLink" })[game] ?? game;
  assert.equal(noticeWords(note()), "Ann sent you a friend request.");
  assert.equal(noticeWords(note({ kind: "friend_accepted" })), "Ann accepted your friend request.");
  assert.equal(noticeWords(note({ kind: "challenge", game: "klondike" }), title), "Ann challenges you to a WordLink race.");
  assert.equal(noticeWords(note({ kind: "challenge_declined" })), "Ann declined your challenge.");
  assert.equal(noticeWords(note({ kind: "friend_finished_daily", game: "klondike", result: "won", moves: 97 }), title),
    "Ann won today's WordLink daily in 97 moves.");
  assert.equal(noticeWords(note({ kind: "friend_finished_daily", game: "klondike", result: "resigned" }), title),
    "Ann resigned today's WordLink daily.");
});

test("a request is answered while it waits; a challenge until it is answered or expires", () => {
  assert.equal(answerable(note(), "request_received", 0), true);
  assert.equal(answerable(note(), "friend", 0), false, "accepted elsewhere");
  const challenge = note({ kind: "challenge", expires_ms: 5000 });
  assert.equal(answerable(challenge, "friend", 4999), true);
  assert.equal(answerable(challenge, "friend", 5000), false);
  assert.equal(answerable({ ...challenge, answered: true }, "friend", 0), false);
  assert.equal(answerable(note({ kind: "friend_accepted" }), "friend", 0), false);
});

test("presence reads as its state, then what the friend does or when it was last seen", () => {
  const title = (game) => ({ klondike: "WordLink" })[game] ?? game;
  const now = 100 * MINUTE;
  assert.deepEqual(presenceLine({ state: "online", activity: { kind: "lobby" } }, now, title),
    { state: "online", text: "Online · in the lobby" });
  assert.equal(presenceLine({ state: "away", activity: { kind: "game", game: "klondike", game_id: "g1" } }, now, title).text,
    "Away · playing WordLink");
  assert.equal(presenceLine({ state: "offline", last_seen: now - 5 * MINUTE }, now, title).text, "Offline · last seen 5 min ago");
  assert.equal(presenceLine({ state: "offline", last_seen: null }, now, title).text, "Offline");
  assert.equal(presenceLine(undefined, now, title).state, "offline", "no presence yet is offline");
  assert.equal(activityWords({ kind: "daily", game: "klondike" }, title), "playing today's WordLink daily");
  assert.equal(activityWords({ kind: "race", game: "klondike", race_id: "r1" }, title), "racing at WordLink");
});

test("a casual game is watched and a race followed; a daily attempt is not offered", () => {
  assert.deepEqual(followable({ state: "online", activity: { kind: "game", game_id: "g1" } }), { kind: "watch", gameId: "g1" });
  assert.deepEqual(followable({ state: "away", activity: { kind: "race", race_id: "r1" } }), { kind: "race", raceId: "r1" });
  assert.equal(followable({ state: "online", activity: { kind: "daily", game: "klondike" } }), null);
  assert.equal(followable({ state: "offline", last_seen: 1 }), null);
});

test("friends online come first, then away, then offline, each by name", () => {
  const friend = (name, state) => ({ name, presence: state && { state } });
  const sorted = sortFriends([friend("Zed", "online"), friend("Amy", null), friend("Bob", "away"), friend("Cal", "online")]);
  assert.deepEqual(sorted.map((entry) => entry.name), ["Cal", "Zed", "Bob", "Amy"]);
});
