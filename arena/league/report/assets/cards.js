/* arena's pages: cards drawn as text (rank and suit or colour), shared by the report and
 * the ladder's pages. */
(function () {
  "use strict";
  var D = window.ArenaUI.dom;
  var el = D.el, add = D.add, clear = D.clear, fixed = D.fixed, ordinal = D.ordinal;

  var FACES = { 1: "A", 11: "J", 12: "Q", 13: "K" };
  var SUIT_SIGNS = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
  var COLOUR_NAMES = { R: "red", O: "orange", Y: "yellow", G: "green", B: "blue", P: "purple" };
  function card(code, ruleset, extra) {
    var m = /^(\d+)(.)$/.exec(code);
    if (!m) return el("span", { class: "card", "data-code": code, text: code });
    var rank = Number(m[1]), suit = m[2];
    var classes = ["card"];
    var face = String(rank), sign;
    if (suit === "*") {
      classes.push("joker");
      face = "\u2605"; sign = "JOKER";
    } else if (COLOUR_NAMES[suit]) {
      classes.push("odin", "c-" + suit);
      sign = COLOUR_NAMES[suit];
    } else {
      if (ruleset === "override-classic" || ruleset === "override-original") face = FACES[rank] || face;
      sign = SUIT_SIGNS[suit] || suit;
      if (suit === "H" || suit === "D") classes.push("red");
    }
    if (extra && extra.wild) classes.push("wild");
    var node = el("span", { class: classes.join(" "), "data-code": code, title: code + (extra && extra.wild ? " (a wild)" : "") },
      el("span", { class: "r", text: face }), el("span", { class: "s", text: sign }));
    if (extra && extra.declared !== undefined) node.appendChild(el("span", { class: "w", text: "as " + extra.declared }));
    return node;
  }
  function declared(rank) {
    return el("span", { class: "card declared", title: "a wild declared as " + rank, "data-declared": rank },
      el("span", { class: "r", text: String(rank) }), el("span", { class: "s", text: "wild" }));
  }
  function backs(n, small) {
    var out = [];
    for (var i = 0; i < n; i++) out.push(el("span", { class: "card back" + (small ? " small" : "") }));
    return out;
  }
  function cards(codes, ruleset) { return (codes || []).map(function (c) { return card(c, ruleset); }); }

  window.ArenaUI.cards = { card: card, declared: declared, backs: backs, cards: cards };
})();
