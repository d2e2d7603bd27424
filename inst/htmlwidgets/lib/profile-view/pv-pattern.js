/* The browser view of the R package profile, the data layer's second part:
 * patterns. The refinements' patterns (pv-refine.js) and the search box's are
 * Go regular expressions (what the R verbs and go tool pprof take),
 * translated into the browser's with Go's meaning, and what RE2 refuses
 * refused; and which function keys, line keys and tree nodes a refinement's
 * pattern matches. Plain JavaScript (ES2019), no library. */
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

  // ---- what a pattern matches ---------------------------------------------------

  // Whether `re` matches each function key and line key, as the R verbs match
  // frames: the function name, its file, or "file:line"; prune_from matches
  // names only, with their argument lists removed (as Go does). Memoised per
  // pattern: the refinements are applied again from the whole profile at each
  // change, mostly with the same patterns.
  function keyMatches(model, re, verb, pattern) {
    const names = verb === "prune_from";
    const id = (names ? "name " : "frame ") + pattern;
    if (!model.matchCache) model.matchCache = new Map();
    const cache = model.matchCache;
    if (cache.has(id)) return cache.get(id);
    const nKeys = model.nKeys;
    const byName = new Uint8Array(nKeys + 1);
    const byFile = new Uint8Array(nKeys + 1);
    for (let k = 1; k <= nKeys; k++) {
      const name = model.keyLabel(k);
      if (names) {
        const paren = name.indexOf("(");
        byName[k] = re.test(paren > 0 ? name.slice(0, paren) : name) ? 1 : 0;
      } else {
        const file = model.keyFileName(k);
        byName[k] = re.test(name) ? 1 : 0;
        byFile[k] = file && re.test(file) ? 1 : 0;
      }
    }
    const byLine = new Uint8Array(model.lineFile.length);
    if (!names) {
      const fileMatch = model.files.map((f) => (f.name && re.test(f.name) ? 1 : 0));
      for (let l = 0; l < byLine.length; l++) {
        const file = model.files[model.lineFile[l]].name;
        byLine[l] = fileMatch[model.lineFile[l]] || (file && re.test(file + ":" + model.lineNumber[l])) ? 1 : 0;
      }
    }
    if (cache.size >= 64) cache.clear();
    const out = { byName, byFile, byLine };
    cache.set(id, out);
    return out;
  }

  // Which nodes of `tree` match (`km`: keyMatches()). The files and lines of a
  // node's frames are those of its line keys; a node without one has its
  // function's file. The view's nodes merge the frames of a function name: a
  // node with frames of several files or lines matches when one of them
  // does, and the result is marked `approximate` when some of them do not.
  function matchingNodes(tree, km) {
    const { byName, byFile, byLine } = km;
    const out = new Uint8Array(tree.n);
    const g = tree.nodeLines;
    const gStart = g.start;
    const gKeys = g.keys;
    const key = tree.key;
    const n = tree.n;
    let approximate = false;
    let any = false;
    for (let i = 1; i < n; i++) {
      const k = key[i];
      const from = gStart[i];
      const to = gStart[i + 1];
      let m = byName[k];
      if (to === from) m = m || byFile[k];
      if (!m && to > from) {
        let lines = 0;
        for (let j = from; j < to; j++) lines += byLine[gKeys[j]];
        if (lines > 0) {
          m = 1;
          if (lines < to - from) approximate = true;
        }
      }
      out[i] = m;
      if (m) any = true;
    }
    return { matched: out, report: { matched: any, approximate } };
  }

  Object.assign(PV, { goRegExp, exactPattern, keyMatches, matchingNodes });
})(typeof window !== "undefined" ? window : this);
