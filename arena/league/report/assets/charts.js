/* arena's pages: the rating charts (uPlot, loaded before this), shared by the report and
 * the ladder's pages. */
(function () {
  "use strict";
  var D = window.ArenaUI.dom;
  var el = D.el, add = D.add, clear = D.clear, fixed = D.fixed, ordinal = D.ordinal;
  var PALETTE = D.PALETTE, colour = D.colour;

  function eloChart(box, width, board) {
    var rows = board.rows.filter(function (r) { return r.games > 0; });
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
  function historyChart(box, width, history) {
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

  window.ArenaUI.charts = { elo: eloChart, history: historyChart };
})();
