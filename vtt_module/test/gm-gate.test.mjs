import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { SidecarConnection } from "../scripts/connection.mjs";
import { ActiveGmWatcher, isActiveGM } from "../scripts/gm-gate.mjs";
import { SeqStore } from "../scripts/seq-store.mjs";
import { createFoundryEnv, USER_ROLES } from "./foundry-standins.mjs";
import { FakeClock, fakeWebSocketClass } from "./support/fakes.mjs";

/**
 * One browser ("client") of a shared world: its own current user, WebSocket class and
 * connection, watching the world's users like main.mjs does.
 */
function client(env, userId) {
  const WebSocketImpl = fakeWebSocketClass();
  const connection = new SidecarConnection({
    WebSocketImpl,
    config: () => ({ url: "ws://127.0.0.1:8765/ws", token: "t" }),
    helloFields: () => ({ world_id: "w" }),
    seqStore: new SeqStore("w", null),
    applyWorldMessage: async () => {},
    clock: new FakeClock(),
    logger: { warn() {}, error() {}, debug() {} },
  });
  const watcher = new ActiveGmWatcher({
    isActive: () => isActiveGM(env.game.users, env.game.users.get(userId)),
    onGained: () => connection.start(),
    onLost: () => connection.stop(),
  });
  watcher.install(env.hooks);
  watcher.check();
  return { WebSocketImpl, connection, sockets: () => WebSocketImpl.instances.length };
}

describe("only the active GM acts", () => {
  it("with two GMs logged in, exactly one connects", () => {
    const env = createFoundryEnv();
    env.addUser({ id: "gmB000000000001", name: "B", role: USER_ROLES.GAMEMASTER });
    env.addUser({ id: "gmA000000000001", name: "A", role: USER_ROLES.GAMEMASTER });
    env.addUser({ id: "player000000001", name: "P", role: USER_ROLES.PLAYER });
    const a = client(env, "gmA000000000001");
    const b = client(env, "gmB000000000001");
    const p = client(env, "player000000001");
    assert.equal(a.sockets() + b.sockets() + p.sockets(), 1);
    assert.equal(a.sockets(), 1, "the lower id wins among equal roles (Users#activeGM)");
  });

  it("a full GM is preferred over an assistant", () => {
    const env = createFoundryEnv();
    env.addUser({ id: "aaaAssistant0001", name: "Asst", role: USER_ROLES.ASSISTANT });
    env.addUser({ id: "zzzGamemaster001", name: "GM", role: USER_ROLES.GAMEMASTER });
    const assistant = client(env, "aaaAssistant0001");
    const master = client(env, "zzzGamemaster001");
    assert.equal(assistant.sockets(), 0);
    assert.equal(master.sockets(), 1);
  });

  it("the role moves when the active GM leaves, and back when they return", () => {
    const env = createFoundryEnv();
    env.addUser({ id: "gmA000000000001", name: "A", role: USER_ROLES.GAMEMASTER });
    env.addUser({ id: "gmB000000000001", name: "B", role: USER_ROLES.GAMEMASTER });
    const a = client(env, "gmA000000000001");
    const b = client(env, "gmB000000000001");
    env.setUserActive("gmA000000000001", false);
    assert.equal(a.connection.status.state, "stopped");
    assert.equal(b.sockets(), 1);
    env.setUserActive("gmA000000000001", true);
    assert.equal(b.connection.status.state, "stopped");
    assert.equal(a.sockets(), 2);
    assert.equal(a.connection.status.state, "connecting");
  });
});
