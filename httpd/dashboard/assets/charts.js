// charts.js: the live rates chart. Each poll reads GET /metrics (JSON) and
// takes queen_messages_total by event, summed over tenants; a point is the
// change since the previous poll over the time between them. The last
// five minutes are kept and drawn with uPlot.
"use strict";
window.QD = window.QD || {};
(function (QD) {
  const KEEP = 150; // points: 5 minutes at one per 2 s
  const EVENTS = [["pushed", "push/s", "#2f6fde"], ["delivered", "pop/s", "#e07a10"], ["completed", "ack/s", "#16794a"],
    ["dlq", "dlq/s", "#b00020"]];
  const data = [[]].concat(EVENTS.map(() => []));
  let prev = null, plot = null;

  // counters sums queen_messages_total's samples by event.
  function counters(metrics) {
    const out = {};
    for (const f of (metrics && metrics.metrics) || []) {
      if (f.name !== "queen_messages_total") continue;
      for (const s of f.samples || []) {
        const ev = s.labels && s.labels.event;
        if (ev) out[ev] = (out[ev] || 0) + (s.value || 0);
      }
    }
    return out;
  }

  function ensurePlot() {
    if (plot || typeof uPlot === "undefined") return;
    const el = QD.$("chart-rates");
    plot = new uPlot({
      width: Math.max(400, Math.min(1100, el.clientWidth || 900)), height: 220,
      series: [{}].concat(EVENTS.map(([, label, stroke]) => ({ label, stroke, width: 2, points: { show: false } }))),
      axes: [{}, { label: "msgs/s" }],
      // Until the points span a while, show the last five minutes.
      scales: { x: { time: true, range: (u, min, max) => max - min < 10 ? [max - KEEP * 2, max] : [min, max] } },
    }, data, el);
  }

  // addSample takes one /metrics answer read at now (ms).
  QD.addSample = function (metrics, now) {
    const c = counters(metrics);
    if (prev && now > prev.at) {
      const dt = (now - prev.at) / 1000;
      data[0].push(now / 1000);
      EVENTS.forEach(([ev], i) => data[i + 1].push(Math.max(0, ((c[ev] || 0) - (prev.c[ev] || 0)) / dt)));
      if (data[0].length > KEEP) data.forEach((a) => a.shift());
      ensurePlot();
      if (plot) plot.setData(data);
      QD.$("rates-now").textContent = EVENTS.map(([, label], i) => label + " " + data[i + 1][data[0].length - 1].toFixed(1)).join("   ");
    }
    prev = { c, at: now };
  };

  // chartState tells tests and people what the chart holds: its points
  // and the largest rate of each series.
  QD.chartState = function () {
    const out = { points: data[0].length, drawn: !!plot, series: {} };
    EVENTS.forEach(([ev], i) => { out.series[ev] = { points: data[i + 1].length, max: Math.max(0, ...data[i + 1]) }; });
    if (plot) out.plotPoints = plot.data[0].length;
    return out;
  };
})(window.QD);
