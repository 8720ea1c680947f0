/** Client-made event ids: the sidecar dedupes on them, so they must be unique per world. */

const ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/**
 * Make an id generator from a random source, so tests get reproducible ids.
 * @param {() => number} random  returns a number in [0, 1)
 * @param {number} length
 * @returns {() => string}
 */
export function idGenerator(random = Math.random, length = 20) {
  return () => {
    let id = "";
    for (let i = 0; i < length; i += 1) id += ALPHABET[Math.floor(random() * ALPHABET.length)];
    return id;
  };
}

/**
 * The default generator: crypto-strength when the browser offers it.
 * @returns {() => string}
 */
export function defaultIdGenerator() {
  const cryptoApi = globalThis.crypto;
  if (cryptoApi?.getRandomValues) {
    return idGenerator(() => {
      const buffer = new Uint32Array(1);
      cryptoApi.getRandomValues(buffer);
      return buffer[0] / 2 ** 32;
    });
  }
  return idGenerator(Math.random);
}
