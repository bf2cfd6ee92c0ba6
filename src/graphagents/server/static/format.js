// Formatting for people: numbers, amounts in won, times, SQL layout, CSV. No DOM state here.
"use strict";

window.GA = window.GA || {};

(() => {
  const numberFmt = new Intl.NumberFormat("ko-KR", { maximumFractionDigits: 2 });
  const intFmt = new Intl.NumberFormat("ko-KR", { maximumFractionDigits: 0 });

  function isNumber(v) { return typeof v === "number" && Number.isFinite(v); }

  /** A number as people read it: 703,033.33; integers without decimals. */
  function number(v) {
    if (!isNumber(v)) return v === null || v === undefined ? "" : String(v);
    return Number.isInteger(v) ? intFmt.format(v) : numberFmt.format(v);
  }

  /** An amount in won: 5000000 -> "5,000,000원". */
  function won(v) {
    const n = typeof v === "string" && /^-?\d+(\.\d+)?$/.test(v.trim()) ? Number(v) : v;
    return isNumber(n) ? `${intFmt.format(n)}원` : String(v ?? "");
  }

  function count(n, unit) { return `${intFmt.format(n)}${unit}`; }

  /** "2026-11-23T14:57:41+00:00" -> "11월 23일 23:57" (local time; the year when it is not this one). */
  function when(iso) {
    const d = new Date(iso);
    if (Number.isNaN(d.getTime())) return "";
    const now = new Date();
    const opts = { month: "long", day: "numeric", hour: "2-digit", minute: "2-digit", hour12: false };
    if (d.getFullYear() !== now.getFullYear()) opts.year = "numeric";
    return new Intl.DateTimeFormat("ko-KR", opts).format(d);
  }

  function duration(ms) {
    if (!Number.isFinite(ms)) return "";
    if (ms < 1) return "<1 ms";
    if (ms < 1000) return `${Math.round(ms)} ms`;
    return `${(ms / 1000).toFixed(ms < 10000 ? 2 : 1)} s`;
  }

  /** Any JSON value as one short readable line (for generic state rows). */
  function value(v) {
    if (v === null || v === undefined || v === "") return "—";
    if (v === true) return "예";
    if (v === false) return "아니요";
    if (isNumber(v)) return number(v);
    if (Array.isArray(v)) {
      if (!v.length) return "없음";
      if (v.every((x) => x === null || typeof x !== "object")) return v.map(value).join(", ");
      return `${intFmt.format(v.length)}개 항목`;
    }
    if (typeof v === "object") {
      const keys = Object.keys(v);
      return keys.length ? `${intFmt.format(keys.length)}개 항목` : "없음";
    }
    return String(v);
  }

  // -- SQL layout ------------------------------------------------------------------------------
  const CLAUSES = ["WITH", "SELECT", "FROM", "WHERE", "GROUP BY", "HAVING", "ORDER BY", "LIMIT", "OFFSET", "UNION ALL",
    "UNION", "INTERSECT", "EXCEPT", "LEFT OUTER JOIN", "RIGHT OUTER JOIN", "FULL OUTER JOIN", "LEFT JOIN", "RIGHT JOIN",
    "FULL JOIN", "INNER JOIN", "CROSS JOIN", "JOIN", "WINDOW", "QUALIFY"];
  const KEYWORDS = new Set(("SELECT FROM WHERE GROUP BY HAVING ORDER LIMIT OFFSET UNION ALL INTERSECT EXCEPT LEFT RIGHT FULL " +
    "OUTER INNER CROSS JOIN ON AS AND OR NOT IN IS NULL LIKE ILIKE BETWEEN CASE WHEN THEN ELSE END DISTINCT WITH ASC DESC " +
    "COUNT SUM AVG MIN MAX OVER PARTITION EXISTS CAST COALESCE USING WINDOW QUALIFY TRUE FALSE FILTER ROUND NULLS FIRST LAST").split(" "));

  function tokenize(sql) {
    const out = [];
    const re = /('(?:[^']|'')*')|("(?:[^"]|"")*"|`[^`]*`|\[[^\]]*\])|(--[^\n]*|\/\*[\s\S]*?\*\/)|(\d+(?:\.\d+)?)|([A-Za-z_\u0080-\uffff][\w$\u0080-\uffff]*)|(\s+)|(.)/g;
    let m;
    while ((m = re.exec(sql)) !== null) {
      if (m[1]) out.push({ t: "str", v: m[1] });
      else if (m[2]) out.push({ t: "ident", v: m[2] });
      else if (m[3]) out.push({ t: "comment", v: m[3] });
      else if (m[4]) out.push({ t: "num", v: m[4] });
      else if (m[5]) out.push({ t: "word", v: m[5] });
      else if (m[6]) out.push({ t: "ws", v: " " });
      else out.push({ t: "punct", v: m[7] });
    }
    return out.filter((tok, i, all) => !(tok.t === "ws" && (i === 0 || all[i - 1].t === "ws")));
  }

  /** Clauses on their own lines, select lists and AND/OR one per line, subqueries indented. */
  function formatSql(sql) {
    const toks = tokenize(String(sql || "").trim());
    const lines = [];
    let line = "";
    let depth = 0;
    const clauseAt = []; // the clause open at each depth
    const indent = (d) => "  ".repeat(Math.max(0, d));
    const newline = (d) => { if (line.trim()) lines.push(line.replace(/\s+$/, "")); line = indent(d); };
    for (let i = 0; i < toks.length; i++) {
      const tok = toks[i];
      if (tok.t === "ws") { if (line.trim() && !line.endsWith(" ") && !line.endsWith("(")) line += " "; continue; }
      if (tok.t === "word") {
        const up = tok.v.toUpperCase();
        // multi-word clauses: GROUP BY, ORDER BY, LEFT OUTER JOIN ...
        let phrase = up;
        let j = i;
        for (const c of CLAUSES) {
          const words = c.split(" ");
          if (words[0] !== up) continue;
          let k = i, ok = true;
          for (let w = 0; w < words.length; w++) {
            while (toks[k] && toks[k].t === "ws") k++;
            if (!toks[k] || toks[k].t !== "word" || toks[k].v.toUpperCase() !== words[w]) { ok = false; break; }
            k++;
          }
          if (ok) { phrase = c; j = k - 1; break; }
        }
        if (CLAUSES.includes(phrase)) {
          newline(depth);
          line += phrase;
          clauseAt[depth] = phrase;
          i = j;
          if (phrase === "SELECT" || phrase === "GROUP BY" || phrase === "ORDER BY") { newline(depth + 1); }
          else line += " ";
          continue;
        }
        if ((up === "AND" || up === "OR") && (clauseAt[depth] === "WHERE" || clauseAt[depth] === "HAVING")) {
          newline(depth + 1);
          line += up + " ";
          continue;
        }
        line += KEYWORDS.has(up) ? up : tok.v;
        continue;
      }
      if (tok.t === "punct") {
        if (tok.v === "(") {
          // a subquery opens: "( SELECT" goes one level deeper
          let k = i + 1;
          while (toks[k] && toks[k].t === "ws") k++;
          const sub = toks[k] && toks[k].t === "word" && ["SELECT", "WITH"].includes(toks[k].v.toUpperCase());
          line += "(";
          depth += 1;
          clauseAt[depth] = sub ? "SUB" : "PAREN";
          if (sub) newline(depth);
          continue;
        }
        if (tok.v === ")") {
          const wasSub = clauseAt[depth] === "SUB";
          depth = Math.max(0, depth - 1);
          if (wasSub) newline(depth);
          line = line.replace(/\s+$/, "") + ")";
          continue;
        }
        if (tok.v === ",") {
          line = line.replace(/\s+$/, "") + ",";
          const clause = clauseAt[depth];
          if (clause === "SELECT" || clause === "GROUP BY" || clause === "ORDER BY") newline(depth + 1);
          else line += " ";
          continue;
        }
        if (tok.v === ";") { line = line.replace(/\s+$/, "") + ";"; continue; }
        line += tok.v;
        continue;
      }
      line += tok.v;
    }
    newline(0);
    return lines.join("\n");
  }

  /** Spans for keywords, strings and numbers, built as DOM nodes (never innerHTML). */
  function highlightSql(pre, text) {
    const re = /('(?:[^']|'')*')|(\b\d+(?:\.\d+)?\b)|(\b[A-Za-z_]+\b)/g;
    let last = 0, m;
    while ((m = re.exec(text)) !== null) {
      if (m.index > last) pre.appendChild(document.createTextNode(text.slice(last, m.index)));
      let cls = "";
      if (m[1]) cls = "str";
      else if (m[2]) cls = "numlit";
      else if (KEYWORDS.has(m[3].toUpperCase()) && m[3] === m[3].toUpperCase()) cls = "kw";
      if (cls) { const s = document.createElement("span"); s.className = cls; s.textContent = m[0]; pre.appendChild(s); }
      else pre.appendChild(document.createTextNode(m[0]));
      last = m.index + m[0].length;
    }
    if (last < text.length) pre.appendChild(document.createTextNode(text.slice(last)));
  }

  // -- CSV ----------------------------------------------------------------------------------------
  // A text cell that a spreadsheet would run as a formula (= + - @, or a tab or CR first) gets a
  // leading apostrophe, as OWASP's CSV-injection guidance says; numbers stay numbers.
  const FORMULA_START = /^[=+\-@\t\r]/;

  function csvCell(v) {
    if (v === null || v === undefined) return "";
    let s = typeof v === "object" ? JSON.stringify(v) : String(v);
    if (typeof v !== "number" && FORMULA_START.test(s)) s = `'${s}`;
    return /[",\n\r\t']/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  }

  /** RFC 4180 CSV with a BOM, so that spreadsheet programs read Korean as UTF-8. */
  function csv(columns, rows) {
    const lines = [columns.map(csvCell).join(",")];
    for (const row of rows) lines.push(row.map(csvCell).join(","));
    return "\ufeff" + lines.join("\r\n") + "\r\n";
  }

  /** Columns whose every non-empty value is a number: right-aligned and formatted. */
  function numericColumns(columns, rows) {
    return columns.map((_, i) => {
      let seen = 0;
      for (const row of rows) {
        const v = row[i];
        if (v === null || v === undefined || v === "") continue;
        if (!isNumber(v)) return false;
        seen += 1;
      }
      return seen > 0;
    });
  }

  Object.assign(window.GA, { isNumber, number, won, count, when, duration, value, formatSql, highlightSql, csv, csvCell,
    numericColumns });
})();
