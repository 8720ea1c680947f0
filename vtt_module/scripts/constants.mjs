/** Names shared by every part of the module. */

/** The module id from module.json; also the flag scope and the settings namespace. */
export const MODULE_ID = "vtt-sidecar";

/** Wire protocol version this module speaks (sidecar/protocol.py PROTOCOL_VERSION). */
export const PROTOCOL_VERSION = 1;

/** The sidecar closes frames larger than this (sidecar/protocol.py MAX_FRAME_BYTES). */
export const MAX_FRAME_BYTES = 1024 * 1024;

/** Sub-type of the trap RegionBehavior, prefixed with the module id as Foundry requires. */
export const TRAP_BEHAVIOR_TYPE = `${MODULE_ID}.trap`;

/** Hook this module calls when the sidecar sends a `state` message. */
export const STATE_HOOK = "vttSidecarState";

/** Default sidecar address: loopback, so it works from http and https pages alike. */
export const DEFAULT_SIDECAR_URL = "ws://127.0.0.1:8765/ws";
