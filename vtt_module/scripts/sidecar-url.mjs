/**
 * The browser's rules for the sidecar address (FOUNDRY.md, "Browser network rules"):
 * loopback is a secure context, so `ws://localhost` works even from an https page and must
 * not be forced to `wss://`; any other host from an https page needs `wss://`.
 */

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/**
 * Whether a host name is the local machine.
 * @param {string} hostname
 * @returns {boolean}
 */
export function isLoopbackHost(hostname) {
  const host = hostname.toLowerCase();
  return LOOPBACK_HOSTS.has(host) || host.endsWith(".localhost") || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * Turn the configured address into the one to open.
 * `http(s)://` is accepted as a shorthand for `ws(s)://`.
 * @param {string} configured              the sidecar URL setting
 * @param {string} pageProtocol            `location.protocol` of the Foundry page ("https:")
 * @returns {{url: string|null, upgraded: boolean, error: string|null}}
 *   `error` is a `VTTSIDECAR.` key when the address cannot be used.
 */
export function resolveSidecarUrl(configured, pageProtocol) {
  let parsed;
  try {
    parsed = new URL(configured);
  } catch {
    return { url: null, upgraded: false, error: "VTTSIDECAR.Status.BadUrl" };
  }
  if (parsed.protocol === "http:") parsed.protocol = "ws:";
  else if (parsed.protocol === "https:") parsed.protocol = "wss:";
  if (parsed.protocol !== "ws:" && parsed.protocol !== "wss:") {
    return { url: null, upgraded: false, error: "VTTSIDECAR.Status.BadUrl" };
  }
  let upgraded = false;
  if (parsed.protocol === "ws:" && pageProtocol === "https:" && !isLoopbackHost(parsed.hostname)) {
    parsed.protocol = "wss:";
    upgraded = true;
  }
  return { url: parsed.toString(), upgraded, error: null };
}
