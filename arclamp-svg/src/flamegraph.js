/* flamegraph.js: the interactive part of every flame graph arclamp-svg draws.
 *
 * Behaves like the script flamegraph.pl embeds, so a user cannot tell the
 * two apart: hover a box to read its tooltip in the details bar, click a box
 * to zoom into it (ancestors stay visible, faded, and zoom back out when
 * clicked), search function names with a regular expression (Search button,
 * Ctrl-F or F3; "ic" or Ctrl-I for ignore-case), and keep zoom and search in
 * the URL query (?x=&y=&s=&i=) so a reload or a shared link shows the same
 * view, file:// URLs included.
 *
 * The document comes from svg.c (see svg.h for its shape): the data element
 * #arclamp-settings before this script holds the JSON {fontsize, fontwidth,
 * xpad, inverted, searchcolor, nametype, countname, total}, and <g id="frames"> holds one
 * <g><title/><rect/><text/></g> per box. A box's depth is implied by its rect
 * y only, so zoom works from geometry, exactly as flamegraph.pl's does.
 *
 * Every box's original geometry, fill and label are read once at load, and
 * each zoom is computed from those originals rather than from the current
 * (possibly already zoomed) attributes: zooming twice never accumulates
 * rounding, and unzoom restores the renderer's exact bytes.
 *
 * Plain ES5 plus a few ES2015 library calls Chromium has had for years; no
 * dependencies. svg.c embeds this file in a CDATA section, so it must never
 * contain the sequence that ends one. It is the only script of a graph, the
 * same bytes in all of them: the web front allows it by its SHA-256 (the
 * Makefile writes it into nginx/arclamp.conf.in's placeholder), so it starts
 * itself on load rather than from an onload attribute, which no hash allows.
 */
var init = (function () {
    "use strict";

    var cfg = readSettings();
    function readSettings() {
        var el = document.getElementById("arclamp-settings");
        try {
            var v = el ? JSON.parse(el.textContent) : null;
            return (typeof v === "object" && v !== null) ? v : {};
        } catch (e) {
            return {};   // not a document svg.c wrote: defaults
        }
    }
    function option(name, fallback) {
        return cfg[name] === undefined ? fallback : cfg[name];
    }
    var fontsize = option("fontsize", 12);
    var fontwidth = option("fontwidth", 0.59);
    var xpad = option("xpad", 10);
    var inverted = !!option("inverted", false);
    var searchcolor = option("searchcolor", "rgb(230,0,230)");
    var nametype = option("nametype", "Function:");

    var svg, framesEl, details, unzoomBtn, searchBtn, icBtn, matchedTxt;
    var frames = [];        // one record per box, document order (see readFrame)
    var root = null;        // the record of the "all" box
    var zoomed = null;      // record the view is zoomed into; null: whole graph
    var term = null;        // active search pattern (source text); null: none
    var ignorecase = false;
    var useCounts = true;   // every title carried a sample count (see matched %)
    var started = false;

    /* ---- Reading the document ------------------------------------------ */

    function childByTag(el, tag) {
        for (var c = el.firstElementChild; c; c = c.nextElementSibling) {
            if (c.localName === tag) {
                return c;
            }
        }
        return null;
    }

    /* A box as loaded: its elements, original attribute strings (restored
     * verbatim on unzoom and used as the URL key), parsed geometry, the
     * function name and its sample count, both taken from the title
     * "NAME (1,234 samples, 5.67%)". The name is everything before the LAST
     * " (" since function names may contain " (" themselves. */
    function readFrame(g) {
        var rect = childByTag(g, "rect");
        var title = childByTag(g, "title");
        if (!rect || !title) {
            return null;
        }
        var tip = title.textContent;
        var cut = tip.lastIndexOf(" (");
        var count = NaN;
        if (cut >= 0) {
            var m = /^([0-9][0-9,]*(\.[0-9]+)?([eE][-+]?[0-9]+)?)/.exec(tip.slice(cut + 2));
            if (m) {
                count = parseFloat(m[1].replace(/,/g, ""));
            }
        }
        var text = childByTag(g, "text");
        return {
            g: g, rect: rect, text: text, tip: tip,
            name: cut >= 0 ? tip.slice(0, cut) : tip,
            count: count,
            ox: rect.getAttribute("x"), oy: rect.getAttribute("y"),
            ow: rect.getAttribute("width"),
            x: parseFloat(rect.getAttribute("x")),
            y: parseFloat(rect.getAttribute("y")),
            w: parseFloat(rect.getAttribute("width")),
            fill: rect.getAttribute("fill"),
            tx: text ? text.getAttribute("x") : null,
            label: text ? text.textContent : "",
            state: "",      // "", "parent" or "hide": the class set by zoom
            moved: false,   // geometry or label differ from the originals
            match: false    // function name matches the active search
        };
    }

    // The frame record for the <g> an event target sits in, or null.
    function frameOf(node) {
        while (node && node.parentNode !== framesEl) {
            node = node.parentNode;
        }
        return node && node.arclampFrame ? node.arclampFrame : null;
    }

    function fullWidth() {
        var vb = svg.viewBox && svg.viewBox.baseVal;
        var w = (vb && vb.width) || parseFloat(svg.getAttribute("width"));
        return w > 2 * xpad ? w : root.x + root.w + xpad;
    }

    // Closer to the root than depth y: below it in a flame graph, above it
    // in an icicle graph.
    function upstack(f, y) {
        return inverted ? f.y < y : f.y > y;
    }

    /* ---- Zoom ----------------------------------------------------------- */

    /* The label flamegraph.pl's renderer would give a box this wide: as many
     * characters as fit at the average glyph width, none if fewer than three
     * fit, else cut with "..". Counted in code points: svg.c counts bytes,
     * as flamegraph.pl does, which is the same for ASCII names; for others
     * a byte count would cut characters in two, and a zoomed label is
     * refitted by flamegraph.pl's own script in its own way anyway. */
    function fitLabel(name, w) {
        var chars = Math.floor(w / (fontsize * fontwidth));
        if (chars < 3) {
            return "";
        }
        var cps = Array.from(name);
        if (cps.length <= chars) {
            return name;
        }
        return cps.slice(0, chars - 2).join("") + "..";
    }

    function setState(f, state) {
        if (f.state === state) {
            return;
        }
        if (f.state) {
            f.g.classList.remove(f.state);
        }
        if (state) {
            f.g.classList.add(state);
        }
        f.state = state;
    }

    function place(f, x, w) {
        f.rect.setAttribute("x", x.toFixed(2));
        f.rect.setAttribute("width", w.toFixed(2));
        if (f.text) {   // svg.c always writes one, even when empty
            f.text.setAttribute("x", (x + 3).toFixed(2));
            f.text.textContent = fitLabel(f.name, w);
        }
        f.moved = true;
    }

    function restore(f) {
        if (f.moved) {
            f.rect.setAttribute("x", f.ox);
            f.rect.setAttribute("width", f.ow);
            if (f.text) {
                f.text.setAttribute("x", f.tx);
                f.text.textContent = f.label;
            }
            f.moved = false;
        }
        setState(f, "");
    }

    /* Zoom into box z. Ancestors: on each depth between z and the root, the
     * box overlapping z the most (containment tests with a fudge factor, as
     * flamegraph.pl does, break when x and width are rounded separately);
     * they are stretched to the full width and faded. Descendants: boxes
     * deeper than z whose centre lies inside z, scaled by the zoom ratio.
     * Everything else is hidden. Zooming into the root is a reset. */
    function zoom(z) {
        if (!z || z === root) {
            unzoom();
            return;
        }
        var left = xpad;
        var full = fullWidth() - 2 * xpad;
        var ratio = full / z.w;
        var z0 = z.x, z1 = z.x + z.w;
        var best = {};
        var i, f;
        for (i = 0; i < frames.length; i++) {
            f = frames[i];
            if (upstack(f, z.y)) {
                var overlap = Math.min(f.x + f.w, z1) - Math.max(f.x, z0);
                if (overlap > 0 && (!best[f.y] || overlap > best[f.y].overlap)) {
                    best[f.y] = { f: f, overlap: overlap };
                }
            }
        }
        for (i = 0; i < frames.length; i++) {
            f = frames[i];
            var centre = f.x + f.w / 2;
            if (upstack(f, z.y)) {
                if (best[f.y] && best[f.y].f === f) {
                    place(f, left, full);
                    setState(f, "parent");
                } else {
                    setState(f, "hide");
                }
            } else if (f === z || (f.y !== z.y && centre >= z0 && centre <= z1)) {
                place(f, left + (f.x - z0) * ratio, f.w * ratio);
                setState(f, "");
            } else {
                setState(f, "hide");
            }
        }
        zoomed = z;
        unzoomBtn.classList.remove("hide");
        showMatched();
        saveState();
    }

    function unzoom() {
        for (var i = 0; i < frames.length; i++) {
            restore(frames[i]);
        }
        zoomed = null;
        unzoomBtn.classList.add("hide");
        showMatched();
        saveState();
    }

    /* ---- Search --------------------------------------------------------- */

    function compile(pattern) {
        try {
            return new RegExp(pattern, ignorecase ? "i" : "");
        } catch (e) {
            return null;
        }
    }

    /* Highlights the boxes whose function name matches `pattern`. Returns
     * false, changing nothing, when the pattern is not a valid regex. An
     * empty pattern is no search at all (what cancelling the prompt means). */
    function search(pattern) {
        if (pattern === null || pattern === "") {
            return true;
        }
        var re = compile(pattern);
        if (!re) {
            return false;
        }
        term = pattern;
        for (var i = 0; i < frames.length; i++) {
            var f = frames[i];
            var hit = re.test(f.name);
            if (hit !== f.match) {
                f.rect.setAttribute("fill", hit ? searchcolor : f.fill);
                f.match = hit;
            }
        }
        searchBtn.classList.add("show");
        searchBtn.textContent = "Reset Search";
        showMatched();
        saveState();
        return true;
    }

    function resetSearch() {
        for (var i = 0; i < frames.length; i++) {
            if (frames[i].match) {
                frames[i].rect.setAttribute("fill", frames[i].fill);
                frames[i].match = false;
            }
        }
        term = null;
        searchBtn.classList.remove("show");
        searchBtn.textContent = "Search";
        showMatched();
        saveState();
    }

    /* "Matched: X%": the share of the view covered by matching boxes, a
     * nested match counted once. The view is the zoomed box and its
     * descendants (or the whole graph): like flamegraph.pl, hidden boxes
     * and faded ancestors do not count, and the percentage is relative to
     * the zoomed box. Sorted by x (widest first on ties), a match whose
     * centre falls inside the last counted one is nested in it. Shares
     * are summed in samples from the titles, which is exact where pixel
     * widths are rounded; pixel widths are the fallback. */
    function showMatched() {
        if (term === null) {
            matchedTxt.textContent = " ";
            return;
        }
        var base = zoomed || root;
        var hits = frames.filter(function (f) { return f.match && f.state === ""; });
        hits.sort(function (a, b) { return a.x - b.x || b.w - a.w; });
        var sum = 0, end = -Infinity;
        for (var i = 0; i < hits.length; i++) {
            var f = hits[i];
            if (f.x + f.w / 2 < end) {
                continue;
            }
            sum += useCounts ? f.count : f.w;
            end = f.x + f.w;
        }
        var pct = 100 * sum / (useCounts ? base.count : base.w);
        matchedTxt.textContent = "Matched: " +
            (Math.abs(pct - 100) < 1e-9 ? "100" : pct.toFixed(1)) + "%";
    }

    /* The Search button, Ctrl-F and F3 all toggle: prompt for a pattern, or
     * reset the active search. */
    function searchPrompt() {
        if (term !== null) {
            resetSearch();
            return;
        }
        var pattern = window.prompt("Search function names (regular expression, e.g. ^PDO" +
            (ignorecase ? "; ignoring case" : "") + ")\nCtrl-I toggles ignore-case", "");
        if (pattern !== null && !search(pattern)) {
            window.alert("Not a valid regular expression: " + pattern);
        }
    }

    function toggleIgnorecase() {
        ignorecase = !ignorecase;
        icBtn.classList.toggle("show", ignorecase);
        if (term !== null) {
            search(term);   // rematch; a valid pattern stays valid without "i"
        } else {
            saveState();
        }
    }

    /* ---- State in the URL ----------------------------------------------- */

    /* ?x=&y= are the zoomed box's original rect attributes (as flamegraph.pl
     * writes them), s= the search pattern, i=1 ignore-case. Other query
     * parameters are kept. replaceState, not pushState: zooming is not
     * navigation, the back button should leave the graph. Browsers allow
     * only the query to change on file:// URLs, which is all this does;
     * should one refuse (sandboxed viewers), the graph still works. */
    function saveState() {
        if (!started || !window.history || !history.replaceState) {
            return;
        }
        var p = new URLSearchParams(location.search);
        function put(key, value) {
            if (value === null) {
                p.delete(key);
            } else {
                p.set(key, value);
            }
        }
        put("x", zoomed ? zoomed.ox : null);
        put("y", zoomed ? zoomed.oy : null);
        put("s", term);
        put("i", ignorecase ? "1" : null);
        var q = p.toString();
        try {
            history.replaceState(history.state, "",
                location.pathname + (q ? "?" + q : "") + location.hash);
        } catch (e) {
            // Not allowed here: the view just won't survive a reload.
        }
    }

    function loadState() {
        var p = new URLSearchParams(location.search);
        if (p.get("i") === "1") {
            ignorecase = true;
            icBtn.classList.add("show");
        }
        var x = p.get("x"), y = p.get("y");
        if (x !== null && y !== null) {
            // Exact attribute text first; numbers for links from other tools.
            var want = null, nx = parseFloat(x), ny = parseFloat(y);
            for (var i = 0; i < frames.length && !want; i++) {
                if (frames[i].ox === x && frames[i].oy === y) {
                    want = frames[i];
                }
            }
            for (i = 0; i < frames.length && !want; i++) {
                if (Math.abs(frames[i].x - nx) < 1e-3 && Math.abs(frames[i].y - ny) < 1e-3) {
                    want = frames[i];
                }
            }
            if (want) {
                zoom(want);
            }
        }
        search(p.get("s"));   // an invalid pattern from a link is ignored
    }

    /* ---- Events --------------------------------------------------------- */

    function onClick(e) {
        var f = frameOf(e.target);
        if (f) {
            zoom(f);   // also zooms out when f is a faded ancestor
            return;
        }
        var id = e.target && e.target.id;
        if (id === "unzoom") {
            unzoom();
        } else if (id === "search") {
            searchPrompt();
        } else if (id === "ignorecase") {
            toggleIgnorecase();
        }
    }

    function onOver(e) {
        var f = frameOf(e.target);
        if (f) {
            details.textContent = nametype + " " + f.tip;
        }
    }

    function onOut(e) {
        if (frameOf(e.target)) {
            details.textContent = " ";
        }
    }

    // Ctrl-F and F3 open our search instead of the browser's find, which
    // cannot see into the boxes; Ctrl-I toggles ignore-case.
    function onKey(e) {
        var key = e.key ? e.key.toLowerCase() : "";
        var ctrl = e.ctrlKey || e.metaKey;
        if (key === "f3" || e.keyCode === 114 || (ctrl && (key === "f" || e.keyCode === 70))) {
            e.preventDefault();
            searchPrompt();
        } else if (ctrl && (key === "i" || e.keyCode === 73)) {
            e.preventDefault();
            toggleIgnorecase();
        }
    }

    /* ---- Start ---------------------------------------------------------- */

    function init(evt) {
        if (started) {
            return;
        }
        svg = document.documentElement;
        framesEl = document.getElementById("frames");
        details = document.getElementById("details");
        unzoomBtn = document.getElementById("unzoom");
        searchBtn = document.getElementById("search");
        icBtn = document.getElementById("ignorecase");
        matchedTxt = document.getElementById("matched");
        if (!framesEl || !details || !unzoomBtn || !searchBtn || !icBtn || !matchedTxt) {
            return;   // not a document svg.c wrote; leave it static
        }
        for (var g = framesEl.firstElementChild; g; g = g.nextElementSibling) {
            var f = readFrame(g);
            if (f) {
                g.arclampFrame = f;
                frames.push(f);
                if (!root || (inverted ? f.y < root.y : f.y > root.y) ||
                        (f.y === root.y && f.w > root.w)) {
                    root = f;
                }
                if (!(f.count > 0)) {
                    useCounts = false;
                }
            }
        }
        if (!root) {
            return;
        }
        svg.addEventListener("click", onClick, false);
        svg.addEventListener("mouseover", onOver, false);
        svg.addEventListener("mouseout", onOut, false);
        window.addEventListener("keydown", onKey, false);
        loadState();
        started = true;
        saveState();
    }

    window.addEventListener("load", init, false);
    return init;
})();
