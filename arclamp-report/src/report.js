// report.js: the interactive part of arclamp-report's html page (embedded
// in every page at build time). The page holds its data as JSON in the
// element #data (a script of type application/json): {"title", "diff", "metrics",
// "totals", "functions": {name: {ct, wt, excl_wt, ...}}, "arcs": [[parent,
// child, {ct, wt, ...}], ...]}. Names only ever reach the page through
// textContent: nothing from a run becomes markup. The page's only script,
// the same bytes in every page: the web front allows it by the SHA-256 of
// this file (the Makefile writes it into nginx/arclamp.conf.in's
// placeholder), so it must never need an inline handler or eval.
"use strict";
(function () {
  var data = JSON.parse(document.getElementById("data").textContent);
  var metrics = data.metrics;           // e.g. ["wt", "cpu", "mu", "pmu"]
  var sign = 1;                         // -1: the inverted diff
  var sortKey = metrics.length ? "excl_" + metrics[0] : "ct";
  var sortDesc = true;
  var showAll = false;
  var filter = "";
  var LIMIT = 100;

  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }
  function fmt(v) {
    v = v * sign;
    var s = Math.round(v).toLocaleString("en-US");
    return (data.diff && v > 0 ? "+" : "") + s;
  }
  // Calls of a mean run need not be whole: 0.5 calls is not "1" (the
  // callgraph's labels read the same: common/src/numtext.c).
  function fmtCalls(v) {
    v = v * sign;
    var small = v !== 0 && Math.abs(v) < 0.005;
    var s = v.toLocaleString("en-US", small ? {maximumSignificantDigits: 2}
                                            : {maximumFractionDigits: 2});
    return (data.diff && v > 0 ? "+" : "") + s;
  }
  function counted(n, one, many) { return n + " " + (n === 1 ? one : many); }
  function pct(v, total) {
    if (!total) return "";
    return (100 * v / total).toFixed(1) + "%";
  }
  function value(row, key) { return row[key] === undefined ? 0 : row[key]; }

  function header(cols, sortable) {
    var tr = el("tr");
    cols.forEach(function (c) {
      var th = el("th", c.label);
      if (sortable && c.key) {
        th.className = "sortable" + (c.key === sortKey ? " sorted" : "");
        th.dataset.key = c.key;
        th.addEventListener("click", function () {
          if (sortKey === c.key) sortDesc = !sortDesc; else { sortKey = c.key; sortDesc = true; }
          renderFlat();
        });
      }
      tr.appendChild(th);
    });
    return tr;
  }

  function flatColumns() {
    var cols = [{label: "Function", key: "name"}, {label: "Calls", key: "ct"},
                {label: "Calls%"}];
    metrics.forEach(function (m) {
      cols.push({label: "Incl. " + m, key: m}, {label: "Incl. " + m + "%"},
                {label: "Excl. " + m, key: "excl_" + m}, {label: "Excl. " + m + "%"});
    });
    return cols;
  }

  function rowCells(tr, name, row, link) {
    var td = el("td");
    if (link) {
      var a = el("a", name);
      a.href = "#fn=" + encodeURIComponent(name);
      td.appendChild(a);
    } else {
      td.textContent = name;
    }
    tr.appendChild(td);
    tr.appendChild(el("td", fmtCalls(value(row, "ct")), "num"));
    tr.appendChild(el("td", pct(value(row, "ct"), data.totals.ct), "num"));
    metrics.forEach(function (m) {
      tr.appendChild(el("td", fmt(value(row, m)), "num"));
      tr.appendChild(el("td", pct(value(row, m), data.totals[m]), "num"));
      tr.appendChild(el("td", fmt(value(row, "excl_" + m)), "num"));
      tr.appendChild(el("td", pct(value(row, "excl_" + m), data.totals[m]), "num"));
    });
  }

  function renderSummary() {
    var box = document.getElementById("summary");
    box.textContent = "";
    var dl = el("dl");
    metrics.forEach(function (m) {
      dl.appendChild(el("dt", "Total " + m));
      dl.appendChild(el("dd", fmt(data.totals[m])));
    });
    dl.appendChild(el("dt", "Function calls"));
    dl.appendChild(el("dd", fmtCalls(data.totals.ct)));
    box.appendChild(dl);
  }

  function renderFlat() {
    var names = Object.keys(data.functions).filter(function (n) {
      return !filter || n.toLowerCase().indexOf(filter) >= 0;
    });
    names.sort(function (a, b) {
      var x = sortKey === "name" ? a : value(data.functions[a], sortKey) * sign;
      var y = sortKey === "name" ? b : value(data.functions[b], sortKey) * sign;
      var c = x < y ? -1 : (x > y ? 1 : 0);
      if (sortKey === "name") return sortDesc ? -c : c;
      return sortDesc ? -c : c;
    });
    var shown = showAll ? names : names.slice(0, LIMIT);
    var table = document.getElementById("flat");
    table.textContent = "";
    table.appendChild(header(flatColumns(), true));
    shown.forEach(function (n) {
      var tr = el("tr");
      rowCells(tr, n, data.functions[n], true);
      table.appendChild(tr);
    });
    document.getElementById("count").textContent =
      "Showing " + shown.length + " of " + counted(names.length, "function", "functions");
    document.getElementById("toggle").textContent = showAll ? "Top " + LIMIT : "All";
  }

  function relatives(name, side) {
    // side 0: parents (arcs into name), 1: children (arcs out of name)
    return data.arcs.filter(function (a) { return a[side === 0 ? 1 : 0] === name; });
  }

  function relTable(title, arcs, side, own) {
    var box = el("div");
    box.appendChild(el("h3", title + " (" + arcs.length + ")"));
    var table = el("table");
    var cols = [{label: "Function"}, {label: "Calls"}, {label: "Calls%"}];
    metrics.forEach(function (m) {
      cols.push({label: "Incl. " + m}, {label: "Incl. " + m + "%"});
    });
    table.appendChild(header(cols, false));
    arcs.forEach(function (a) {
      var tr = el("tr");
      var td = el("td");
      var other = side === 0 ? a[0] : a[1];
      var link = el("a", other);
      link.href = "#fn=" + encodeURIComponent(other);
      td.appendChild(link);
      tr.appendChild(td);
      tr.appendChild(el("td", fmtCalls(value(a[2], "ct")), "num"));
      tr.appendChild(el("td", pct(value(a[2], "ct"), own.ct), "num"));
      metrics.forEach(function (m) {
        tr.appendChild(el("td", fmt(value(a[2], m)), "num"));
        tr.appendChild(el("td", pct(value(a[2], m), own[m]), "num"));
      });
      table.appendChild(tr);
    });
    box.appendChild(table);
    return box;
  }

  function renderFunction(name) {
    var view = document.getElementById("function");
    view.textContent = "";
    var row = data.functions[name];
    if (!row) { view.hidden = true; document.getElementById("main").hidden = false; return; }
    view.hidden = false;
    document.getElementById("main").hidden = true;
    var back = el("a", "« all functions");
    back.href = "#";
    view.appendChild(back);
    view.appendChild(el("h2", name));
    var table = el("table");
    table.appendChild(header(flatColumns(), false));
    var tr = el("tr");
    rowCells(tr, name, row, false);
    table.appendChild(tr);
    view.appendChild(table);
    var excl = {ct: 0};
    metrics.forEach(function (m) { excl[m] = value(row, "excl_" + m); });
    var own = {ct: value(row, "ct")};
    metrics.forEach(function (m) { own[m] = value(row, m); });
    view.appendChild(el("h3", "Exclusive metrics of " + name));
    var t2 = el("table");
    var cols = [];
    metrics.forEach(function (m) { cols.push({label: "Excl. " + m}, {label: "% of incl."}); });
    t2.appendChild(header(cols, false));
    var r2 = el("tr");
    metrics.forEach(function (m) {
      r2.appendChild(el("td", fmt(excl[m]), "num"));
      r2.appendChild(el("td", pct(excl[m], own[m]), "num"));
    });
    t2.appendChild(r2);
    view.appendChild(t2);
    view.appendChild(relTable("Parents", relatives(name, 0), 0, own));
    view.appendChild(relTable("Children", relatives(name, 1), 1, own));
  }

  function route() {
    var m = /^#fn=(.*)$/.exec(location.hash);
    var name = m ? decodeURIComponent(m[1]) : null;
    if (name !== null && data.functions[name]) renderFunction(name);
    else { document.getElementById("function").hidden = true; document.getElementById("main").hidden = false; }
  }

  document.getElementById("toggle").addEventListener("click", function () {
    showAll = !showAll;
    renderFlat();
  });
  document.getElementById("search").addEventListener("input", function (e) {
    filter = e.target.value.toLowerCase();
    renderFlat();
  });
  var invert = document.getElementById("invert");
  if (data.diff) {
    invert.hidden = false;
    invert.addEventListener("click", function (e) {
      e.preventDefault();
      sign = -sign;
      document.getElementById("diffdir").textContent = sign > 0 ? data.diff.forward : data.diff.backward;
      renderSummary();
      renderFlat();
      route();
    });
    document.getElementById("diffdir").textContent = data.diff.forward;
  }
  window.addEventListener("hashchange", route);
  renderSummary();
  renderFlat();
  route();
})();
