/* arena's tournament report and replay viewer.
 *
 * The page's data is in <script id="arena-data"> (built by arena.league.report); each game's
 * replay frames are in compressed chunks in <script id="arena-replays">, inflated with the
 * browser's own DecompressionStream when a game is opened. Everything from the data is put
 * in the page as text (never as markup). Charts are drawn by uPlot, inlined before this.
 *
 * The viewer shows what arena.referee.frames recorded: every seat's observation after every
 * move (rebuilt from the changed fields) and the events each seat was told. A seat's view
 * is drawn from that seat's observation and events alone; the view of all seats from each
 * seat's own observation side by side. A move's action is shown only to the seat that
 * made it and in the view of all seats (it may name a hidden card).
 *
 * When the page is drawn, <html data-ready="true"> is set; the viewer sets
 * data-ready="true" on #viewer once a game is loaded. window.arena exposes open(number),
 * go(step), view(seat or -1) for scripted use (the browser tests).
 */
(function () {
  "use strict";

  var DATA = JSON.parse(document.getElementById("arena-data").textContent);
  var CHUNKS = JSON.parse(document.getElementById("arena-replays").textContent);
  var GAME_BY_NUMBER = {};
  DATA.games.forEach(function (g) { GAME_BY_NUMBER[g.number] = g; });
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

  /* ---------- page ---------- */
  var main = el("main");
  function build() {
    var top = el("header", { class: "top" },
      el("h1", { text: DATA.kind === "report" ? "Tournament " + DATA.title : "Replays: " + DATA.title }),
      el("div", { class: "meta", text: metaLine() }));
    document.body.appendChild(top);
    document.body.appendChild(main);
    if (DATA.kind === "report") {
      main.appendChild(leaderboardPanel());
      main.appendChild(chartsPanel());
      main.appendChild(crosstablePanel());
      main.appendChild(faultsPanel());
    }
    main.appendChild(gamesPanel());
    document.body.appendChild(Viewer.root);
    window.addEventListener("hashchange", fromHash);
    fromHash();
    document.documentElement.setAttribute("data-ready", "true");
    // Milliseconds from the start of navigation to a drawn page (what bench/report.py reads).
    document.documentElement.setAttribute("data-ready-ms", String(Math.round(performance.now())));
  }
  function metaLine() {
    var parts = [];
    if (DATA.ruleset) parts.push("ruleset " + DATA.ruleset);
    var options = Object.keys(DATA.options || {}).map(function (k) { return k + "=" + JSON.stringify(DATA.options[k]); });
    if (options.length) parts.push("options " + options.join(" "));
    if (DATA.format) parts.push(DATA.format);
    parts.push(DATA.games_total + " games");
    if (DATA.leaderboard && DATA.leaderboard.unrated) parts.push(DATA.leaderboard.unrated + " without a result");
    parts.push("written " + DATA.generated.replace("T", " ").replace("+00:00", " UTC"));
    return parts.join(" \u00b7 ");
  }
  function panel(id, title, note) {
    return el("section", { class: "panel", id: id }, el("h2", { text: title }), note ? el("p", { class: "note", text: note }) : null);
  }

  /* ---------- leaderboard ---------- */
  function leaderboardPanel() {
    var board = DATA.leaderboard;
    var section = panel("leaderboard", "Leaderboard",
      "Elo fitted to every game at once (Bradley-Terry maximum likelihood), with its 95% error; the same figures as arena leaderboard. Click a heading to sort.");
    var twoSeats = board.rows.some(function (r) { return r.wins !== null && r.wins !== undefined; });
    var cols = [
      { key: "rank", label: "#", show: String },
      { key: "bot", label: "bot", text: true, show: String },
      { key: "elo", label: "Elo", show: function (v) { return fixed(v, 1); } },
      { key: "error", label: "\u00b1 95%", show: function (v) { return "\u00b1" + fixed(v, 1); } },
      { key: "games", label: "games", show: String },
      { key: "score", label: "score", show: percent },
      { key: "mean_place", label: "mean place", show: function (v) { return fixed(v, 3); } },
      { key: "los_next", label: "LOS next", show: percent }
    ];
    if (twoSeats) {
      cols.push({ key: "wins", label: "W", show: String }, { key: "draws", label: "D", show: String },
        { key: "losses", label: "L", show: String });
    }
    if (board.solo) {
      cols.push({ key: "win_rate", label: "won vs dummy", show: percent },
        { key: "margin", label: "margin", show: function (v) { return fixed(v, 3); } },
        { key: "margin_error", label: "\u00b1 margin", show: function (v) { return "\u00b1" + fixed(v, 3); } });
    }
    cols.push({ key: "faults", label: "faults", show: String, value: function (r) { return faultTotal(r); } });
    var head = el("tr");
    var body = el("tbody");
    var table = el("table", { class: "grid", id: "leaderboard-table" }, el("thead", null, head), body);
    cols.forEach(function (col, index) {
      head.appendChild(el("th", {
        class: "sortable" + (col.text ? " text" : ""), "data-key": col.key, scope: "col",
        text: col.label, on: { click: function () { sortBy(table, index, this); } }
      }));
    });
    board.rows.forEach(function (row) {
      var tr = el("tr", { "data-bot": row.bot, class: 2 * row.faulted_games > row.games ? "faulty" : null });
      cols.forEach(function (col) {
        var value = col.value ? col.value(row) : row[col.key];
        var td = el("td", {
          class: (col.text ? "text " : "") + col.key, "data-key": col.key,
          "data-value": value === null || value === undefined ? "" : String(value),
          text: value === null || value === undefined ? "" : col.show(value)
        });
        if (col.key === "faults" && value) {
          td.title = Object.keys(row.faults).map(function (k) { return k + " " + row.faults[k]; }).join(", ");
        }
        tr.appendChild(td);
      });
      body.appendChild(tr);
    });
    section.appendChild(table);
    if (board.swiss) section.appendChild(swissTable(board.swiss));
    return section;
  }
  function faultTotal(row) {
    return Object.keys(row.faults).reduce(function (n, k) { return n + row.faults[k]; }, 0);
  }
  function sortBy(table, index, th) {
    var body = table.tBodies[0];
    var descending = th.getAttribute("aria-sort") === "ascending";
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (cell) { cell.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", descending ? "descending" : "ascending");
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = a.cells[index].getAttribute("data-value"), y = b.cells[index].getAttribute("data-value");
      if (x === "" && y === "") return 0;
      if (x === "") return 1;
      if (y === "") return -1;
      var nx = Number(x), ny = Number(y);
      var order = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : x.localeCompare(y);
      return descending ? -order : order;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }
  function swissTable(rows) {
    var head = el("tr", null, ["place", "bot", "points", "games", "byes", "Buchholz", "Sonneborn-Berger"].map(function (h, i) {
      return el("th", { class: i === 1 ? "text" : null, text: h });
    }));
    var body = el("tbody", null, rows.map(function (r) {
      return el("tr", null, [r.place, r.bot, r.points, r.games, r.byes, r.buchholz, r.sonneborn_berger].map(function (v, i) {
        return el("td", { class: i === 1 ? "text" : null, text: String(v) });
      }));
    }));
    return el("div", null, el("h3", { text: "Swiss standings" }), el("table", { class: "grid", id: "swiss-table" }, el("thead", null, head), body));
  }

  /* ---------- charts ---------- */
  function chartsPanel() {
    var section = panel("ratings", "Ratings",
      "Each bot's Elo with its 95% interval, and the ratings fitted to the games so far as the tournament went on (shaded: the 95% interval).");
    var box = el("div", { class: "charts" });
    var eloBox = el("div", { class: "chart", id: "elo-chart" });
    var historyBox = el("div", { class: "chart", id: "history-chart" });
    box.appendChild(eloBox);
    box.appendChild(historyBox);
    section.appendChild(box);
    requestAnimationFrame(function () {
      var width = Math.max(480, Math.min(1200, box.clientWidth || 1000));
      eloChart(eloBox, width);
      historyChart(historyBox, width);
    });
    return section;
  }
  function eloChart(box, width) {
    var rows = DATA.leaderboard.rows.filter(function (r) { return r.games > 0; });
    if (!rows.length) { box.appendChild(el("p", { class: "note", text: "No rated games yet." })); return; }
    var names = rows.map(function (r) { return r.bot; });
    var xs = rows.map(function (_, i) { return i + 1; });
    var low = Math.min.apply(null, rows.map(function (r) { return r.elo - r.error; }));
    var high = Math.max.apply(null, rows.map(function (r) { return r.elo + r.error; }));
    var pad = Math.max(10, (high - low) * 0.08);
    var many = names.length > 8;
    var opts = {
      title: "Elo with 95% interval",
      width: width,
      height: many ? 360 : 300,
      legend: { show: false },
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: false, range: [0.5, names.length + 0.5] }, y: { range: [low - pad, high + pad] } },
      axes: [
        {
          splits: function () { return xs; },
          values: function (u, ticks) { return ticks.map(function (t) { return names[t - 1] || ""; }); },
          rotate: many ? -35 : 0,
          size: many ? 110 : 40,
          grid: { show: false }
        },
        { label: "Elo", size: 60 }
      ],
      series: [{}, { label: "Elo", stroke: PALETTE[0], width: 0, points: { show: true, size: 9, fill: PALETTE[0] }, paths: function () { return null; } }],
      hooks: {
        draw: [function (u) {
          var ctx = u.ctx;
          ctx.save();
          ctx.strokeStyle = PALETTE[0];
          ctx.lineWidth = 2 * devicePixelRatio;
          var cap = 6 * devicePixelRatio;
          rows.forEach(function (r, i) {
            var x = u.valToPos(i + 1, "x", true);
            var y0 = u.valToPos(r.elo - r.error, "y", true);
            var y1 = u.valToPos(r.elo + r.error, "y", true);
            ctx.beginPath();
            ctx.moveTo(x, y0); ctx.lineTo(x, y1);
            ctx.moveTo(x - cap, y0); ctx.lineTo(x + cap, y0);
            ctx.moveTo(x - cap, y1); ctx.lineTo(x + cap, y1);
            ctx.stroke();
          });
          ctx.restore();
        }]
      }
    };
    new uPlot(opts, [xs, rows.map(function (r) { return r.elo; })], box);
  }
  function historyChart(box, width) {
    var history = DATA.history;
    if (!history || !history.points.length) { box.appendChild(el("p", { class: "note", text: "No rated games yet." })); return; }
    var xs = history.points.map(function (p) { return p.games; });
    var data = [xs];
    var series = [{ label: "games" }];
    var bands = [];
    var hidden = [];
    var shade = history.bots.length <= 12;
    history.bots.forEach(function (bot, b) {
      var c = colour(b);
      data.push(history.points.map(function (p) { return p.elo[b]; }));
      series.push({ label: bot, stroke: c, width: 2, points: { show: xs.length < 30 } });
      if (shade) {
        var top = data.length;
        data.push(history.points.map(function (p) { return p.elo[b] + p.error[b]; }));
        data.push(history.points.map(function (p) { return p.elo[b] - p.error[b]; }));
        series.push({ label: bot + " +95%", stroke: "transparent", width: 0, points: { show: false } });
        series.push({ label: bot + " -95%", stroke: "transparent", width: 0, points: { show: false } });
        bands.push({ series: [top, top + 1], fill: c + "1f" });
        hidden.push(top, top + 1);
      }
    });
    var opts = {
      title: "Ratings as the games accumulated",
      width: width,
      height: 340,
      scales: { x: { time: false } },
      axes: [{ label: "games played" }, { label: "Elo", size: 60 }],
      series: series,
      bands: bands
    };
    var u = new uPlot(opts, data, box);
    var legendRows = u.root.querySelectorAll(".u-legend .u-series");
    hidden.forEach(function (i) { if (legendRows[i]) legendRows[i].style.display = "none"; });
  }

  /* ---------- crosstable ---------- */
  function crosstablePanel() {
    var section = panel("crosstable", "Crosstable",
      "Row bot's mean score against the column bot (1 win, \u00bd tie, 0 loss, per pair of seats), over the games they shared.");
    var names = DATA.leaderboard.rows.map(function (r) { return r.bot; });
    var cell = {};
    DATA.leaderboard.pairs.forEach(function (p) { cell[p.bot + "\u0000" + p.opponent] = p; });
    var head = el("tr", null, el("th", { text: "" }), names.map(function (n) { return el("th", { text: n }); }));
    var body = el("tbody");
    names.forEach(function (a) {
      var tr = el("tr", null, el("th", { class: "row", text: a }));
      names.forEach(function (b) {
        if (a === b) { tr.appendChild(el("td", { class: "self" })); return; }
        var p = cell[a + "\u0000" + b];
        if (!p) { tr.appendChild(el("td", { title: a + " and " + b + " did not meet" })); return; }
        tr.appendChild(el("td", {
          style: "background:" + heat(p.score), "data-bot": a, "data-opponent": b,
          "data-score": p.score, "data-games": p.games,
          title: a + " vs " + b + ": " + p.score.toFixed(3) + " over " + p.games + " games"
        }, p.score.toFixed(2), el("small", { text: p.games + " g" })));
      });
      body.appendChild(tr);
    });
    section.appendChild(el("div", { class: "heat-wrap" }, el("table", { class: "heat", id: "crosstable-table" }, el("thead", null, head), body)));
    return section;
  }
  function heat(score) {
    // 0: red, 0.5: white, 1: green
    var t = Math.max(0, Math.min(1, score));
    var from = t < 0.5 ? [214, 48, 49] : [255, 255, 255];
    var to = t < 0.5 ? [255, 255, 255] : [43, 138, 62];
    var f = t < 0.5 ? t / 0.5 : (t - 0.5) / 0.5;
    var rgb = from.map(function (v, i) { return Math.round(v + (to[i] - v) * f); });
    return "rgb(" + rgb.join(",") + ")";
  }

  /* ---------- faults ---------- */
  function faultsPanel() {
    var section = panel("faults", "Faults",
      "Faults by bot and kind; a count shows its games in the list below. In those games the referee's fallback played the faulted bot's moves (marked in the replay).");
    if (!DATA.faults.length) { section.appendChild(el("p", { id: "no-faults", text: "No bot faulted." })); return section; }
    var kinds = [];
    var bots = [];
    var at = {};
    DATA.faults.forEach(function (f) {
      if (kinds.indexOf(f.kind) < 0) kinds.push(f.kind);
      if (bots.indexOf(f.bot) < 0) bots.push(f.bot);
      at[f.bot + "\u0000" + f.kind] = f;
    });
    kinds.sort();
    var head = el("tr", null, el("th", { class: "text", text: "bot" }), kinds.map(function (k) { return el("th", { text: k }); }));
    var body = el("tbody", null, bots.map(function (bot) {
      return el("tr", null, el("td", { class: "text", text: bot }), kinds.map(function (kind) {
        var f = at[bot + "\u0000" + kind];
        if (!f) return el("td", { text: "" });
        return el("td", null, el("button", {
          class: "link count", "data-bot": bot, "data-kind": kind, "data-games": f.games.join(" "),
          title: "in " + f.games.length + " game" + (f.games.length === 1 ? "" : "s") + ": show them",
          text: String(f.count), on: { click: function () { Games.show({ bot: bot, result: "", fault: kind }); } }
        }));
      }));
    }));
    section.appendChild(el("table", { class: "grid", id: "faults-table" }, el("thead", null, head), body));
    return section;
  }

  /* ---------- games list ---------- */
  var Games = (function () {
    var bots = [];
    DATA.games.forEach(function (g) { g.bots.forEach(function (b) { if (bots.indexOf(b) < 0) bots.push(b); }); });
    if (DATA.leaderboard) bots = DATA.leaderboard.rows.map(function (r) { return r.bot; }).concat(bots.filter(function (b) {
      return !DATA.leaderboard.rows.some(function (r) { return r.bot === b; });
    }));
    var kinds = [];
    DATA.games.forEach(function (g) { g.faults.forEach(function (f) { if (kinds.indexOf(f[1]) < 0) kinds.push(f[1]); }); });
    kinds.sort();
    var botSelect = el("select", { id: "filter-bot" }, el("option", { value: "", text: "any bot" }),
      bots.map(function (b) { return el("option", { value: b, text: b }); }));
    var resultSelect = el("select", { id: "filter-result" },
      el("option", { value: "", text: "any result" }),
      el("option", { value: "win", text: "won (first alone)" }),
      el("option", { value: "shared", text: "first place shared" }),
      el("option", { value: "loss", text: "lost (not first)" }),
      el("option", { value: "error", text: "no result (referee error)" }));
    var faultSelect = el("select", { id: "filter-fault" },
      el("option", { value: "", text: "with or without faults" }),
      el("option", { value: "any", text: "with a fault" }),
      el("option", { value: "none", text: "without faults" }),
      kinds.map(function (k) { return el("option", { value: k, text: "fault: " + k }); }));
    var count = el("span", { id: "games-count", class: "note" });
    var body = el("tbody");
    var section;

    function seatsOf(g) {
      var bot = botSelect.value;
      if (!bot) return g.bots.map(function (_, s) { return s; });
      return g.bots.map(function (b, s) { return b === bot ? s : -1; }).filter(function (s) { return s >= 0; });
    }
    function matches(g) {
      var seats = seatsOf(g);
      if (!seats.length) return false;
      var result = resultSelect.value;
      if (result === "error" && g.error === null) return false;
      if (result && result !== "error") {
        if (g.error !== null) return false;
        var firsts = g.ranks.filter(function (r) { return r === 1; }).length;
        var ok = seats.some(function (s) {
          if (result === "win") return g.ranks[s] === 1 && firsts === 1;
          if (result === "shared") return g.ranks[s] === 1 && firsts > 1;
          return g.ranks[s] > 1;
        });
        if (!ok) return false;
      }
      var fault = faultSelect.value;
      var mine = g.faults.filter(function (f) { return seats.indexOf(f[0]) >= 0; });
      if (fault === "any" && !mine.length) return false;
      if (fault === "none" && mine.length) return false;
      if (fault && fault !== "any" && fault !== "none" && !mine.some(function (f) { return f[1] === fault; })) return false;
      return true;
    }
    function row(g) {
      var firsts = g.ranks.filter(function (r) { return r === 1; }).length;
      var result = g.error !== null ? el("span", { class: "tag bad", text: "no result" })
        : firsts === 1 ? el("span", { class: "tag win", text: g.bots[g.ranks.indexOf(1)] + " wins" })
          : el("span", { class: "tag", text: "first place shared" });
      var seats = g.bots.map(function (b, s) {
        return el("span", { class: "tag", title: "seat " + s + ": rank " + g.ranks[s] + ", score " + g.scores[s] },
          b + " " + ordinal(g.ranks[s]) + " (" + g.scores[s] + ")");
      });
      var faults = g.faults.map(function (f) {
        return el("span", { class: "tag bad", text: g.bots[f[0]] + ": " + f[1] + (f[2] === null ? "" : " @" + f[2]) });
      });
      var ref = g.replay === null ? null : DATA.replays.refs[g.replay];
      var open = ref === null ? el("span", { class: "note", text: "not embedded" })
        : typeof ref === "string" ? el("span", { class: "note", title: ref, text: "no replay" })
          : el("button", { class: "link open-replay", text: "replay", on: { click: function () { Viewer.open(g.number); } } });
      return el("tr", { class: "game-row", "data-number": g.number, "data-game": g.game },
        el("td", { text: String(g.number) }), el("td", { class: "text", text: g.game || "#" + g.number }),
        el("td", { class: "text" }, seats), el("td", { class: "text" }, result),
        el("td", { class: "text" }, faults), el("td", null, open));
    }
    function render() {
      clear(body);
      var shown = 0;
      var frag = document.createDocumentFragment();
      DATA.games.forEach(function (g) {
        if (!matches(g)) return;
        shown += 1;
        frag.appendChild(row(g));
      });
      body.appendChild(frag);
      count.textContent = shown + " of " + DATA.games.length + " games";
      count.setAttribute("data-shown", String(shown));
    }
    function panelNode() {
      var note = "Every game in the order it finished. Filters apply to the chosen bot's seats (any seat when no bot is chosen). \"replay\" opens the replay viewer.";
      if (DATA.replays_skipped) note += " " + DATA.replays_skipped + " games have no embedded replay (arena report --replays).";
      section = panel("games", "Games", note);
      [botSelect, resultSelect, faultSelect].forEach(function (s) { s.addEventListener("change", render); });
      section.appendChild(el("div", { class: "filters" },
        el("label", null, "bot", botSelect), el("label", null, "result", resultSelect),
        el("label", null, "faults", faultSelect), count));
      var head = el("tr", null, ["#", "game", "seats (bot, place, score)", "result", "faults", ""].map(function (h, i) {
        return el("th", { class: i > 0 && i < 5 ? "text" : null, text: h });
      }));
      section.appendChild(el("div", { class: "games-wrap" }, el("table", { class: "grid", id: "games-table" }, el("thead", null, head), body)));
      render();
      return section;
    }
    return {
      panel: panelNode,
      show: function (filters) {
        botSelect.value = filters.bot || "";
        resultSelect.value = filters.result || "";
        faultSelect.value = filters.fault || "";
        render();
        if (section) section.scrollIntoView();
      }
    };
  })();
  function gamesPanel() { return Games.panel(); }

  /* ---------- cards ---------- */
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

  /* ---------- the replay viewer ---------- */
  var Viewer = (function () {
    var root = el("div", { id: "viewer", role: "dialog", "aria-modal": "true" });
    var title = el("h2");
    var slider = el("input", { type: "range", min: 0, max: 0, value: 0, id: "v-slider", "aria-label": "move" });
    var stepNo = el("span", { class: "stepno", id: "v-step" });
    var viewSelect = el("select", { id: "v-view", "aria-label": "whose view" });
    var marks = el("div", { class: "marks", id: "v-marks" });
    var tableArea = el("div", { class: "table-area", id: "v-table" });
    var logList = el("ol", { id: "v-log" });
    var playing = null;
    var rep = null, obs = null, step = 0, view = -1, number = null, logItems = [];

    function button(text, label, fn, id) { return el("button", { text: text, title: label, "aria-label": label, id: id, on: { click: fn } }); }
    var playButton = button("\u25b6\u25b6", "play", togglePlay, "v-play");
    root.appendChild(el("div", { class: "frame" },
      el("div", { class: "bar" }, title,
        button("\u00ab", "first move", function () { go(0); }, "v-first"),
        button("\u25c0", "previous move (left arrow)", function () { go(step - 1); }, "v-prev"),
        button("\u25b6", "next move (right arrow)", function () { go(step + 1); }, "v-next"),
        button("\u00bb", "last move", function () { go(rep ? rep.steps - 1 : 0); }, "v-last"),
        playButton,
        el("div", null, slider, marks), stepNo,
        el("label", null, "view ", viewSelect),
        el("button", { class: "close", text: "close \u2715", id: "v-close", on: { click: close } })),
      el("div", { class: "body" }, tableArea, el("div", { class: "log" }, el("h3", { text: "Events", style: "margin:2px 0 6px;font-size:13px" }), logList))));
    slider.addEventListener("input", function () { go(Number(slider.value)); });
    viewSelect.addEventListener("change", function () { setView(Number(viewSelect.value)); });
    document.addEventListener("keydown", function (e) {
      if (!root.classList.contains("open") || !rep) return;
      if (e.target === viewSelect) return;
      var to = null;
      if (e.key === "ArrowRight") to = step + 1;
      else if (e.key === "ArrowLeft") to = step - 1;
      else if (e.key === "Home") to = 0;
      else if (e.key === "End") to = rep.steps - 1;
      else if (e.key === "Escape") { close(); e.preventDefault(); return; }
      if (to === null) return;
      e.preventDefault();
      go(to);
    });

    function inflate(chunk) {
      var binary = atob(CHUNKS[chunk]);
      var bytes = new Uint8Array(binary.length);
      for (var i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
      var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
      return new Response(stream).text().then(JSON.parse);
    }
    var cache = {};
    function load(ref) {
      if (!cache[ref[0]]) cache[ref[0]] = inflate(ref[0]);
      return cache[ref[0]].then(function (games) { return games[ref[1]]; });
    }
    function unpack(r) {
      // Every seat's whole observation after every step: its previous one, updated with
      // the fields all seats now share, then with its own.
      var out = [], prev = null;
      r.ends.forEach(function (_, k) {
        var shared = r.shared[k], own = r.own[k];
        var now = [];
        for (var s = 0; s < r.players; s++) {
          now.push(Object.assign({}, prev ? prev[s] : {}, shared, (own && own[s]) || {}));
        }
        out.push(now);
        prev = now;
      });
      return out;
    }
    function open(gameNumber) {
      var g = GAME_BY_NUMBER[gameNumber];
      if (!g || g.replay === null) return Promise.resolve(false);
      var ref = DATA.replays.refs[g.replay];
      if (typeof ref === "string") return Promise.resolve(false);
      root.removeAttribute("data-ready");
      root.classList.add("open");
      number = gameNumber;
      if (location.hash !== "#game=" + gameNumber) history.replaceState(null, "", "#game=" + gameNumber);
      return load(ref).then(function (r) {
        rep = r;
        obs = unpack(r);
        title.textContent = (r.game || "game " + gameNumber) + " \u00b7 " + r.ruleset + " \u00b7 seed " + r.seed;
        clear(viewSelect);
        viewSelect.appendChild(el("option", { value: -1, text: "all seats" }));
        r.bots.forEach(function (b, s) { viewSelect.appendChild(el("option", { value: s, text: "seat " + s + ": " + b })); });
        r.steps = r.ends.length;
        r.byFallback = {};
        r.fallback.forEach(function (m) { r.byFallback[m] = true; });
        slider.max = String(r.steps - 1);
        clear(marks);
        r.fallback.forEach(function (m) {
          marks.appendChild(el("span", {
            style: "left:" + (100 * (m + 1) / Math.max(1, r.steps - 1)) + "%",
            title: "decision " + m + ": played by the fallback", on: { click: function () { go(m + 1); } }
          }));
        });
        view = -1;
        viewSelect.value = "-1";
        buildLog();
        go(0);
        root.setAttribute("data-ready", "true");
        root.setAttribute("data-game", String(gameNumber));
        return true;
      });
    }
    function close() {
      stopPlay();
      root.classList.remove("open");
      root.removeAttribute("data-ready");
      rep = null;
      number = null;
      if (location.hash) history.replaceState(null, "", location.pathname + location.search);
    }
    function togglePlay() { if (playing) stopPlay(); else startPlay(); }
    function startPlay() {
      if (!rep) return;
      playButton.textContent = "\u275a\u275a";
      playing = setInterval(function () {
        if (step >= rep.steps - 1) stopPlay(); else go(step + 1);
      }, 600);
    }
    function stopPlay() {
      if (playing) clearInterval(playing);
      playing = null;
      playButton.textContent = "\u25b6\u25b6";
    }
    function setView(v) {
      view = v;
      viewSelect.value = String(v);
      root.setAttribute("data-view", String(v));
      buildLog();
      draw();
    }
    function move(k) {
      // Step k > 0 follows move (decision) k - 1.
      var m = k - 1;
      return { decision: m, seat: rep.seats[m], action: rep.actions[m], ms: rep.ms[m], fallback: !!rep.byFallback[m] };
    }
    function seesAction(mv) { return view === -1 || view === mv.seat; }
    function faultOf(seat, decision) {
      var found = null;
      rep.faults.forEach(function (f) {
        if (f.seat === seat && (f.decision === null || f.decision <= decision) && !found) found = f;
      });
      return found;
    }
    function moveText(mv) {
      var who = "seat " + mv.seat + " " + rep.bots[mv.seat];
      var what = seesAction(mv) ? ": " + mv.action : " moves";
      var how = mv.fallback ? " (by the fallback)" : " (" + fixed(mv.ms, 1) + " ms)";
      return mv.decision + ". " + who + what + how;
    }
    function buildLog() {
      clear(logList);
      logItems = [];
      if (!rep) return;
      var start = 0;
      rep.ends.forEach(function (end, k) {
        if (k > 0) {
          var mv = move(k);
          var li = el("li", { class: "move" + (mv.fallback ? " fallback" : ""), "data-step": k, text: moveText(mv) });
          logList.appendChild(li);
          logItems.push(li);
        }
        for (var i = start; i < end; i++) {
          var told = rep.events[i];
          var to = told[1];
          if (view !== -1 && to !== null && to.indexOf(view) < 0) continue;
          var item = el("li", { class: "ev" + (to !== null ? " private" : ""), "data-step": k, text: told[0] });
          logList.appendChild(item);
          logItems.push(item);
        }
        start = end;
      });
    }
    function go(k) {
      if (!rep) return;
      step = Math.max(0, Math.min(rep.steps - 1, k));
      slider.value = String(step);
      root.setAttribute("data-step", String(step));
      root.setAttribute("data-steps", String(rep.steps));
      stepNo.textContent = step === 0 ? "the deal, " + (rep.steps - 1) + " moves"
        : "move " + step + " of " + (rep.steps - 1) + " (decision " + (step - 1) + ")";
      var current = null;
      logItems.forEach(function (li) {
        var s = Number(li.getAttribute("data-step"));
        li.classList.toggle("future", s > step);
        li.classList.toggle("now", s === step);
        if (s === step && !current) current = li;
      });
      if (current) current.scrollIntoView({ block: "nearest" });
      draw();
    }

    /* drawing one step */
    function draw() {
      clear(tableArea);
      var seatObs = obs[step];
      var last = step === rep.steps - 1;
      if (last) tableArea.appendChild(resultBox());
      tableArea.appendChild(stepLine(step));
      var first = seatObs[0];
      var acting = first.to_act;
      // The table (public fields) as the viewing seat sees it; in the view of all seats, as
      // the seat deciding sees it (its drawn card, its pending meld), else seat 0.
      var tableSeat = view !== -1 ? view : (acting !== null && acting !== undefined ? acting : 0);
      var o = seatObs[tableSeat];
      var fam = family(rep.ruleset);
      if (fam === "board") tableArea.appendChild(boardTable(o));
      else if (fam === "odin") tableArea.appendChild(odinTable(o));
      else if (fam === "bested") tableArea.appendChild(bestedTable(o));
      else tableArea.appendChild(soloTable(o));
      var seats = el("div", { class: "seats" });
      for (var s = 0; s < rep.players; s++) seats.appendChild(seatBox(s, seatObs, acting, fam, o));
      tableArea.appendChild(seats);
    }
    function stepLine(k) {
      var line = el("p", { class: "step-line", id: "v-move" });
      if (k === 0) { line.textContent = "The deal: before the first move."; return line; }
      var mv = move(k);
      line.appendChild(document.createTextNode(moveText(mv)));
      if (mv.fallback) {
        var f = faultOf(mv.seat, mv.decision);
        var why = f ? f.kind + (f.decision === null ? " during the handshake" : " at decision " + f.decision) : "a fault";
        // The reason may quote the bot's own (hidden) cards: shown to its seat and to all.
        if (f && seesAction(mv)) why += ": " + f.bot + " " + f.reason;
        line.appendChild(el("span", { class: "fb", text: " \u2014 the fallback played for " + rep.bots[mv.seat] + " after its fault (" + why + ")" }));
      }
      return line;
    }
    function resultBox() {
      var box = el("div", { class: "result", id: "v-result" });
      if (rep.error !== null) {
        box.appendChild(el("h3", { text: "No result" }));
        box.appendChild(el("p", { text: "The referee ended the game: " + rep.error }));
        return box;
      }
      box.appendChild(el("h3", { text: "Final scores" }));
      var order = rep.bots.map(function (_, s) { return s; }).sort(function (a, b) { return rep.ranks[a] - rep.ranks[b] || a - b; });
      var body = el("tbody", null, order.map(function (s) {
        var faulted = rep.faults.filter(function (f) { return f.seat === s; }).map(function (f) { return f.kind; });
        return el("tr", { class: "final", "data-seat": s, "data-score": rep.scores[s], "data-rank": rep.ranks[s] },
          el("td", { text: ordinal(rep.ranks[s]) }), el("td", { text: "seat " + s }), el("td", { text: rep.bots[s] }),
          el("td", { class: "score", text: "score " + rep.scores[s] }),
          el("td", { text: faulted.length ? "faulted: " + faulted.join(", ") + (rep.game_ranks[s] !== rep.ranks[s] ? " (ranked last; the rules ranked it " + ordinal(rep.game_ranks[s]) + ")" : "") : "" }));
      }));
      box.appendChild(el("table", null, body));
      return box;
    }
    function family(ruleset) {
      if (ruleset === "override-classic" || ruleset === "override-original") return "board";
      if (ruleset === "bested") return "bested";
      if (ruleset === "bested-solo") return "solo";
      return "odin";
    }
    function seatBox(s, seatObs, acting, fam, table) {
      var mine = seatObs[s];
      var visible = view === -1 || view === s;
      var box = el("div", { class: "seat" + (acting === s ? " acting" : "") + (view === s ? " viewing" : ""), "data-seat": s });
      var label = fam === "board" ? (s === 0 ? " (red)" : " (black)") : "";
      box.appendChild(el("div", null, el("span", { class: "name", text: "seat " + s + label + ": " + rep.bots[s] }),
        acting === s ? el("span", { class: "tag", text: "to act" }) : null));
      var info = [];
      var hand = el("div", { class: "hand", "data-seat": s });
      if (fam === "board") {
        info.push(table.piles[s] + " cards in the pile");
        if (visible && mine.card) { hand.appendChild(document.createTextNode("drawn: ")); hand.appendChild(card(mine.card, rep.ruleset)); }
      } else if (fam === "solo") {
        if (visible) { add(hand, cards(mine.hand, rep.ruleset)); }
        else add(hand, backs(mine.hand.length, true));
        if (mine.wilds) { hand.appendChild(el("span", { class: "tag", text: mine.wilds + " wild" + (mine.wilds === 1 ? "" : "s") + " (unseen)" })); }
        info.push("total " + mine.bot_total + " vs the dummy's " + mine.dummy_total);
      } else {
        if (visible) {
          add(hand, cards(mine.hand, rep.ruleset));
          if (fam === "bested") add(hand, (mine.wilds || []).map(function (c) { return card(c, rep.ruleset, { wild: true }); }));
        } else {
          add(hand, backs(table.hand_sizes[s], true));
        }
        info.push(table.hand_sizes[s] + " cards");
        if (fam === "odin") info.push("total " + table.totals[s]);
        if (fam === "bested") {
          info.push("round " + table.round_points[s] + " pts, total " + table.totals[s], table.bets_left[s] + " bets left");
          if (table.shed.indexOf(s) >= 0) info.push("shed out");
          else if (table.passed.indexOf(s) >= 0) info.push("passed");
          else if (table.in_trick.indexOf(s) >= 0) info.push("in the trick");
        }
      }
      box.appendChild(hand);
      box.appendChild(el("div", { class: "info", text: info.join(" \u00b7 ") }));
      return box;
    }
    function zone(name, content, id) {
      return el("div", { class: "zone", id: id }, el("h3", { text: name }), content);
    }
    function odinTable(o) {
      var row = el("div", { class: "row" });
      row.appendChild(zone("middle" + (o.middle_by !== null ? " (seat " + o.middle_by + ")" : ""),
        o.middle.length ? cards(o.middle, rep.ruleset) : el("span", { class: "info", text: "empty: a lead" }), "v-middle"));
      if (o.beaten.length) row.appendChild(zone("just beaten (one may be taken back)", cards(o.beaten, rep.ruleset), "v-beaten"));
      row.appendChild(zone("round", el("div", { class: "info" },
        "round " + o.round + " \u00b7 phase " + o.phase + " \u00b7 " + o.passes + " passes" +
        (o.aside ? " \u00b7 " + o.aside + " cards aside" : "") + " \u00b7 totals " + o.totals.join(" / "))));
      return el("div", { class: "felt" }, row);
    }
    function boardTable(o) {
      var rows, cols;
      if (o.box) {
        var top = o.box.top, left = o.box.left, bottom = o.box.bottom, right = o.box.right;
        if (bottom - top < 4) { top -= 1; bottom += 1; }
        if (right - left < 4) { left -= 1; right += 1; }
        rows = range(Math.max(top, o.box.bottom - 4), Math.min(bottom, o.box.top + 4));
        cols = range(Math.max(left, o.box.right - 4), Math.min(right, o.box.left + 4));
      } else if (rep.ruleset === "override-original") {
        rows = [0]; cols = [0];
      } else {
        rows = range(0, 4); cols = range(0, 4);
      }
      var at = {};
      o.board.forEach(function (c) { at[c.row + "," + c.col] = c; });
      var grid = el("div", { class: "board", id: "v-board", style: "grid-template-columns: 22px repeat(" + cols.length + ", 58px)" });
      grid.appendChild(el("div"));
      cols.forEach(function (c) { grid.appendChild(el("div", { class: "coord", text: String(c) })); });
      rows.forEach(function (r) {
        grid.appendChild(el("div", { class: "coord", text: String(r) }));
        cols.forEach(function (c) {
          var cell = at[r + "," + c];
          var sq = el("div", { class: "sq" + (cell ? " own-" + cell.owner : ""), "data-row": r, "data-col": c });
          if (cell) {
            sq.title = "(" + r + ", " + c + "): " + cell.stack.join(" \u2192 ") + " (bottom to top)";
            sq.appendChild(card(cell.stack[cell.stack.length - 1], rep.ruleset));
            if (cell.stack.length > 1) sq.appendChild(el("span", { class: "h", text: "\u00d7" + cell.stack.length }));
          }
          grid.appendChild(sq);
        });
      });
      var row = el("div", { class: "row" });
      row.appendChild(zone("board", grid));
      row.appendChild(zone("piles and discards", el("div", null,
        el("div", { class: "info", text: "red " + o.piles[0] + " left \u00b7 black " + o.piles[1] + " left" }),
        o.discards.length ? el("div", null, cards(o.discards, rep.ruleset)) : el("div", { class: "info", text: "no discards" })), "v-discards"));
      return el("div", { class: "felt" }, row);
    }
    function range(a, b) { var out = []; for (var i = a; i <= b; i++) out.push(i); return out; }
    function meld(play, ruleset) {
      var node = el("span", { class: "meld" });
      if (play.seat !== undefined) node.appendChild(el("span", { class: "who", text: "seat " + play.seat + " " + play.meld }));
      else node.appendChild(el("span", { class: "who", text: play.meld }));
      add(node, cards(play.cards, ruleset));
      (play.wilds || []).forEach(function (rank, i) {
        var printed = play.wild_cards && play.wild_cards[i];
        node.appendChild(printed ? card(printed, ruleset, { wild: true, declared: rank }) : declared(rank));
      });
      return node;
    }
    function bestedTable(o) {
      var row = el("div", { class: "row" });
      row.appendChild(zone("the trick" + (o.trick_leader !== null ? " (led by seat " + o.trick_leader + ")" : ""),
        o.plays.length ? o.plays.map(function (p) { return meld(p, rep.ruleset); }) : el("span", { class: "info", text: "no meld yet" }), "v-plays"));
      if (o.pending) row.appendChild(zone("pending (swap step)", meld(o.pending, rep.ruleset), "v-pending"));
      if (o.takeable.length) row.appendChild(zone("may be taken as wilds", cards(o.takeable, rep.ruleset)));
      row.appendChild(zone("Pass Cards", o.pass_cards.length ? o.pass_cards.map(function (p) {
        var who = p.state === "held" ? " (seat " + p.holder + (p.leaving ? ", leaving" : "") + ")" : "";
        return el("span", { class: "chip " + p.state, "data-pass-card": p.card, text: p.number + " " + p.card.replace(/_/g, " ") + who });
      }) : el("span", { class: "info", text: "none" }), "v-pass-cards"));
      row.appendChild(zone("bets", o.bets.length ? o.bets.map(function (b) {
        return el("span", { class: "chip", text: "seat " + b.owner + " \u2192 seat " + b.on });
      }) : el("span", { class: "info", text: "none" }), "v-bets"));
      row.appendChild(zone("round", el("div", { class: "info" },
        "round " + o.round + " \u00b7 phase " + o.phase + (o.resolving ? " (" + o.resolving.replace(/_/g, " ") + ")" : "") +
        " \u00b7 threshold " + o.threshold + (o.undealt ? " \u00b7 " + o.undealt + " undealt" : ""))));
      return el("div", { class: "felt" }, row);
    }
    function soloTable(o) {
      var row = el("div", { class: "row" });
      row.appendChild(zone("the trick", o.plays.length ? o.plays.map(function (p) { return meld(p, rep.ruleset); })
        : el("span", { class: "info", text: "no meld yet" }), "v-plays"));
      if (o.pending) row.appendChild(zone("pending (swap step)", meld(o.pending, rep.ruleset), "v-pending"));
      row.appendChild(zone("dummy and deck", el("div", null, backs(o.dummy, true),
        el("div", { class: "info", text: o.dummy + " dummy cards \u00b7 " + o.deck + " in the deck \u00b7 a pass draws " + o.draw_on_pass +
          (o.final_trick ? " \u00b7 final trick" : "") }))));
      row.appendChild(zone("round", el("div", { class: "info" },
        "round " + o.round + " of " + o.rounds + " \u00b7 " + o.difficulty + " \u00b7 phase " + o.phase +
        " \u00b7 bot " + o.bot_total + ", dummy " + o.dummy_total)));
      return el("div", { class: "felt" }, row);
    }
    return {
      root: root, open: open, go: go, view: setView, close: close,
      state: function () { return { game: number, step: step, steps: rep ? rep.steps : 0, view: view }; }
    };
  })();

  function fromHash() {
    var m = /^#game=(\d+)$/.exec(location.hash);
    if (m) Viewer.open(Number(m[1]));
  }

  window.arena = { open: Viewer.open, go: Viewer.go, view: Viewer.view, close: Viewer.close, state: Viewer.state, games: Games.show };
  build();
})();
