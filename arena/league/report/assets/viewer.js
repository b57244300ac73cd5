/* arena's replay viewer, shared by the report and the ladder's game pages.
 *
 * It shows what arena.referee.frames recorded: every seat's observation after every move
 * (rebuilt from the changed fields) and the events each seat was told. A seat's view is
 * drawn from that seat's observation and events alone; the view of all seats from each
 * seat's own observation side by side. A move's action is shown only to the seat that
 * made it and in the view of all seats (it may name a hidden card).
 *
 * ArenaUI.viewer(load) makes one: load(key) gives a promise of a game's frames (or null when
 * it has none). Its root element goes into the page; open(key) loads and shows a game and
 * sets data-ready="true" on the root once it is drawn.
 */
(function () {
  "use strict";
  var D = window.ArenaUI.dom;
  var el = D.el, add = D.add, clear = D.clear, fixed = D.fixed, ordinal = D.ordinal;
  var C = window.ArenaUI.cards;
  var card = C.card, declared = C.declared, backs = C.backs, cards = C.cards;

  window.ArenaUI.viewer = function (loadGame) {
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
      var loading = loadGame(gameNumber);
      if (!loading) return Promise.resolve(false);
      root.removeAttribute("data-ready");
      root.classList.add("open");
      number = gameNumber;
      if (location.hash !== "#game=" + gameNumber) history.replaceState(null, "", "#game=" + gameNumber);
      return loading.then(function (r) {
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
  };
})();
