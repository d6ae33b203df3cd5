/* global document, window, uPlot */
// Statistics charts with uPlot, from the page's JSON data block (never executed, so the CSP needs no
// exception).
(function () {
  'use strict';
  var block = document.getElementById('stats-data');
  if (!block || typeof uPlot === 'undefined') return;
  var data = JSON.parse(block.textContent);
  var xs = data.days.map(function (d) { return Date.parse(d + 'T00:00:00+03:00') / 1000; });
  var colors = ['#2563eb', '#16a34a', '#dc2626', '#9333ea', '#ea580c', '#0891b2'];
  function draw(id, names, columns, opts) {
    var el = document.getElementById(id);
    if (!el) return;
    var width = Math.max(el.clientWidth, 280);
    var series = [{}].concat(names.map(function (n, i) { return { label: n, stroke: colors[i % colors.length], width: 2 }; }));
    var plot = new uPlot(Object.assign({ width: width, height: 260, series: series, scales: { x: { time: true } }, axes: [{}, { size: 50 }] }, opts || {}), [xs].concat(columns), el);
    window.addEventListener('resize', function () { plot.setSize({ width: Math.max(el.clientWidth, 280), height: 260 }); });
  }
  var names = Object.keys(data.series);
  draw('chart-volume', names, names.map(function (n) { return data.series[n]; }));
  draw('chart-rate', ['Bounce rate %'], [data.bounceRate]);
  if (data.inbound) {
    var inNames = Object.keys(data.inbound);
    draw('chart-inbound', inNames, inNames.map(function (n) { return data.inbound[n]; }));
  }
})();
