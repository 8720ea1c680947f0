/**
 * Applying one world message from the sidecar. Called by the WorldInbox in seq order; when
 * the returned promise resolves, the message counts as applied and is acked.
 */

import { postCard } from "./cards.mjs";
import { t } from "../util/i18n.mjs";
import { log } from "../util/log.mjs";

/**
 * @param {object} deps
 * @param {import("../systems/dnd5e.mjs").SystemAdapter} deps.adapter
 * @param {import("../state.mjs").SidecarState} deps.state
 * @param {import("./save-requests.mjs").SaveRequests} deps.saves
 * @param {import("../undo-log.mjs").UndoLog} deps.undoLog
 * @returns {(message: object) => Promise<void>}
 */
export function worldMessageApplier({ adapter, state, saves, undoLog }) {
  return async (message) => {
    switch (message.type) {
      case "card":
        await postCard(message);
        break;
      case "ops": {
        const results = await adapter.applyOps(message.ops ?? [], { eventId: message.event_id, undoLog });
        const failed = results.filter((r) => !r.ok);
        if (failed.length) {
          log.warn("some sidecar operations failed", message.seq, failed);
          ui.notifications?.warn(t("VTTSIDECAR.Notify.OpsFailed", {
            count: failed.length,
            errors: failed.map((f) => `${f.op}: ${f.error}`).join("; "),
          }));
        }
        break;
      }
      case "save.request":
        saves.dispatch(message);
        break;
      case "state":
        state.set(message.kind, message.key, message.data ?? {});
        break;
      default:
        log.debug("ignored world message", message.type);
    }
  };
}
