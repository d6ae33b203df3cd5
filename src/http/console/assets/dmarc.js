/* global document, window, uPlot */
// The DMARC page's chart with uPlot: aligned versus failing messages per UTC day, from the page's JSON data
// block (never executed, so the CSP needs no exception).
(function () {
  'use strict';
  var block = document.getElementById('dmarc-data');
  var el = document.getElementById('chart-dmarc');
  if (!block || !el || typeof uPlot === 'undefined') return;
  var data = JSON.parse(block.textContent);
  var xs = data.days.map(function (d) { return Date.parse(d + 'T00:00:00Z') / 1000; });
  // Two bars a day side by side: pass to the left of the day, failing to the right.
  var bars = function (align) { return uPlot.paths && uPlot.paths.bars ? uPlot.paths.bars({ size: [0.4, 24], align: align }) : undefined; };
  var series = [
    { },
    { label: 'DMARC pass', stroke: '#16a34a', fill: 'rgba(22,163,74,0.25)', width: 2, paths: bars(-1), points: { show: false } },
    { label: 'Failing', stroke: '#dc2626', fill: 'rgba(220,38,38,0.35)', width: 2, paths: bars(1), points: { show: false } },
  ];
  var width = function () { return Math.max(el.clientWidth, 280); };
  var plot = new uPlot({ width: width(), height: 260, series: series, scales: { x: { time: true } }, axes: [{}, { size: 60 }] }, [xs, data.aligned, data.failing], el);
  window.addEventListener('resize', function () { plot.setSize({ width: width(), height: 260 }); });
})();
