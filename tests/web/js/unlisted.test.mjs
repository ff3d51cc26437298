// Why a ranked win is off the public board, in words (client/web/js/unlisted.js).
import assert from "node:assert/strict";
import test from "node:test";

import { unlistedSentence } from "../../../client/web/js/unlisted.js";

test("every reason the server gives is said in words, in the server's order", () => {
  const sentence = unlistedSentence(["cadence", "same_network", "new_player"]);
  assert.match(sentence, /^Not on the public board: it was played at a pace no person keeps/);
  assert.ok(sentence.indexOf("bots' board") < sentence.indexOf("your network"));
  assert.ok(sentence.indexOf("your network") < sentence.indexOf("created after the day began"));
});

test("a reason this client does not know is shown as the server wrote it", () => {
  assert.equal(unlistedSentence(["someday"]), "Not on the public board: someday.");
});
