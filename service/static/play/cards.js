// SVG cards drawn by this code: the rank in two corners, the suit's symbol in the middle, red for
// diamonds and hearts; Le 500's jokers are "BJ" (black, le Bonhomme) and "RJ" (red, la Blanche).
// A card code is its rank then its suit: AS, TH (T is ten), 4D.

/** @typedef {"S" | "C" | "D" | "H"} Suit */

/** @type {Record<Suit, string>} */
export const SYMBOL = { S: "♠", C: "♣", D: "♦", H: "♥" };

const SVG = "http://www.w3.org/2000/svg";

/**
 * @param {string} card
 * @returns {{ rank: string, suit: Suit | null, joker: boolean, red: boolean }}
 */
export function parts(card) {
  if (card === "BJ" || card === "RJ") return { rank: "★", suit: null, joker: true, red: card === "RJ" };
  const suit = /** @type {Suit} */ (card[1]);
  return { rank: card[0] === "T" ? "10" : card[0] ?? "?", suit, joker: false, red: suit === "D" || suit === "H" };
}

/**
 * @param {string} name
 * @param {Record<string, string>} attributes
 * @param {string} [text]
 * @returns {SVGElement}
 */
function node(name, attributes, text) {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
  if (text !== undefined) element.textContent = text;
  return element;
}

/**
 * The face of ``card`` as an SVG image, 60 × 84 units, named ``label`` for assistive technology (a
 * button holding it takes that name from its content), or hidden from it without a label.
 * @param {string} card
 * @param {string} [label]
 * @returns {SVGElement}
 */
export function face(card, label) {
  const { rank, suit, joker, red } = parts(card);
  const color = red ? "#c0392b" : "#1c2833";
  /** @type {Record<string, string>} */
  const named = label ? { role: "img", "aria-label": label } : { "aria-hidden": "true" };
  const svg = node("svg", { viewBox: "0 0 60 84", class: "card-face", focusable: "false", ...named });
  svg.append(node("rect", { x: "1", y: "1", width: "58", height: "82", rx: "6", fill: "#fff", stroke: "#7f8c8d" }));
  const corner = joker ? "J" : rank;
  const small = joker ? "★" : SYMBOL[/** @type {Suit} */ (suit)];
  svg.append(node("text", { x: "6", y: "16", "font-size": "13", "font-weight": "bold", fill: color }, corner));
  svg.append(node("text", { x: "6", y: "29", "font-size": "12", fill: color }, small));
  const bottom = node("g", { transform: "rotate(180 30 42)" });
  bottom.append(node("text", { x: "6", y: "16", "font-size": "13", "font-weight": "bold", fill: color }, corner));
  bottom.append(node("text", { x: "6", y: "29", "font-size": "12", fill: color }, small));
  svg.append(bottom);
  svg.append(node("text", { x: "30", y: "54", "font-size": joker ? "30" : "28", "text-anchor": "middle", fill: color }, small));
  return svg;
}

/**
 * The back of a card (another seat's hidden card).
 * @returns {SVGElement}
 */
export function back() {
  const svg = node("svg", { viewBox: "0 0 60 84", class: "card-face back", "aria-hidden": "true", focusable: "false" });
  svg.append(node("rect", { x: "1", y: "1", width: "58", height: "82", rx: "6", fill: "#1f618d", stroke: "#154360" }));
  svg.append(node("rect", { x: "7", y: "7", width: "46", height: "70", rx: "4", fill: "none", stroke: "#aed6f1" }));
  return svg;
}
