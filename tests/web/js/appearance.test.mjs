// The colour scheme a theme setting shows (client/web/js/appearance.js).
import assert from "node:assert/strict";
import test from "node:test";

import { schemeOf } from "../../../client/web/js/appearance.js";

test("light and dark are kept whatever the system prefers; system follows it", () => {
  assert.equal(schemeOf("light", true), "light");
  assert.equal(schemeOf("dark", false), "dark");
  assert.equal(schemeOf("system", true), "dark");
  assert.equal(schemeOf("system", false), "light");
});
