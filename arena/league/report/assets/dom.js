/* arena's pages: small DOM helpers shared by the report and the ladder's pages.
 *
 * Everything from data goes into a page as text (text nodes, attribute values), never as
 * markup: el() has no way to set innerHTML.
 */
(function () {
  "use strict";
  var PALETTE = ["#2456c8", "#d9480f", "#2b8a3e", "#c2255c", "#7048e8", "#1098ad",
    "#e67700", "#5c940d", "#a61e4d", "#364fc7", "#087f5b", "#862e9c"];

  /* ---------- small DOM helpers: text only, never markup ---------- */
  function el(tag, attrs) {
    var node = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (key) {
        var value = attrs[key];
        if (value === null || value === undefined || value === false) return;
        if (key === "text") node.textContent = String(value);
        else if (key === "class") node.className = value;
        else if (key === "on") Object.keys(value).forEach(function (ev) { node.addEventListener(ev, value[ev]); });
        else if (key === "style") node.setAttribute("style", value);
        else node.setAttribute(key, value === true ? "" : String(value));
      });
    }
    for (var i = 2; i < arguments.length; i++) add(node, arguments[i]);
    return node;
  }
  function add(node, child) {
    if (child === null || child === undefined || child === false) return;
    if (Array.isArray(child)) { child.forEach(function (c) { add(node, c); }); return; }
    node.appendChild(typeof child === "string" || typeof child === "number"
      ? document.createTextNode(String(child)) : child);
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); return node; }
  function fixed(value, digits) { return value === null || value === undefined ? "" : Number(value).toFixed(digits); }
  function percent(value) { return value === null || value === undefined ? "" : (value * 100).toFixed(2) + "%"; }
  function ordinal(n) {
    var s = (n % 100 >= 10 && n % 100 <= 20) ? "th" : ({ 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th");
    return n + s;
  }
  function colour(i) { return PALETTE[i % PALETTE.length]; }
  function counted(n, word, plural) {
    return n + " " + (n === 1 ? word : (plural || word + "s"));
  }

  window.ArenaUI = window.ArenaUI || {};
  window.ArenaUI.dom = {
    el: el, add: add, clear: clear, fixed: fixed, percent: percent, ordinal: ordinal,
    colour: colour, counted: counted, PALETTE: PALETTE
  };
})();
