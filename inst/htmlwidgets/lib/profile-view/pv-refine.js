/* The browser view of the R package profile, the data layer's second part:
 * refinements. Patterns are Go regular expressions (what the R verbs and go
 * tool pprof take), translated into the browser's; the verbs focus, ignore,
 * hide, show and prune_from are applied to the merged call tree of the Model
 * (pv-data.js), in order, and the samples in time order follow their nodes.
 * No drawing here: the views read the refined Model as they read the whole one.
 * Plain JavaScript (ES2019), no library. */
(function (global) {
  "use strict";

  const PV = (global.ProfileView = global.ProfileView || {});

  // ---- Go regular expressions --------------------------------------------------

  // The POSIX classes of Go's syntax, as ranges of a bracket expression.
  const POSIX = {
    alnum: "0-9A-Za-z",
    alpha: "A-Za-z",
    ascii: "\\x00-\\x7F",
    blank: "\\t ",
    cntrl: "\\x00-\\x1F\\x7F",
    digit: "0-9",
    graph: "!-~",
    lower: "a-z",
    print: " -~",
    punct: "!-\\/:-@\\[-`{-~",
    space: "\\t\\n\\v\\f\\r ",
    upper: "A-Z",
    word: "0-9A-Za-z_",
    xdigit: "0-9A-Fa-f"
  };
  // Go's \s is ASCII; the browser's is Unicode.
  const SPACE = "\\t\\n\\f\\r ";
  // Characters that must be escaped to stand for themselves in the browser's
  // syntax (with the `u` flag, only these may follow a backslash).
  const SYNTAX = "^$\\.*+?()[]{}|/";

  function hex(c) {
    const code = c.codePointAt(0);
    return code <= 0xff ? "\\x" + code.toString(16).padStart(2, "0") : "\\u{" + code.toString(16) + "}";
  }

  function literal(text) {
    return Array.from(text, (c) => (SYNTAX.indexOf(c) >= 0 || /[-\s]/.test(c) ? hex(c) : c)).join("");
  }

  function refuse(what) {
    const e = new Error("not a Go regular expression (RE2 has no " + what + ")");
    e.name = "PatternError";
    throw e;
  }

  // A Go regular expression (RE2 syntax, what the R verbs take) as a RegExp
  // with Go's meaning: `.` a character, \d \w \s \b ASCII, (?i) Unicode case
  // folding, \Q...\E literal text, \pL, [[:alpha:]]; what RE2 refuses
  // (back-references, look-around, atomic groups, possessive repetitions,
  // more than 1000 repetitions) is refused.
  function goRegExp(pattern) {
    if (typeof pattern !== "string" || pattern === "") refuse("empty pattern");
    let flags = "u";
    let at = 0;
    const lead = /^\(\?([imsU]+)\)/.exec(pattern);
    if (lead) {
      if (lead[1].indexOf("U") >= 0) refuse("ungreedy flag in the page");
      for (const f of lead[1]) if (flags.indexOf(f) < 0) flags += f;
      at = lead[0].length;
    }
    let out = "";
    let inClass = false;
    while (at < pattern.length) {
      const c = pattern[at];
      if (c === "\\") {
        const d = pattern[at + 1];
        if (d === undefined) refuse("trailing backslash");
        if (d === "Q") {
          const stop = pattern.indexOf("\\E", at + 2);
          const text = pattern.slice(at + 2, stop < 0 ? pattern.length : stop);
          out += literal(text);
          at = stop < 0 ? pattern.length : stop + 2;
          continue;
        }
        if (/[1-9]/.test(d)) refuse("back-references (\\" + d + ")");
        if (d === "k") refuse("named back-references");
        if (d === "C") refuse("\\C in the page");
        if (d === "z") out += "(?![^])";
        else if (d === "A") out += "(?<![^])";
        else if (d === "s") out += inClass ? SPACE : "[" + SPACE + "]";
        else if (d === "S" && !inClass) out += "[^" + SPACE + "]";
        else if (d === "p" || d === "P") {
          let name = pattern[at + 2];
          let len = 3;
          if (name === "{") {
            const close = pattern.indexOf("}", at + 3);
            if (close < 0) refuse("unclosed \\p{");
            name = pattern.slice(at + 3, close);
            len = close - at + 1;
          }
          const negate = name[0] === "^";
          if (negate) name = name.slice(1);
          // general categories (L, Lu) as they are; scripts (Greek) by name
          const prop = /^[A-Z][a-z]?$/.test(name) || name === "Any" ? name : "Script=" + name;
          out += (negate !== (d === "P") ? "\\P{" : "\\p{") + prop + "}";
          at += len;
          continue;
        } else if (d === "x" && pattern[at + 2] === "{") {
          const close = pattern.indexOf("}", at + 3);
          if (close < 0) refuse("unclosed \\x{");
          out += "\\u{" + pattern.slice(at + 3, close) + "}";
          at = close + 1;
          continue;
        } else if (/[!-/:-@[-`{-~]/.test(d) && SYNTAX.indexOf(d) < 0) out += hex(d);
        else out += "\\" + d;
        at += 2;
        continue;
      }
      if (inClass) {
        if (c === "[" && pattern[at + 1] === ":") {
          const close = pattern.indexOf(":]", at + 2);
          const name = close < 0 ? "" : pattern.slice(at + 2, close);
          if (!Object.prototype.hasOwnProperty.call(POSIX, name)) refuse("class [:" + name + ":] in the page");
          out += POSIX[name];
          at = close + 2;
          continue;
        }
        if (c === "]") inClass = false;
        out += c === "[" || c === "/" ? "\\" + c : c;
        at++;
        continue;
      }
      if (c === "[") {
        inClass = true;
        out += c;
        at++;
        // a ] first in a class stands for itself in Go
        if (pattern[at] === "^") out += pattern[at++];
        if (pattern[at] === "]") {
          out += "\\]";
          at++;
        }
        continue;
      }
      if (c === "(" && pattern[at + 1] === "?") {
        const rest = pattern.slice(at + 2);
        if (/^(=|!|<=|<!)/.test(rest)) refuse("look-around");
        if (rest[0] === ">") refuse("atomic groups");
        if (rest.startsWith("P<")) {
          out += "(?<";
          at += 4;
          continue;
        }
        if (/^[imsU-]+\)/.test(rest)) refuse("flags inside the pattern in the page (put them first)");
        if (/^[imsU-]+:/.test(rest) && rest.indexOf("U") >= 0 && rest.indexOf("U") < rest.indexOf(":")) {
          refuse("ungreedy flag in the page");
        }
      }
      if ((c === "*" || c === "+" || c === "?" || c === "}") && pattern[at + 1] === "+") {
        refuse("possessive repetitions");
      }
      if (c === "{") {
        const count = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(at));
        if (count && (+count[1] > 1000 || (count[3] && +count[3] > 1000))) refuse("more than 1000 repetitions");
        if (!count) {
          // a { that starts no repetition stands for itself in Go
          out += "\\{";
          at++;
          continue;
        }
      }
      if (c === "}" && !/\{\d+(,\d*)?$/.test(pattern.slice(0, at))) {
        out += "\\}";
        at++;
        continue;
      }
      out += c === "/" ? "\\/" : c;
      at++;
    }
    return new RegExp(out, flags);
  }

  // A function name as a pattern that matches it whole.
  function exactPattern(name) {
    return "^" + name.replace(/[\\.+*?()|[\]{}^$]/g, "\\$&") + "$";
  }

  // ---- refinements -----------------------------------------------------------

  const VERBS = ["focus", "ignore", "hide", "show", "prune_from"];

  // Which nodes of `tree` match `re`, as the R verbs match frames: the
  // function name, its file, or "file:line" (the files and lines of a node's
  // frames are those of its line keys; a node without one has its function's
  // file); prune_from matches names only, with their argument lists removed
  // (as Go does). The view's nodes merge the frames of a function name: a
  // node with frames of several files or lines matches when one of them
  // does, and the result is marked `approximate` when some of them do not.
  function matchingNodes(model, tree, re, verb) {
    const nKeys = model.nKeys;
    const byName = new Uint8Array(nKeys + 1);
    const byFile = new Uint8Array(nKeys + 1);
    for (let k = 1; k <= nKeys; k++) {
      const name = model.keyLabel(k);
      if (verb === "prune_from") {
        const paren = name.indexOf("(");
        byName[k] = re.test(paren > 0 ? name.slice(0, paren) : name) ? 1 : 0;
      } else {
        const file = model.keyFileName(k);
        byName[k] = re.test(name) ? 1 : 0;
        byFile[k] = file && re.test(file) ? 1 : 0;
      }
    }
    const byLine = new Uint8Array(model.lineFile.length);
    if (verb !== "prune_from") {
      const fileMatch = model.files.map((f) => (f.name && re.test(f.name) ? 1 : 0));
      for (let l = 0; l < byLine.length; l++) {
        const file = model.files[model.lineFile[l]].name;
        byLine[l] = fileMatch[model.lineFile[l]] || (file && re.test(file + ":" + model.lineNumber[l])) ? 1 : 0;
      }
    }
    const out = new Uint8Array(tree.n);
    const g = tree.nodeLines;
    let approximate = false;
    for (let i = 1; i < tree.n; i++) {
      const k = tree.key[i];
      let m = byName[k];
      if (g.start[i + 1] === g.start[i]) m = m || byFile[k];
      let lines = 0;
      for (let j = g.start[i]; !byName[k] && j < g.start[i + 1]; j++) lines += byLine[g.keys[j]];
      if (lines > 0) {
        m = 1;
        if (lines < g.start[i + 1] - g.start[i]) approximate = true;
      }
      out[i] = m;
    }
    return { matched: out, approximate };
  }

  // One verb applied to `tree` ({n, parent, key, line, values, nodeLines}):
  // each node's stack becomes a new stack (or none), the stacks are merged
  // into a new tree in depth-first order (siblings by key), and `map` says
  // where the samples of each node went (-1: dropped).
  function applyVerb(tree, matched, verb) {
    const n = tree.n;
    const tParent = [0];
    const tKey = [0];
    const tLine = [tree.line[0]];
    const tLines = [null];
    const children = new Map();
    const width = 4294967296;
    const child = (p, i) => {
      const id = p * width + tree.key[i];
      let c = children.get(id);
      if (c === undefined) {
        c = tParent.length;
        children.set(id, c);
        tParent.push(p);
        tKey.push(tree.key[i]);
        tLine.push(tree.line[i]);
        tLines.push(null);
      } else if (tLine[c] !== tree.line[i]) {
        tLine[c] = 0;
      }
      const g = tree.nodeLines;
      if (g.start[i + 1] > g.start[i]) {
        if (!tLines[c]) tLines[c] = new Set();
        for (let j = g.start[i]; j < g.start[i + 1]; j++) tLines[c].add(g.keys[j]);
      }
      return c;
    };
    const pos = new Int32Array(n);
    const dest = new Int32Array(n);
    const onPath = new Uint8Array(n);
    const last = new Int32Array(n).fill(-1);
    dest[0] = verb === "focus" ? -1 : 0;
    for (let i = 1; i < n; i++) {
      const p = tree.parent[i];
      const m = matched[i];
      onPath[i] = onPath[p] | m;
      if (verb === "hide") pos[i] = m ? pos[p] : child(pos[p], i);
      else if (verb === "show") pos[i] = m ? child(pos[p], i) : pos[p];
      else pos[i] = child(pos[p], i);
      last[i] = m ? i : last[p];
      if (verb === "focus") dest[i] = onPath[i] ? pos[i] : -1;
      else if (verb === "ignore") dest[i] = onPath[i] ? -1 : pos[i];
      else if (verb === "prune_from") dest[i] = last[i] >= 0 ? pos[last[i]] : pos[i];
      else dest[i] = pos[i];
    }
    return finishTree(tree, { tParent, tKey, tLine, tLines }, dest);
  }

  // The trie as a tree: nodes that received samples and their ancestors, in
  // depth-first order with siblings by key; values summed from the samples.
  function finishTree(tree, trie, dest) {
    const m = trie.tParent.length;
    const alive = new Uint8Array(m);
    alive[0] = 1;
    for (let i = 0; i < tree.n; i++) {
      for (let c = dest[i]; c > 0 && !alive[c]; c = trie.tParent[c]) alive[c] = 1;
    }
    const kids = new Array(m);
    for (let c = 1; c < m; c++) {
      if (!alive[c]) continue;
      const p = trie.tParent[c];
      (kids[p] || (kids[p] = [])).push(c);
    }
    const order = [];
    const todo = [0];
    while (todo.length) {
      const c = todo.pop();
      order.push(c);
      const list = kids[c];
      if (!list) continue;
      list.sort((a, b) => trie.tKey[b] - trie.tKey[a]);
      for (const k of list) todo.push(k);
    }
    const size = order.length;
    const index = new Int32Array(m).fill(-1);
    order.forEach((c, i) => {
      index[c] = i;
    });
    const parent = Int32Array.from(order, (c) => (c === 0 ? 0 : index[trie.tParent[c]]));
    const map = Int32Array.from(dest, (c) => (c < 0 ? -1 : index[c]));
    const values = tree.values.map((v) => {
      const out = {
        totalPos: new Float64Array(size),
        totalNeg: new Float64Array(size),
        selfPos: new Float64Array(size),
        selfNeg: new Float64Array(size)
      };
      for (let i = 0; i < tree.n; i++) {
        if (map[i] < 0) continue;
        out.selfPos[map[i]] += v.selfPos[i];
        out.selfNeg[map[i]] += v.selfNeg[i];
      }
      out.totalPos.set(out.selfPos);
      out.totalNeg.set(out.selfNeg);
      for (let i = size - 1; i > 0; i--) {
        out.totalPos[parent[i]] += out.totalPos[i];
        out.totalNeg[parent[i]] += out.totalNeg[i];
      }
      return out;
    });
    const start = new Int32Array(size + 1);
    const keys = [];
    order.forEach((c, i) => {
      const set = trie.tLines[c];
      if (set) for (const k of Array.from(set).sort((a, b) => a - b)) keys.push(k);
      start[i + 1] = keys.length;
    });
    return {
      tree: {
        n: size,
        parent,
        key: Int32Array.from(order, (c) => trie.tKey[c]),
        line: Int32Array.from(order, (c) => trie.tLine[c]),
        values,
        nodeLines: { start, keys: Int32Array.from(keys) }
      },
      map
    };
  }

  // The tree the Model was made with.
  function baseTree(model) {
    if (!model.base) {
      model.base = {
        n: model.n,
        parent: model.parent,
        key: model.key,
        line: model.line,
        values: model.values,
        nodeLines: model.nodeLines
      };
    }
    return model.base;
  }

  // Refines the model by `steps` ([{verb, pattern}], in order, each applied
  // to the result of those before, as verbs piped in R), starting from the
  // whole profile each time; no steps gives the whole profile back. Returns
  // per step {matched: whether the pattern matched a frame, approximate:
  // whether it matched some frames of a node and not others (a file or line
  // pattern where frames of one function name are in several files or lines;
  // see matchingNodes())}.
  // Throws a PatternError for a pattern that is not a Go regular expression.
  PV.Model.prototype.refine = function (steps) {
    const patterns = steps.map((s) => {
      if (VERBS.indexOf(s.verb) < 0) throw new Error("profile view: unknown verb " + s.verb);
      return goRegExp(s.pattern);
    });
    let tree = baseTree(this);
    let map = null;
    const report = [];
    steps.forEach((s, j) => {
      const match = matchingNodes(this, tree, patterns[j], s.verb);
      report.push({ matched: match.matched.indexOf(1) >= 0, approximate: match.approximate });
      const next = applyVerb(tree, match.matched, s.verb);
      map = map ? Int32Array.from(map, (c) => (c < 0 ? -1 : next.map[c])) : next.map;
      tree = next.tree;
    });
    this.n = tree.n;
    this.parent = tree.parent;
    this.key = tree.key;
    this.line = tree.line;
    this.values = tree.values;
    this.nodeLines = tree.nodeLines;
    const shape = PV.treeShape(tree.parent);
    this.end = shape.end;
    this.depth = shape.depth;
    this.nodeMap = map;
    this.refinedRuns = null;
    this.chartTree = null;
    this.cache = {};
    this.steps = steps.slice();
    return report;
  };

  // The runs in time order whose samples the refinements kept, their leaves
  // the nodes of the refined tree (`keep`: their rows in the whole runs).
  PV.Model.prototype.keptRuns = function (all) {
    if (!this.refinedRuns) {
      const keep = [];
      for (let r = 0; r < all.leaf.length; r++) if (this.nodeMap[all.leaf[r]] >= 0) keep.push(r);
      const pick = (a) => a.constructor.from(keep, (r) => a[r]);
      this.refinedRuns = {
        keep: Int32Array.from(keep),
        all,
        leaf: Int32Array.from(keep, (r) => this.nodeMap[all.leaf[r]]),
        count: pick(all.count),
        time: pick(all.time),
        source: pick(all.source),
        step: all.step,
        weight: all.weight
      };
    }
    return this.refinedRuns;
  };

  // The R code that gives the refined profile from `x`.
  function rCode(steps, name) {
    const quote = (s) => '"' + s.replace(/\\/g, "\\\\").replace(/"/g, '\\"') + '"';
    return [name || "x"].concat(steps.map((s) => "profile_" + s.verb + "(" + quote(s.pattern) + ")")).join(" |>\n  ");
  }

  Object.assign(PV, { goRegExp, exactPattern, rCode, VERBS });
})(typeof window !== "undefined" ? window : this);
