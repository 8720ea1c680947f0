/**
 * GM-only buttons on sidecar cards: Undo (event.undo) and the card's own actions.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { postCard } from "../scripts/apply/cards.mjs";
import { installChatButtons } from "../scripts/ui/chat-buttons.mjs";
import { setupWorld } from "./support/env.mjs";

function world(generation = 13) {
  const setup = setupWorld({ generation });
  const sent = [];
  const send = (action, params) => {
    sent.push({ action, params });
    return `ev${sent.length}`;
  };
  installChatButtons(setup.env.hooks, send);
  return { ...setup, sent };
}

const card = (extra = {}) => ({
  seq: 3,
  event_id: "e-16",
  card: { id: "e-16#1", title: "Gout of flame", html: "<p>fire</p>", visibility: "public", undoable: true, ...extra },
});

const catchOffer = {
  data: {
    chase_id: "chase-1",
    actions: [{ action: "chase.catch", label: "Catch!", params: { chase_id: "chase-1", pursuer: "tokB", quarry: "tokT" } }],
  },
};

describe("Undo button", () => {
  it("is rendered for a GM on an undoable card, and never for a player", async () => {
    const w = world();
    const message = await postCard(card());
    const gmView = w.env.renderChatMessage(message);
    assert.match(gmView.innerHTML, /data-vtt-sidecar="undo"/);
    assert.match(gmView.innerHTML, />[^<]*<\/i> Undo<\/button>/);
    w.env.setCurrentUser(w.player.id);
    const playerView = w.env.renderChatMessage(message);
    assert.doesNotMatch(playerView.innerHTML, /vtt-sidecar-buttons/);
    assert.equal(playerView.listeners.length, 0);
  });

  it("is not rendered on a card that is not undoable", async () => {
    const w = world();
    const message = await postCard(card({ undoable: false }));
    assert.doesNotMatch(w.env.renderChatMessage(message).innerHTML, /undo/);
  });

  it("sends event.undo with the card's event id, then stays disabled", async () => {
    const w = world();
    const message = await postCard(card());
    const view = w.env.renderChatMessage(message);
    const button = await view.click({ vttSidecar: "undo" });
    assert.deepEqual(w.sent, [{ action: "event.undo", params: { event_id: "e-16" } }]);
    assert.equal(button.disabled, true);
    assert.equal(message.getFlag("vtt-sidecar", "undone"), true);
    const again = w.env.renderChatMessage(message);
    assert.match(again.innerHTML, /data-vtt-sidecar="undo" disabled/);
    assert.match(again.innerHTML, /Undone/);
    await again.click({ vttSidecar: "undo" }, { disabled: true });
    assert.equal(w.sent.length, 1, "a disabled button sends nothing");
  });

  it("works with v12's renderChatMessage and its jQuery argument", async () => {
    const w = world(12);
    const message = await postCard(card());
    const view = w.env.renderChatMessage(message);
    assert.match(view.innerHTML, /data-vtt-sidecar="undo"/);
    await view.click({ vttSidecar: "undo" });
    assert.equal(w.sent[0].action, "event.undo");
  });

  it("warns and keeps the button when this browser is not the active GM", async () => {
    const { env } = setupWorld();
    installChatButtons(env.hooks, () => null);
    const message = await postCard(card());
    const view = env.renderChatMessage(message);
    const button = await view.click({ vttSidecar: "undo" });
    assert.equal(button.disabled, false);
    assert.equal(message.getFlag("vtt-sidecar", "undone"), undefined);
    assert.equal(env.notifications.at(-1).type, "warn");
  });
});

describe("card action buttons", () => {
  it("render the card's actions for GMs and send each with its params", async () => {
    const w = world();
    const message = await postCard(card({ visibility: "gm", undoable: false, ...catchOffer }));
    const view = w.env.renderChatMessage(message);
    assert.match(view.innerHTML, /data-vtt-sidecar="action" data-index="0">Catch!<\/button>/);
    await view.click({ vttSidecar: "action", index: "0" });
    assert.deepEqual(w.sent, [{ action: "chase.catch", params: { chase_id: "chase-1", pursuer: "tokB", quarry: "tokT" } }]);
    assert.deepEqual(message.getFlag("vtt-sidecar", "used"), [0]);
    assert.match(w.env.renderChatMessage(message).innerHTML, /data-index="0" disabled/);
  });

  it("players get no action buttons", async () => {
    const w = world();
    const message = await postCard(card({ ...catchOffer }));
    w.env.setCurrentUser(w.player.id);
    assert.doesNotMatch(w.env.renderChatMessage(message).innerHTML, /Catch!/);
  });

  it("labels are escaped and no button is invented for cards without actions", async () => {
    const w = world();
    const evil = { data: { actions: [{ action: "trap.disarm", label: "<img src=x onerror=alert(1)>", params: {} }] } };
    const message = await postCard(card({ undoable: false, ...evil }));
    const html = w.env.renderChatMessage(message).innerHTML;
    assert.doesNotMatch(html, /<img/);
    assert.match(html, /&lt;img/);
    const plain = await postCard(card({ undoable: false, data: { trap: { region_id: "r1" } } }));
    assert.doesNotMatch(w.env.renderChatMessage(plain).innerHTML, /<button/);
  });
});
