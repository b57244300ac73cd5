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
  var D = window.ArenaUI.dom;
  var el = D.el, add = D.add, clear = D.clear, fixed = D.fixed, ordinal = D.ordinal;
  var percent = D.percent, colour = D.colour, PALETTE = D.PALETTE;

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
      window.ArenaUI.charts.elo(eloBox, width, DATA.leaderboard);
      window.ArenaUI.charts.history(historyBox, width, DATA.history);
    });
    return section;
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

  /* ---------- the replay viewer ---------- */
  function inflate(chunk) {
    var binary = atob(CHUNKS[chunk]);
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
    return new Response(stream).text().then(JSON.parse);
  }
  var cache = {};
  function loadGame(gameNumber) {
    var g = GAME_BY_NUMBER[gameNumber];
    if (!g || g.replay === null) return null;
    var ref = DATA.replays.refs[g.replay];
    if (typeof ref === "string") return null;
    if (!cache[ref[0]]) cache[ref[0]] = inflate(ref[0]);
    return cache[ref[0]].then(function (games) { return games[ref[1]]; });
  }
  var Viewer = window.ArenaUI.viewer(loadGame);

  function fromHash() {
    var m = /^#game=(\d+)$/.exec(location.hash);
    if (m) Viewer.open(Number(m[1]));
  }

  window.arena = { open: Viewer.open, go: Viewer.go, view: Viewer.view, close: Viewer.close, state: Viewer.state, games: Games.show };
  build();
})();
