// Checks each hand's deal the way docs/fairness.md specifies it, with the browser's own SHA-256 and
// HMAC-SHA256 (WebCrypto): the revealed hand seed matches the commitment published before the deal,
// it derives from the revealed server part and every seat's client seed (this browser's own among
// them), and shuffling the game's deck with it deals exactly the hands and kitty revealed at the end
// of the hand; once the match key is revealed, every server part derives from it.

const encoder = new TextEncoder();

/** @typedef {Uint8Array<ArrayBuffer>} Bytes */

/** @param {string} hex @returns {Bytes} */
export function fromHex(hex) {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i += 1) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

/** @param {ArrayBuffer | Uint8Array} bytes @returns {string} */
export function toHex(bytes) {
  return [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** @param {...Bytes} parts @returns {Bytes} */
function concat(...parts) {
  const joined = new Uint8Array(parts.reduce((size, part) => size + part.length, 0));
  let at = 0;
  for (const part of parts) {
    joined.set(part, at);
    at += part.length;
  }
  return joined;
}

/** @param {Bytes} data @returns {Promise<Bytes>} */
async function sha256(data) {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", data));
}

/** @param {Bytes} key @param {Bytes} message @returns {Promise<Bytes>} */
async function hmac(key, message) {
  const imported = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", imported, message));
}

/** @param {number} value @param {number} size @returns {Bytes} */
function bigEndian(value, size) {
  const bytes = new Uint8Array(size);
  let rest = value;
  for (let i = size - 1; i >= 0; i -= 1) {
    bytes[i] = rest % 256;
    rest = Math.floor(rest / 256);
  }
  return bytes;
}

/** The client seeds' canonical form: compact JSON, only `"` and `\` escaped. @param {string[]} seeds */
export function canonicalSeeds(seeds) {
  return `[${seeds.map((seed) => `"${seed.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`).join(",")}]`;
}

/** A byte stream from a seed and a label: HMAC-SHA256 blocks, read 4 bytes at a time. */
class Drbg {
  /** @param {Bytes} seed @param {string} label */
  constructor(seed, label) {
    this.seed = seed;
    this.label = encoder.encode(label);
    /** @type {Bytes} */
    this.block = new Uint8Array(0);
    this.at = 0;
    this.counter = 0;
  }

  /** @returns {Promise<number>} */
  async word() {
    /** @type {number[]} */
    const bytes = [];
    while (bytes.length < 4) {
      if (this.at === this.block.length) {
        this.block = await hmac(this.seed, concat(this.label, bigEndian(this.counter, 8)));
        this.counter += 1;
        this.at = 0;
      }
      bytes.push(this.block[this.at] ?? 0);
      this.at += 1;
    }
    return (((bytes[0] ?? 0) * 256 + (bytes[1] ?? 0)) * 256 + (bytes[2] ?? 0)) * 256 + (bytes[3] ?? 0);
  }

  /** @param {number} k @returns {Promise<number>} */
  async below(k) {
    const limit = 2 ** 32 - (2 ** 32 % k);
    for (;;) {
      const u = await this.word();
      if (u < limit) return u % k;
    }
  }
}

/** @type {Record<string, [("each" | "kitty"), number][]>} */
const PACKETS = {
  five_hundred: [["each", 3], ["kitty", 3], ["each", 2], ["each", 3], ["kitty", 3], ["each", 2]],
  rough: [["each", 4], ["kitty", 4], ["each", 4]],
  euchre5: [["each", 2], ["each", 3], ["kitty", 3]],
};

/**
 * The hands and kitty a hand seed deals (docs/fairness.md: the shuffle, the packets).
 * @param {string} game
 * @param {string[]} deck the game's deck in canonical order
 * @param {number} players
 * @param {number} dealer
 * @param {Bytes} seed
 * @returns {Promise<{ hands: string[][], kitty: string[] }>}
 */
export async function dealOf(game, deck, players, dealer, seed) {
  const cards = [...deck];
  const drbg = new Drbg(seed, "atout-drbg/v1");
  for (let i = cards.length - 1; i >= 1; i -= 1) {
    const j = await drbg.below(i + 1);
    [cards[i], cards[j]] = [/** @type {string} */ (cards[j]), /** @type {string} */ (cards[i])];
  }
  /** @type {string[][]} */
  const hands = Array.from({ length: players }, () => []);
  /** @type {string[]} */
  const kitty = [];
  let top = 0;
  for (const [to, count] of PACKETS[game] ?? []) {
    if (to === "kitty") {
      kitty.push(...cards.slice(top, top + count));
      top += count;
      continue;
    }
    for (let turn = 1; turn <= players; turn += 1) {
      hands[(dealer + turn) % players]?.push(...cards.slice(top, top + count));
      top += count;
    }
  }
  return { hands, kitty };
}

/**
 * @typedef {object} HandProof
 * @property {number} hand
 * @property {string} commitment  SHA-256 of the seed, published before the deal (hex)
 * @property {string} seed        the hand seed, revealed once the hand is scored (hex)
 * @property {string} serverPart  HMAC-SHA256(K, hand), revealed with the seed (hex)
 * @property {string[]} clientSeeds
 * @property {number} dealer
 * @property {string[][]} hands   as revealed at the end of the hand
 * @property {string[]} kitty
 */

/**
 * Whether a hand's revealed deal is the one its committed seed deals.
 * @param {string} game
 * @param {string[]} deck
 * @param {HandProof} proof
 * @returns {Promise<boolean>}
 */
export async function verifyHand(game, deck, proof) {
  const seed = fromHex(proof.seed);
  if (toHex(await sha256(seed)) !== proof.commitment) return false;
  const derived = await sha256(
    concat(encoder.encode("atout-deal/v1"), fromHex(proof.serverPart), encoder.encode(canonicalSeeds(proof.clientSeeds))),
  );
  if (toHex(derived) !== proof.seed) return false;
  const dealt = await dealOf(game, deck, proof.hands.length, proof.dealer, seed);
  const sameSet = (/** @type {string[]} */ a, /** @type {string[]} */ b) =>
    a.length === b.length && [...a].sort().join() === [...b].sort().join();
  return dealt.hands.every((hand, seat) => sameSet(hand, proof.hands[seat] ?? [])) && dealt.kitty.join() === proof.kitty.join();
}

/**
 * Whether each server part derives from the match key revealed at the end.
 * @param {string} key hex
 * @param {Map<number, string>} serverParts hand number to server part (hex)
 * @returns {Promise<boolean>}
 */
export async function verifyKey(key, serverParts) {
  for (const [hand, part] of serverParts) {
    const derived = await hmac(fromHex(key), concat(encoder.encode("atout-hand/v1"), bigEndian(hand, 4)));
    if (toHex(derived) !== part) return false;
  }
  return true;
}
