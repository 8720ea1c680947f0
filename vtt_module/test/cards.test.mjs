import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { chatMessageData, postCard } from "../scripts/apply/cards.mjs";
import { setupWorld } from "./support/env.mjs";

function world() {
  const { env, gm, player } = setupWorld();
  const other = env.addUser({ id: "otherPlayer0001", name: "Other" });
  const assistant = env.addUser({ id: "assistantGm0001", name: "Asst", role: 3 });
  const actor = env.createActor({ name: "Aria", ownership: { [player.id]: 3 } });
  const scene = env.createScene({ tokens: [{ id: "tokAria", actorId: actor.id }, { id: "tokNpc" }] });
  env.viewScene(scene);
  return { env, gm, player, other, assistant, actor };
}

const roll = {
  class: "Roll", formula: "1d20 + 5", total: 17, evaluated: true, options: {},
  terms: [
    { class: "Die", number: 1, faces: 20, results: [{ result: 12, active: true }], evaluated: true },
    { class: "OperatorTerm", operator: "+" },
    { class: "NumericTerm", number: 5 },
  ],
};

const message = (card) => ({ seq: 9, event_id: "ev9", card: { id: "c9", title: "Trap", html: "<p>x</p>", ...card } });

describe("card visibility", () => {
  it("gm cards whisper to GMs only, blind, never to a player", () => {
    const { gm, player, other, assistant } = world();
    const data = chatMessageData(message({ visibility: "gm", rolls: [roll] }));
    assert.deepEqual(data.whisper.sort(), [assistant.id, gm.id].sort());
    assert.equal(data.blind, true);
    for (const id of [player.id, other.id]) assert.equal(data.whisper.includes(id), false);
  });

  it("gm cards stay hidden from players once posted, rolls included", async () => {
    const { player, gm } = world();
    const posted = await postCard(message({ visibility: "gm", rolls: [roll] }));
    assert.equal(posted.isVisibleTo(player), false);
    assert.equal(posted.isVisibleTo(gm), true);
    assert.equal(posted.rolls[0].total, 17);
  });

  it("owners cards go to the token owners and the GMs", () => {
    const { gm, player, other, assistant } = world();
    const data = chatMessageData(message({ visibility: "owners", owners_of: ["tokAria", "tokNpc"] }));
    assert.deepEqual(data.whisper.sort(), [player.id, gm.id, assistant.id].sort());
    assert.equal(data.whisper.includes(other.id), false);
    assert.equal(data.blind, false);
  });

  it("public cards whisper to nobody", () => {
    world();
    const data = chatMessageData(message({ visibility: "public" }));
    assert.deepEqual(data.whisper, []);
  });

  it("keeps the sidecar's ids and data in flags and rebuilds rolls", () => {
    world();
    const data = chatMessageData(message({ data: { trap: "pit" }, rolls: [roll, { junk: true }], undoable: true }));
    assert.deepEqual(data.flags["vtt-sidecar"], {
      seq: 9, event_id: "ev9", card_id: "c9", title: "Trap", data: { trap: "pit" }, undoable: true, visibility: "public",
    });
    assert.equal(data.rolls.length, 1, "a roll that cannot be rebuilt is left out");
    assert.equal(data.rolls[0].constructor.name, "StandinRoll");
  });

  it("speaks as the card's token, or as a bare alias without ever guessing a token", () => {
    const { env, actor } = world();
    const asToken = chatMessageData(message({ speaker: { alias: "", token_id: "tokAria" } }));
    assert.equal(asToken.speaker.token, "tokAria");
    assert.equal(asToken.speaker.actor, actor.id);
    const bare = chatMessageData(message({ speaker: { alias: "The dungeon" } }));
    assert.deepEqual(bare.speaker, { scene: null, actor: null, token: null, alias: "The dungeon" });
    assert.equal(env.unsafeSpeakerCalls, 0);
  });
});
