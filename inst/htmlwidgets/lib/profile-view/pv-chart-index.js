/* The browser view of the R package profile: the time order's index of the
 * runs (pv-chart.js). Per run a value (a depth), and the minima of groups of
 * 16 values, of 16 of those, and so on, so that the next or previous run whose
 * value is below a bound is found in a few steps; the ORs of bits over groups
 * of runs, likewise (the search in merged stretches, pv-chart-merged.js); the
 * table of the call tree's depths that gives the depth two runs share; and
 * each run's furthest stop where a source's runs overlap.
 * Plain JavaScript (ES2019), no library. */
(function (global) {
  "use strict";

  const PV = (global.ProfileView = global.ProfileView || {});

  // ---- the first index after or before one whose value is below a bound ----

  const GROUP = 16;
  // (indices in groups by shifts: a division and a floor per step of the
  // drawing's searches cost more than the reads)
  const SHIFT = 4;

  // The minima of groups of 16 values, of groups of 16 of those, and so on
  // (of the values' type: firstBelow() and lastBelow() read one type).
  function minLevels(values) {
    const levels = [values];
    let at = values;
    while (at.length > 1) {
      const up = new values.constructor(Math.ceil(at.length / GROUP));
      for (let g = 0; g < up.length; g++) {
        const end = Math.min(at.length, (g + 1) * GROUP);
        let m = at[g * GROUP];
        for (let i = g * GROUP + 1; i < end; i++) if (at[i] < m) m = at[i];
        up[g] = m;
      }
      levels.push(up);
      at = up;
    }
    return levels;
  }

  // The first index >= i whose value is below `bound`, or the length.
  function firstBelow(levels, i, bound) {
    const n = levels[0].length;
    let level = 0;
    let at = i;
    for (;;) {
      const v = levels[level];
      if (at >= v.length) return n;
      const end = Math.min(v.length, ((at >> SHIFT) + 1) << SHIFT);
      for (let j = at; j < end; j++) {
        if (v[j] < bound) {
          // down to the first value below the bound in this group
          let k = j;
          for (let l = level; l > 0; l--) {
            const below = levels[l - 1];
            k <<= SHIFT;
            while (below[k] >= bound) k++;
          }
          return k;
        }
      }
      if (level + 1 === levels.length) return n;
      at = (at >> SHIFT) + 1;
      level++;
    }
  }

  // The last index <= i whose value is below `bound`, or -1.
  function lastBelow(levels, i, bound) {
    let level = 0;
    let at = i;
    for (;;) {
      const v = levels[level];
      if (at < 0) return -1;
      const start = (at >> SHIFT) << SHIFT;
      for (let j = at; j >= start; j--) {
        if (v[j] < bound) {
          let k = j;
          for (let l = level; l > 0; l--) {
            const below = levels[l - 1];
            k = Math.min(below.length - 1, (k << SHIFT) + GROUP - 1);
            while (below[k] >= bound) k--;
          }
          return k;
        }
      }
      if (level + 1 === levels.length) return -1;
      at = (at >> SHIFT) - 1;
      level++;
    }
  }

  // The ORs of the bits of runs' leaves (`mask` by node) over groups of 16
  // runs, of groups of 16 of those, and so on (the runs' own bits are not
  // kept: read through their leaves, they cost no pass and no memory).
  function orLevels(leaf, mask) {
    let at = new Int32Array(Math.ceil(leaf.length / GROUP));
    for (let r = 0; r < leaf.length; r++) at[r >> SHIFT] |= mask[leaf[r]];
    const levels = [at];
    while (at.length > 1) {
      const up = new Int32Array(Math.ceil(at.length / GROUP));
      for (let i = 0; i < at.length; i++) up[i >> SHIFT] |= at[i];
      levels.push(up);
      at = up;
    }
    return levels;
  }

  // Whether a run of a .. b (a <= b) has `bit` set (orLevels()): the ends one
  // by one up to whole groups, then the groups one level up.
  function anyBit(leaf, mask, levels, a, b, bit) {
    while (a <= b && a % GROUP !== 0) if (mask[leaf[a++]] & bit) return true;
    while (a <= b && (b + 1) % GROUP !== 0) if (mask[leaf[b--]] & bit) return true;
    for (let level = 0; a <= b; level++) {
      a >>= SHIFT;
      b = ((b + 1) >> SHIFT) - 1;
      const v = levels[level];
      if (level + 1 === levels.length) {
        for (let i = a; i <= b; i++) if (v[i] & bit) return true;
        return false;
      }
      while (a <= b && a % GROUP !== 0) if (v[a++] & bit) return true;
      while (a <= b && (b + 1) % GROUP !== 0) if (v[b--] & bit) return true;
    }
    return false;
  }

  // The depth two nodes of the model share (that of their last common
  // ancestor) in a few steps: its nodes are in depth-first order, so the
  // common ancestor of nodes u < v is the parent of the shallowest node of
  // u + 1 .. v, found with a table of the minimum depths of every stretch of
  // 2^k nodes (a walk up both stacks per run took most of the first drawing).
  function depthTable(depth, Depths) {
    const n = depth.length;
    let levels = 1;
    while (1 << levels <= n) levels++;
    // (level k at k * n: the minimum of depths i .. i + 2^k - 1; of type
    // `Depths`, 16 bits for shallow stacks: 10^5 nodes make 1.7 million)
    const table = new Depths(levels * n);
    table.set(depth);
    for (let k = 1; k < levels; k++) {
      const half = 1 << (k - 1);
      const at = k * n;
      const below = at - n;
      for (let i = 0; i + 2 * half <= n; i++) {
        const x = table[below + i];
        const y = table[below + i + half];
        table[at + i] = x < y ? x : y;
      }
    }
    return table;
  }

  // Per run, the furthest stop of its source's runs up to it (where runs
  // overlap: ChartTree.reachAt()).
  function furthestStops(runs, start) {
    const { source, count, step } = runs;
    const out = new Float64Array(start.length);
    let reach = -Infinity;
    for (let r = 0; r < out.length; r++) {
      const stop = start[r] + count[r] * step[source[r]];
      reach = r === 0 || source[r] !== source[r - 1] || stop > reach ? stop : reach;
      out[r] = reach;
    }
    return out;
  }

  PV.chartIndex = { GROUP, SHIFT, minLevels, firstBelow, lastBelow, orLevels, anyBit, depthTable, furthestStops };
})(typeof window !== "undefined" ? window : this);
