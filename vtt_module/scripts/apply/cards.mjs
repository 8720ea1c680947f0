/**
 * A sidecar `card` becomes a ChatMessage. The HTML is already rendered (and escaped) by the
 * sidecar in the world's language; rolls arrive as Foundry Roll JSON and are rebuilt with
 * `Roll.fromData`, so dice tooltips and Dice So Nice work on them.
 *
 * Who sees it (`card.visibility`):
 *   - "public": everyone;
 *   - "gm": whispered to the GMs only, marked blind, so players see neither text nor dice;
 *   - "owners": whispered to the player owners of the `owners_of` tokens, plus the GMs.
 */

import { MODULE_ID } from "../constants.mjs";
import { findToken, playerOwnerIds } from "../documents.mjs";
import { log } from "../util/log.mjs";

/** @returns {string[]} */
function gmIds() {
  return ChatMessage.getWhisperRecipients("GM").map((user) => user.id);
}

/**
 * The whisper list and blind flag for a card.
 * @param {{visibility?: string, owners_of?: string[]}} card
 * @returns {{whisper: string[], blind: boolean}}
 */
export function cardAudience(card) {
  switch (card.visibility) {
    case "gm":
      return { whisper: gmIds(), blind: true };
    case "owners": {
      const owners = (card.owners_of ?? []).flatMap((tokenId) => playerOwnerIds(findToken(tokenId)?.actor));
      return { whisper: [...new Set([...owners, ...gmIds()])], blind: false };
    }
    default:
      return { whisper: [], blind: false };
  }
}

/**
 * The chat speaker: the card's token/actor when they exist, else just its alias. Never
 * `ChatMessage.getSpeaker()` without a token or actor: it would fall back to whatever token
 * the GM has selected and put a trap's words in that creature's mouth.
 * @param {{alias?: string, token_id?: string|null, actor_id?: string|null}} speaker
 * @param {string} fallbackAlias
 * @returns {object}
 */
function cardSpeaker(speaker = {}, fallbackAlias = "") {
  const alias = speaker.alias || fallbackAlias;
  const token = findToken(speaker.token_id);
  const actor = token?.actor ?? (speaker.actor_id ? game.actors?.get(speaker.actor_id) : undefined);
  if (token || actor) return ChatMessage.getSpeaker({ token, actor, alias: alias || undefined });
  return { scene: null, actor: null, token: null, alias };
}

/**
 * @param {object[]} rolls  Roll JSON
 * @returns {object[]} Roll instances; a roll that cannot be rebuilt is left out
 */
function rebuildRolls(rolls = []) {
  const rebuilt = [];
  for (const data of rolls) {
    try {
      rebuilt.push(Roll.fromData(data));
    } catch (error) {
      log.warn("could not rebuild a roll from the sidecar", error, data);
    }
  }
  return rebuilt;
}

/**
 * The data for `ChatMessage.create` from a `card` world message.
 * @param {{seq: number, event_id: string, card: object}} message
 * @returns {object}
 */
export function chatMessageData({ seq, event_id: eventId, card }) {
  const { whisper, blind } = cardAudience(card);
  return {
    content: card.html,
    speaker: cardSpeaker(card.speaker, card.title),
    whisper,
    blind,
    rolls: rebuildRolls(card.rolls),
    flags: {
      [MODULE_ID]: {
        seq,
        event_id: eventId,
        card_id: card.id,
        title: card.title,
        data: card.data ?? {},
        undoable: Boolean(card.undoable),
        visibility: card.visibility ?? "public",
      },
    },
  };
}

/**
 * Post a card to chat.
 * @param {{seq: number, event_id: string, card: object}} message
 * @returns {Promise<object>} the ChatMessage
 */
export function postCard(message) {
  return ChatMessage.create(chatMessageData(message));
}
