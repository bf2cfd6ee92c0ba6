// Views for people, for any agent: artifacts by kind (SQL, tables, charts, citations, documents), the
// generic state view, and the helpers each agent's own page view module (AgentSpec.page_view) draws
// its state with. Everything is built as DOM nodes from data (never innerHTML), so no value can
// inject markup. No agent is named here: an agent's drawing lives in its module.
"use strict";

window.GA = window.GA || {};

(() => {
  const GA = window.GA;
  const PAGE_ROWS = 20;

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }

  function button(label, className, onClick, attrs = {}) {
    const b = el("button", `btn ${className || ""}`.trim(), label);
    b.type = "button";
    for (const [k, v] of Object.entries(attrs)) b.setAttribute(k, v);
    if (onClick) b.addEventListener("click", onClick);
    return b;
  }

  function badge(text, tone) { return el("span", `badge ${tone || ""}`.trim(), text); }

  function section(title, ...children) {
    const box = el("section", "view-section");
    box.appendChild(el("h3", "", title));
    for (const c of children) if (c) box.appendChild(c);
    return box;
  }

  function kvTable(pairs) {
    const table = el("table", "kv");
    const body = table.createTBody();
    for (const [key, val, dataKey] of pairs) {
      const tr = body.insertRow();
      if (dataKey) tr.dataset.key = dataKey;
      tr.appendChild(el("th", "", key)).setAttribute("scope", "row");
      const td = tr.insertCell();
      if (val instanceof Node) td.appendChild(val); else td.textContent = GA.value(val);
    }
    return table;
  }

  function rawDetails(label, data) {
    const d = el("details", "raw");
    d.appendChild(el("summary", "", label || "세부 정보"));
    d.addEventListener("toggle", () => {
      if (d.open && !d.querySelector("pre")) d.appendChild(el("pre", "", JSON.stringify(data, null, 2)));
    }, { once: false });
    return d;
  }

  async function copyText(text) {
    try { await navigator.clipboard.writeText(text); return true; } catch (_) { /* no clipboard permission */ }
    const area = el("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed"; area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    let ok = false;
    try { ok = document.execCommand("copy"); } catch (_) { ok = false; }
    area.remove();
    return ok;
  }

  function download(name, text, type) {
    const url = URL.createObjectURL(new Blob([text], { type }));
    const a = el("a");
    a.href = url; a.download = name;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }

  // -- SQL ------------------------------------------------------------------------------------
  function sqlBlock(sql, title) {
    const box = el("div", "artifact sql");
    box.dataset.kind = "sql";
    const formatted = GA.formatSql(sql);
    const bar = el("div", "artifact-bar");
    bar.appendChild(el("span", "artifact-title", title || "SQL"));
    const copy = button("SQL 복사", "small ghost copy-sql", async () => {
      const ok = await copyText(formatted);
      copy.textContent = ok ? "복사했어요" : "복사하지 못했어요";
      setTimeout(() => { copy.textContent = "SQL 복사"; }, 1600);
    });
    bar.appendChild(copy);
    box.appendChild(bar);
    const pre = el("pre", "sql");
    pre.tabIndex = 0;
    pre.setAttribute("aria-label", "SQL");
    GA.highlightSql(pre, formatted);
    pre.dataset.raw = sql;
    box.appendChild(pre);
    return box;
  }

  // -- tables ------------------------------------------------------------------------------------
  /** A result table: numbers formatted and right-aligned, the true row count, pages, CSV download. */
  function tableBlock({ columns, rows, total, truncated, title, kind, step, filename }) {
    columns = (columns || []).map(String);
    rows = rows || [];
    const box = el("div", `artifact ${kind || "table"}`);
    box.dataset.kind = kind || "table";
    const have = rows.length;
    const known = Number.isFinite(total) && total !== null ? total : (truncated ? null : have);
    const numeric = GA.numericColumns(columns, rows);
    const bar = el("div", "artifact-bar");
    bar.appendChild(el("span", "artifact-title", title || (step ? `단계: ${step}` : "결과 표")));
    const countText = known === null ? `${GA.count(have, "행")} 이상` : `전체 ${GA.count(known, "행")}`;
    const count = el("span", "row-count badge", countText);
    count.dataset.total = known === null ? "" : String(known);
    bar.appendChild(count);
    box.appendChild(bar);

    const wrap = el("div", "table-wrap");
    wrap.tabIndex = 0;
    wrap.setAttribute("role", "region");
    wrap.setAttribute("aria-label", title || "결과 표");
    const table = el("table", "result");
    const head = table.createTHead().insertRow();
    columns.forEach((c, i) => {
      const th = el("th", numeric[i] ? "num" : "", c);
      th.setAttribute("scope", "col");
      head.appendChild(th);
    });
    const body = table.createTBody();
    wrap.appendChild(table);
    box.appendChild(wrap);

    const foot = el("div", "table-foot");
    const range = el("span", "page-range");
    foot.appendChild(range);
    const pager = el("span", "pager");
    const prev = button("이전", "small prev-page", () => show(page - 1), { "aria-label": "이전 페이지" });
    const next = button("다음", "small next-page", () => show(page + 1), { "aria-label": "다음 페이지" });
    const pages = Math.max(1, Math.ceil(have / PAGE_ROWS));
    if (pages > 1) { pager.append(prev, next); }
    const csvBtn = button("CSV 내려받기", "small download-csv", () => {
      download(filename || "result.csv", GA.csv(columns, rows), "text/csv;charset=utf-8");
    });
    pager.appendChild(csvBtn);
    foot.appendChild(pager);
    box.appendChild(foot);
    if (known === null || known > have) {
      const note = known === null
        ? `처음 ${GA.count(have, "행")}까지 받았어요. 나머지는 조건을 좁혀 다시 물어보세요.`
        : `처음 ${GA.count(have, "행")}까지 받았어요 (전체 ${GA.count(known, "행")}). CSV에는 받은 행이 들어가요.`;
      box.appendChild(el("p", "muted truncated-note", note));
    }

    let page = 0;
    function show(p) {
      page = Math.min(Math.max(0, p), pages - 1);
      body.replaceChildren();
      for (const row of rows.slice(page * PAGE_ROWS, (page + 1) * PAGE_ROWS)) {
        const tr = body.insertRow();
        row.forEach((v, i) => {
          const empty = v === null || v === undefined;
          const td = tr.insertCell();
          td.className = [numeric[i] ? "num" : "", empty ? "null" : ""].join(" ").trim();
          td.textContent = empty ? "—" : (numeric[i] ? GA.number(v) : (typeof v === "object" ? JSON.stringify(v) : String(v)));
        });
      }
      const from = have ? page * PAGE_ROWS + 1 : 0;
      const to = Math.min(have, (page + 1) * PAGE_ROWS);
      range.textContent = have ? `${GA.number(from)}–${GA.number(to)}행 / ${GA.count(have, "행")}` : "행 없음";
      prev.disabled = page === 0;
      next.disabled = page >= pages - 1;
    }
    show(0);
    return box;
  }

  // -- charts (Chart.js, bundled) ----------------------------------------------------------------
  const charts = new Set();

  function cssVar(name) { return getComputedStyle(document.documentElement).getPropertyValue(name).trim(); }
  const PALETTE = ["#3b6cf6", "#f59e0b", "#10b981", "#ef4444", "#8b5cf6"];

  function looksTemporal(name, labels) {
    if (/(date|month|year|day|week|quarter|time|월|연도|년|일자|날짜|분기|주차)/i.test(name)) return true;
    return labels.length > 1 && labels.every((l) => /^\d{4}([-./]\d{1,2})?([-./]\d{1,2})?$/.test(String(l)));
  }

  /** When a result is a series or a grouping: one label column and one to three numeric columns. */
  function chartPlan(columns, rows) {
    if (!rows || rows.length < 2 || rows.length > 200 || columns.length < 2) return null;
    const numeric = GA.numericColumns(columns, rows);
    const labelIdx = numeric.findIndex((n) => !n);
    const valueIdx = numeric.map((n, i) => (n ? i : -1)).filter((i) => i >= 0 && i !== labelIdx).slice(0, 3);
    if (labelIdx < 0 || !valueIdx.length) {
      // a year/month column stored as numbers: the first column is the label
      if (numeric.every(Boolean) && columns.length >= 2 && looksTemporal(columns[0], rows.map((r) => r[0]))) {
        return { label: 0, values: [1, 2, 3].filter((i) => i < columns.length), type: "line" };
      }
      return null;
    }
    const labels = rows.map((r) => r[labelIdx]);
    if (new Set(labels.map(String)).size !== labels.length) return null; // not one row per group
    return { label: labelIdx, values: valueIdx, type: looksTemporal(columns[labelIdx], labels) ? "line" : "bar" };
  }

  function chartBlock({ type, labels, series, title, xTitle }) {
    const box = el("div", "artifact chart");
    box.dataset.kind = "chart";
    box.appendChild(el("div", "artifact-title", title || "차트"));
    const holder = el("div", "chart-box");
    const canvas = el("canvas");
    canvas.setAttribute("role", "img");
    canvas.setAttribute("aria-label", `${title || "차트"}: ${series.map((s) => s.name).join(", ")} (${labels.length}개 항목)`);
    holder.appendChild(canvas);
    box.appendChild(holder);
    if (typeof window.Chart !== "function") {
      holder.replaceChildren(el("p", "muted", "차트 라이브러리를 불러오지 못했어요."));
      return box;
    }
    const text = cssVar("--muted") || "#556074";
    const grid = cssVar("--border") || "#d9dfe9";
    const font = { family: cssVar("--font") || "sans-serif", size: 12 };
    const chart = new window.Chart(canvas, {
      type,
      data: {
        labels: labels.map(String),
        datasets: series.map((s, i) => ({
          label: s.name, data: s.data, borderColor: PALETTE[i % PALETTE.length],
          backgroundColor: type === "line" ? PALETTE[i % PALETTE.length] : PALETTE[i % PALETTE.length] + "cc",
          borderWidth: 2, tension: 0.25, pointRadius: labels.length > 40 ? 0 : 3, borderRadius: 4,
        })),
      },
      options: {
        responsive: true, maintainAspectRatio: false, animation: false,
        plugins: {
          legend: { display: series.length > 1, labels: { color: text, font } },
          tooltip: { callbacks: { label: (ctx) => `${ctx.dataset.label}: ${GA.number(ctx.parsed.y)}` } },
        },
        scales: {
          x: { ticks: { color: text, font, maxRotation: 45, autoSkip: true }, grid: { color: grid }, title: { display: !!xTitle, text: xTitle, color: text, font } },
          y: { ticks: { color: text, font, callback: (v) => GA.number(v) }, grid: { color: grid }, beginAtZero: true },
        },
      },
    });
    charts.add(chart);
    box.chart = chart;
    return box;
  }

  function chartFromTable(columns, rows, title) {
    const plan = chartPlan(columns, rows);
    if (!plan) return null;
    return chartBlock({
      type: plan.type, title: title || `${plan.values.map((i) => columns[i]).join(", ")} / ${columns[plan.label]}`,
      xTitle: columns[plan.label], labels: rows.map((r) => r[plan.label]),
      series: plan.values.map((i) => ({ name: String(columns[i]), data: rows.map((r) => Number(r[i])) })),
    });
  }

  /** The Vega-Lite subset of ChartArtifact: mark bar|line, data.values, encoding.x/y.field. */
  function chartFromSpec(spec, title) {
    const values = (spec.data && spec.data.values) || [];
    const x = spec.encoding && spec.encoding.x && spec.encoding.x.field;
    const y = spec.encoding && spec.encoding.y && spec.encoding.y.field;
    const points = values.filter((v) => Number.isFinite(Number(v[y])));
    return chartBlock({
      type: spec.mark === "line" ? "line" : "bar", title: title || spec.title || `${y} / ${x}`, xTitle: x,
      labels: points.map((v) => v[x]), series: [{ name: String(y), data: points.map((v) => Number(v[y])) }],
    });
  }

  function retheme() {
    const text = cssVar("--muted"), grid = cssVar("--border");
    for (const chart of charts) {
      if (!chart.canvas || !chart.canvas.isConnected) { charts.delete(chart); continue; }
      for (const axis of Object.values(chart.options.scales || {})) {
        axis.ticks.color = text; axis.grid.color = grid; if (axis.title) axis.title.color = text;
      }
      chart.options.plugins.legend.labels.color = text;
      chart.update("none");
    }
  }

  // -- artifacts by kind ---------------------------------------------------------------------------
  function citationBlock(a) {
    const box = el("div", "artifact citation");
    box.dataset.kind = "citation";
    const line = el("div", "citation-line");
    line.appendChild(el("strong", "", `${a.ref ? a.ref + " " : ""}${a.source || ""}`));
    if (a.text) line.appendChild(document.createTextNode(`: ${a.text}`));
    if (a.url && /^https?:\/\//.test(a.url)) {
      const link = el("a", "", " 원문 ↗");
      link.href = a.url; link.target = "_blank"; link.rel = "noopener noreferrer";
      line.appendChild(link);
    }
    box.appendChild(line);
    return box;
  }

  /** A document: Markdown (``metadata.format``) rendered safely, with a copy button; plain text otherwise. */
  function documentBlock(a) {
    const box = el("div", "artifact document");
    box.dataset.kind = "document";
    const md = ((a.metadata || {}).format || "") === "markdown";
    const bar = el("div", "artifact-bar");
    bar.appendChild(el("span", "artifact-title", a.title || a.id || "문서"));
    if (md) {
      const copy = button("원문 복사", "small ghost copy-document", async () => {
        const ok = await copyText(a.text || "");
        copy.textContent = ok ? "복사했어요" : "복사하지 못했어요";
        setTimeout(() => { copy.textContent = "원문 복사"; }, 1600);
      });
      bar.appendChild(copy);
    }
    box.appendChild(bar);
    if (md) {
      const body = el("div", "document-text markdown");
      body.appendChild(GA.markdown(a.text || ""));
      box.appendChild(body);
    } else {
      box.appendChild(el("div", "document-text", a.id ? `[${a.id}] ${a.text || ""}` : a.text || ""));
    }
    return box;
  }

  function renderArtifact(a) {
    switch (a.kind) {
      case "sql": return sqlBlock(a.sql, a.title);
      case "table":
      case "intermediate_table":
        return tableBlock({ columns: a.columns, rows: a.rows, total: a.total_rows ?? null, truncated: !!a.truncated,
                            title: a.title, kind: a.kind, step: a.step });
      case "chart": return chartFromSpec(a.spec || {}, a.title);
      case "citation": return citationBlock(a);
      case "document": return documentBlock(a);
      default: {
        const box = el("div", `artifact ${a.kind || "other"}`);
        box.appendChild(rawDetails(a.title || a.kind, a));
        return box;
      }
    }
  }

  /** Artifacts in reading order; a result table that is a series or grouping gets its chart after it. */
  function renderArtifacts(list) {
    const out = [];
    const hasChart = list.some((a) => a.kind === "chart");
    for (const a of list) {
      out.push(renderArtifact(a));
      if (a.kind === "table" && !hasChart) {
        const chart = chartFromTable(a.columns || [], a.rows || []);
        if (chart) out.push(chart);
      }
    }
    return out;
  }

  // -- state views ---------------------------------------------------------------------------------
  /** Status words agents share; an agent's module passes its own labels for the others. */
  const STATUS_LABELS = {
    active: ["진행 중", "accent"], completed: ["완료", "ok"], cancelled: ["취소됨", "danger"], handoff: ["상담원 연결", "warn"],
    submitted: ["답변 완료", "ok"], answered: ["답변 완료", "ok"], cache: ["저장된 결과", "ok"], running: ["진행 중", "accent"],
    budget: ["한도 도달", "warn"], steps: ["단계 한도", "warn"], declined: ["답하지 않음", "warn"], error: ["오류", "danger"],
    cancelled_sql: ["취소됨", "danger"], done: ["완료", "ok"],
  };

  function statusBadge(status, labels) {
    if (!status) return null;
    const [text, tone] = (labels && labels[status]) || STATUS_LABELS[status] || [String(status), ""];
    const b = badge(text, tone);
    b.dataset.status = status;
    return b;
  }

  function genericView(state) {
    const pairs = [];
    const nested = [];
    for (const [key, val] of Object.entries(state || {})) {
      const isObj = val && typeof val === "object";
      const flat = isObj && !Array.isArray(val) && Object.values(val).every((v) => v === null || typeof v !== "object");
      if (flat && Object.keys(val).length <= 30) {
        for (const [k, v] of Object.entries(val)) pairs.push([`${key}.${k}`, v, `${key}.${k}`]);
      } else if (isObj && !(Array.isArray(val) && val.every((x) => x === null || typeof x !== "object"))) {
        nested.push([key, val]);
      } else {
        pairs.push([key, val, key]);
      }
    }
    const box = el("div", "view generic-view");
    if (pairs.length) box.appendChild(kvTable(pairs));
    for (const [key, val] of nested) box.appendChild(rawDetails(`${key} (${GA.value(val)})`, val));
    if (!pairs.length && !nested.length) box.appendChild(el("p", "state-empty", "아직 상태가 없어요. 메시지를 보내 보세요."));
    return box;
  }

  /** The state panel: the agent's module draws it (``renderState(state, ctx)``), else the generic view.
   * ``ctx.extra`` carries what the running turn showed before its state did (live tables, decisions). */
  function renderStateView(module, state, ctx = {}) {
    const extra = ctx.extra || {};
    const liveOnly = (extra.live || []).length || (extra.decisions || []).length;
    if ((!state || !Object.keys(state).length) && !liveOnly) return el("p", "state-empty", "아직 상태가 없어요. 메시지를 보내 보세요.");
    if (!module || typeof module.renderState !== "function") return genericView(state);
    try {
      return module.renderState(state || {}, ctx);
    } catch (err) {  // an unexpected shape: still show the values, never a blank panel
      console.warn("state view failed", err);
      return genericView(state);
    }
  }

  Object.assign(GA, {
    el, button, badge, section, kvTable, rawDetails, copyText, download, sqlBlock, tableBlock, chartFromTable,
    chartFromSpec, chartPlan, renderArtifact, renderArtifacts, documentBlock, statusBadge, genericView,
    renderStateView, retheme,
  });
})();
