// Views for people: artifacts (SQL, tables, charts, citations), each agent's state, the trace
// timeline. Everything is built as DOM nodes from data (never innerHTML), so no value can inject markup.
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

  function renderArtifact(a) {
    switch (a.kind) {
      case "sql": return sqlBlock(a.sql, a.title);
      case "table":
      case "intermediate_table":
        return tableBlock({ columns: a.columns, rows: a.rows, total: a.total_rows ?? null, truncated: !!a.truncated,
                            title: a.title, kind: a.kind, step: a.step });
      case "chart": return chartFromSpec(a.spec || {}, a.title);
      case "citation": return citationBlock(a);
      case "document": {
        const box = el("div", "artifact document");
        box.dataset.kind = "document";
        if (a.title) box.appendChild(el("div", "artifact-title", a.title));
        box.appendChild(el("div", "document-text", `[${a.id}] ${a.text}`));
        return box;
      }
      default: {
        const box = el("div", `artifact ${a.kind || "other"}`);
        box.appendChild(rawDetails(a.title || a.kind, a));
        return box;
      }
    }
  }

  /** Artifacts in reading order; a result table that is a series or grouping gets its chart after it. */
  function renderArtifacts(list, { agent, state } = {}) {
    const out = [];
    const hasChart = list.some((a) => a.kind === "chart");
    for (const a of list) {
      let artifact = a;
      if (a.kind === "table" && agent === "text2sql" && state && state.table) {
        // the state knows whether the rows were cut and, when counted, the true total
        artifact = { ...a, truncated: !!state.table.truncated, total_rows: a.total_rows ?? state.table.total_rows ?? null };
      }
      out.push(renderArtifact(artifact));
      if (a.kind === "table" && !hasChart) {
        const chart = chartFromTable(a.columns || [], a.rows || []);
        if (chart) out.push(chart);
      }
    }
    return out;
  }

  /** The reply without the rows a table below already shows ("결과 12행:", "1. …", "… 외 7행"). */
  function withoutRowListing(text, artifacts) {
    const table = artifacts.find((a) => a.kind === "table");
    if (!table || !text || !(table.rows || []).length) return text;
    const lines = text.split("\n");
    const kept = [];
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i].trim();
      if (/^(결과\s*[\d,]+\s*행.*:|[\d,]+\s+rows?.*:)$/.test(line)) continue;
      if (/^\d+\.\s/.test(line) && line.includes(" · ")) continue;
      if (/^…\s*(외\s*[\d,]+\s*행|and\s+[\d,]+\s+more rows?)$/.test(line)) continue;
      kept.push(lines[i]);
    }
    const out = kept.join("\n").replace(/\n{3,}/g, "\n\n").trim();
    return out || text;
  }

  // -- state views by agent ----------------------------------------------------------------------
  const GROUP_TITLES = {
    basic_info: "기본 정보", account_settings: "계좌 설정", internet_banking_basic: "인터넷뱅킹",
    internet_banking_alerts: "알림 설정", summary: "최종 확인",
  };
  const STATUS_LABELS = {
    active: ["진행 중", "accent"], completed: ["완료", "ok"], cancelled: ["취소됨", "danger"], handoff: ["상담원 연결", "warn"],
    submitted: ["답변 완료", "ok"], answered: ["답변 완료", "ok"], cache: ["저장된 결과", "ok"], running: ["진행 중", "accent"],
    budget: ["한도 도달", "warn"], steps: ["단계 한도", "warn"], declined: ["답하지 않음", "warn"], error: ["오류", "danger"],
    cancelled_sql: ["취소됨", "danger"], done: ["완료", "ok"],
  };

  function statusBadge(status) {
    if (!status) return null;
    const [text, tone] = STATUS_LABELS[status] || [String(status), ""];
    const b = badge(text, tone);
    b.dataset.status = status;
    return b;
  }

  function slotValue(def, v) {
    if (v === null || v === undefined || v === "") return null;
    if (def && def.display && Object.prototype.hasOwnProperty.call(def.display, String(v))) return def.display[String(v)];
    if (def && def.type === "amount") return GA.won(v);
    if (v === true) return "예";
    if (v === false) return "아니요";
    return String(v);
  }

  function slotfillView(state, view) {
    const box = el("div", "view slotfill-view");
    const sc = view && view.scenario;
    const head = el("div", "view-head");
    head.appendChild(el("span", "view-title", (sc && sc.title) || "신청 정보"));
    const status = state.completed ? "completed" : state.status;
    const sb = statusBadge(status);
    if (sb) head.appendChild(sb);
    if (state.application_id) head.appendChild(badge(`신청번호 ${state.application_id}`, ""));
    box.appendChild(head);
    const slots = state.slots || {};
    if (!sc) { box.appendChild(genericView(state)); return box; }
    const stage = sc.stages[state.stage] || null;
    const currentGroup = stage ? stage.group : null;
    const asking = new Set(stage && stage.type === "collection" ? stage.fields : []);
    const confirmed = new Set(state.confirmed_groups || []);
    const list = el("div", "form-groups");
    for (const g of sc.groups) {
      const applies = Object.entries(g.depends_on || {}).every(([k, v]) => slots[k] === undefined || slots[k] === v);
      const card = el("section", "form-group");
      card.dataset.group = g.id;
      const isCurrent = currentGroup === g.id && !state.completed;
      if (isCurrent) { card.classList.add("current"); card.setAttribute("aria-current", "step"); }
      if (!applies) card.classList.add("skipped");
      const gh = el("div", "form-group-head");
      const labels = g.fields.map((f) => (sc.slots[f] || {}).label || f);
      gh.appendChild(el("h3", "", GROUP_TITLES[g.id] || labels.join(" · ")));
      const filled = g.fields.filter((f) => slots[f] !== undefined && slots[f] !== null && slots[f] !== "").length;
      let mark;
      if (!applies) mark = badge("해당 없음", "");
      else if (confirmed.has(g.id)) mark = badge("✓ 확인 완료", "ok");
      else if (filled === g.fields.length && g.confirmation_required) mark = badge("확인 대기", "warn");
      else if (filled === g.fields.length) mark = badge("✓ 입력 완료", "ok");
      else mark = badge(`${filled}/${g.fields.length} 입력`, isCurrent ? "accent" : "");
      mark.classList.add("group-mark");
      gh.appendChild(mark);
      card.appendChild(gh);
      const ul = el("ul", "form-fields");
      for (const f of g.fields) {
        const def = sc.slots[f] || {};
        const shown = slotValue(def, slots[f]);
        const li = el("li", `form-field ${shown === null ? "empty" : "filled"}`);
        li.dataset.slot = f;
        if (asking.has(f) && shown === null && isCurrent) li.classList.add("asking");
        li.appendChild(el("span", "mark", shown === null ? "○" : "✓")).setAttribute("aria-hidden", "true");
        li.appendChild(el("span", "label", def.label || f));
        const val = el("span", "value", shown === null ? (applies ? "입력 전" : "—") : shown);
        li.appendChild(val);
        li.setAttribute("aria-label", `${def.label || f}: ${shown === null ? "입력 전" : shown}`);
        ul.appendChild(li);
      }
      card.appendChild(ul);
      list.appendChild(card);
    }
    box.appendChild(list);
    if (stage) {
      const where = currentGroup === "summary" ? "최종 확인" : (GROUP_TITLES[currentGroup] || currentGroup || "");
      const kind = { collection: "입력", confirmation: "확인", correction: "수정" }[stage.type] || stage.type;
      const p = el("p", "muted current-stage", `지금 단계: ${where ? where + " " : ""}${kind}`);
      p.dataset.stage = state.stage;
      box.appendChild(p);
    }
    return box;
  }

  function text2sqlView(state) {
    const box = el("div", "view text2sql-view");
    const head = el("div", "view-head");
    head.appendChild(el("span", "view-title", "질문 처리"));
    const sb = statusBadge(state.status);
    if (sb) head.appendChild(sb);
    if (typeof state.confidence === "number") head.appendChild(badge(`확신도 ${Math.round(state.confidence * 100)}%`, "accent"));
    else if (state.confidence) head.appendChild(badge(`확신도 ${state.confidence}`, "accent"));
    box.appendChild(head);
    const pairs = [["질문", state.question || "—"]];
    if (state.table && state.table.columns) {
      const n = (state.table.rows || []).length;
      const total = state.table.total_rows;
      pairs.push(["결과", Number.isFinite(total) ? `전체 ${GA.count(total, "행")}` : `${GA.count(n, "행")}${state.table.truncated ? " 이상" : ""}`]);
    }
    if ((state.tool_calls || []).length) pairs.push(["사용한 도구", state.tool_calls.join(" → ")]);
    box.appendChild(kvTable(pairs));
    const explain = state.explain;
    if (explain && typeof explain === "object") {
      const risks = explain.risks || [];
      const items = [];
      if (explain.estimated_rows !== undefined) items.push(["예상 행 수", explain.estimated_rows]);
      if (risks.length) items.push(["주의", risks.join("; ")]);
      if (items.length) box.appendChild(section("실행 계획 점검", kvTable(items)));
    }
    if ((state.rewrites || []).length) {
      const ul = el("ul", "steps-list");
      for (const r of state.rewrites) ul.appendChild(el("li", "step-card", typeof r === "string" ? r : (r.reason || JSON.stringify(r))));
      box.appendChild(section("정책에 따른 수정", ul));
    }
    if (state.sql) box.appendChild(sqlBlock(state.sql, "최종 SQL"));
    return box;
  }

  const TEAM_LABELS = { search: "검색팀", analysis: "분석팀", document: "문서팀" };
  const SCOPE_LABELS = { laws: "법령", market: "시세", loans: "대출" };
  const ACTION_LABELS = { continue: "계획대로 진행", replan: "계획 수정", finish: "마무리", retry: "다시 시도", skip: "건너뜀" };
  const INTENT_TYPES = { comprehensive: "종합 상담", legal: "법률", market: "시세", loan: "대출", document: "문서", simple: "간단한 질문" };
  const ENTITY_LABELS = { region: "지역", property_type: "유형", deal_type: "거래", area: "면적", price: "가격" };

  function supervisorView(state) {
    const completed = new Set(state.completed_teams || []);
    const box = el("div", "view supervisor-view");
    const head = el("div", "view-head");
    head.appendChild(el("span", "view-title", "팀 진행"));
    if (state.finish_reason) {
      const done = /complete|answered|done/.test(state.finish_reason);
      head.appendChild(badge({ plan_complete: "계획 완료", simple: "바로 답변", max_rounds: "라운드 한도", error: "오류" }[state.finish_reason]
        || state.finish_reason, done ? "ok" : "warn"));
    }
    if (state.rounds) head.appendChild(badge(`${state.rounds}라운드`, ""));
    box.appendChild(head);
    const intent = state.intent || {};
    const pairs = [["질문", state.query || "—"]];
    const kind = intent.intent_type || intent.intent || intent.type;
    if (kind) pairs.push(["의도", `${INTENT_TYPES[kind] || kind}${Number.isFinite(intent.confidence) ? ` (확신도 ${Math.round(intent.confidence * 100)}%)` : ""}`]);
    const ent = intent.entities || {};
    const entText = Object.entries(ent).map(([k, v]) => `${ENTITY_LABELS[k] || k}: ${v && typeof v === "object" ? v.text || v.sigungu || JSON.stringify(v) : v}`);
    if (entText.length) pairs.push(["대상", entText.join(", ")]);
    if (state.plan_method) pairs.push(["계획 방식", state.plan_method]);
    box.appendChild(kvTable(pairs));
    const plan = state.plan || {};
    const steps = plan.teams || plan.steps || plan.tasks || (Array.isArray(plan) ? plan : []);
    const runs = {};
    for (const r of state.team_runs || []) runs[r.id] = r;
    if (steps.length) {
      const ol = el("ol", "steps-list");
      steps.forEach((s, i) => {
        const run = runs[s.id];
        const li = el("li", `step-card ${run && (run.status === "error" || run.error) ? "failed" : ""}`);
        li.dataset.team = s.team || s.id || "";
        const top = el("div", "view-head");
        top.appendChild(el("strong", "", `${i + 1}. ${TEAM_LABELS[s.team] || s.team || s.agent || s.name || ""}`));
        if (run) {
          const ok = run.status === "ok" || run.status === "done" || run.status === "completed";
          top.appendChild(badge(ok ? "완료" : run.status || "", ok ? "ok" : (run.error ? "danger" : "")));
          if (Number.isFinite(run.seconds)) top.appendChild(el("span", "dur", GA.duration(run.seconds * 1000)));
          if (Number.isFinite(run.count)) top.appendChild(el("span", "muted", GA.count(run.count, "건")));
        } else if (completed.has(s.team)) top.appendChild(badge("완료", "ok"));
        else top.appendChild(badge("대기", ""));
        if (s.optional) top.appendChild(badge("선택", ""));
        li.appendChild(top);
        const why = s.reason || s.task || s.description || s.query || s.goal || "";
        if (why) li.appendChild(el("div", "muted", why));
        if ((s.scopes || []).length) li.appendChild(el("div", "", `범위: ${s.scopes.map((x) => SCOPE_LABELS[x] || x).join(", ")}`));
        if ((s.after || s.depends_on || []).length) li.appendChild(el("div", "muted", `먼저: ${(s.after || s.depends_on).map((t) => TEAM_LABELS[t] || t).join(", ")}`));
        if (run && run.summary) li.appendChild(el("div", "", run.summary));
        if (run && run.error) li.appendChild(el("div", "", run.error));
        ol.appendChild(li);
      });
      const title = plan.strategy ? `실행 계획 (${plan.strategy === "parallel" ? "병렬" : plan.strategy === "sequential" ? "순차" : plan.strategy})` : "실행 계획";
      box.appendChild(section(title, ol));
    } else if (Object.keys(plan).length) {
      box.appendChild(section("실행 계획", rawDetails("계획 보기", plan)));
    }
    if ((state.decisions || []).length) {
      const ul = el("ul", "refine-log");
      for (const d of state.decisions) {
        const li = el("li", d.error ? "stop" : "accept");
        if (typeof d === "string") { li.textContent = d; ul.appendChild(li); continue; }
        const head = [`${d.round ?? d.step ?? ""}라운드`, ACTION_LABELS[d.action] || d.action || d.choice || ""];
        if ((d.batch || []).length) head.push(d.batch.join(", "));
        if (Number.isFinite(d.confidence)) head.push(`확신도 ${Math.round(d.confidence * 100)}%`);
        li.appendChild(el("strong", "", head.filter(Boolean).join(" · ")));
        if (d.reasoning || d.reason) li.appendChild(el("div", "muted", d.reasoning || d.reason));
        if (d.error) li.appendChild(el("div", "", d.error));
        ul.appendChild(li);
      }
      box.appendChild(section("결정", ul));
    }
    if ((state.citations || []).length) {
      const chips = el("div", "chips");
      state.citations.forEach((c, i) => chips.appendChild(badge(`[${i + 1}] ${c}`, "accent")));
      box.appendChild(section("인용", chips));
    }
    if ((state.sources || []).length) {
      const ul = el("ul", "passages");
      for (const s of state.sources) {
        const li = el("li", "passage");
        if (typeof s === "string") li.textContent = s;
        else {
          const h = el("div", "passage-head");
          h.appendChild(el("span", "", s.label || s.title || s.id || s.source || s.kind || ""));
          if (s.synthetic) h.appendChild(badge("합성 데이터", "warn"));
          if (s.as_of) h.appendChild(el("span", "muted", `${s.as_of} 기준`));
          li.appendChild(h);
          if (s.text || s.snippet || s.caveat) li.appendChild(el("p", "", s.text || s.snippet || s.caveat));
        }
        ul.appendChild(li);
      }
      box.appendChild(section("출처", ul));
    }
    if ((state.missing || []).length) box.appendChild(section("찾지 못한 정보", el("p", "", state.missing.join(", "))));
    if ((state.caps_hit || []).length) box.appendChild(section("한도", el("p", "", state.caps_hit.join(", "))));
    return box;
  }

  function tableqaView(state, _view, extra) {
    const box = el("div", "view tableqa-view");
    const head = el("div", "view-head");
    head.appendChild(el("span", "view-title", "표 질의"));
    const sb = statusBadge(state.status);
    if (sb) head.appendChild(sb);
    box.appendChild(head);
    const pairs = [["질문", state.question || "—"]];
    if ((state.answer || []).length) pairs.push(["답", state.answer.join(" | ")]);
    if (state.reason) pairs.push(["이유", state.reason]);
    box.appendChild(kvTable(pairs));
    if ((state.original_tables || []).length) {
      const ul = el("ul", "upload-list");
      for (const t of state.original_tables) {
        ul.appendChild(badge(`${t.name} · ${GA.count(t.rows, "행")} × ${GA.count((t.columns || []).length, "열")}`, ""));
      }
      box.appendChild(section("원본 표", ul));
    }
    const shapes = {};
    for (const t of state.intermediate_tables || []) shapes[t.id] = t;
    if ((state.steps || []).length) {
      const ol = el("ol", "steps-list");
      for (const s of state.steps) {
        const li = el("li", `step-card ${s.ok === false ? "failed" : ""}`);
        li.dataset.step = s.step;
        const top = el("div", "view-head");
        top.appendChild(el("strong", "", `${s.step}. ${s.action || ""}`));
        if (s.argument) top.appendChild(el("code", "", String(s.argument).slice(0, 120)));
        if (s.ok === false) top.appendChild(badge(s.error_type || "실패", "danger"));
        const t = shapes[s.table_id || ""];
        if (t) top.appendChild(badge(`${GA.count(t.rows, "행")} × ${GA.count((t.columns || []).length, "열")}`, "accent"));
        li.appendChild(top);
        if (s.thought) li.appendChild(el("div", "muted", s.thought));
        if (s.code) li.appendChild(el("pre", "", s.code));
        if (s.observation) li.appendChild(el("pre", "", String(s.observation).slice(0, 800)));
        const table = (extra && extra.intermediate || []).find((a) => a.step && String(a.step) === String(s.step));
        if (table) li.appendChild(renderArtifact(table));
        ol.appendChild(li);
      }
      box.appendChild(section("단계", ol));
    }
    // tables made by the running turn, as each step creates them (tool results), before the state has them
    const known = new Set((state.intermediate_tables || []).map((t) => t.id));
    const live = ((extra && extra.live) || []).filter((t) => !known.has(t.id));
    if (live.length) {
      const ol = el("ol", "steps-list live-tables");
      for (const t of live) {
        const li = el("li", "step-card");
        li.dataset.table = t.id;
        const top = el("div", "view-head");
        top.appendChild(el("strong", "", `${t.step}. ${t.action || ""}`));
        top.appendChild(badge(`${GA.count(t.rows, "행")} × ${GA.count((t.columns || []).length, "열")}`, "accent"));
        li.appendChild(top);
        if (t.instruction) li.appendChild(el("div", "muted", t.instruction));
        if ((t.columns || []).length) li.appendChild(el("div", "mono", t.columns.join(", ")));
        ol.appendChild(li);
      }
      box.appendChild(section("지금 만든 중간 표", ol));
    }
    return box;
  }

  const SECTION_LABELS = { system: "시스템", profile: "프로필", evidence: "근거", history: "대화", query: "질문", generation: "답변" };
  const INTENT_LABELS = { greeting: "인사", simple: "간단", moderate: "보통", complex: "복합" };
  const PROFILE_LABELS = { demographics: "인적 사항", conditions: "질환", symptoms: "증상", medications: "복용 약", vitals: "활력 징후", labs: "검사 수치" };
  const DEMO_LABELS = { age: "나이", age_group: "연령대", age_range: "연령 범위", sex: "성별", gender: "성별", height: "키",
    weight: "체중", pregnant: "임신" };
  const DEMO_VALUES = { male: "남성", female: "여성", infant: "영아", child: "소아", adolescent: "청소년", adult: "성인",
    older_adult: "노년", true: "예", false: "아니요" };

  function ragView(state, _view, extra) {
    const box = el("div", "view rag-view");
    const head = el("div", "view-head");
    head.appendChild(el("span", "view-title", "검색 기반 답변"));
    if (state.intent) head.appendChild(badge(`질문 유형: ${INTENT_LABELS[state.intent] || state.intent}`, "accent"));
    if (Number.isFinite(state.dynamic_k)) head.appendChild(badge(`검색 ${state.dynamic_k}건`, ""));
    if (state.cache_hit) {
      const sim = Number.isFinite(state.cache_similarity_score) ? ` (${GA.number(state.cache_similarity_score)})` : "";
      head.appendChild(badge(`캐시 재사용${sim}`, "ok"));
    }
    box.appendChild(head);
    if (state.emergency) box.appendChild(el("div", "emergency", "응급 상황일 수 있어요. 바로 119에 연락하거나 가까운 응급실로 가세요."));

    const profile = state.profile || {};
    if (Object.keys(profile).length || state.profile_summary) {
      const card = el("div", "profile-card");
      if (state.profile_summary) card.appendChild(el("p", "", state.profile_summary));
      const pairs = [];
      const demo = profile.demographics || {};
      const demoText = Object.entries(demo).filter(([, v]) => v !== null && v !== "")
        .map(([k, v]) => `${DEMO_LABELS[k] || k} ${DEMO_VALUES[String(v)] || GA.value(v)}`);
      if (demoText.length) pairs.push([PROFILE_LABELS.demographics, demoText.join(", ")]);
      for (const key of ["conditions", "symptoms"]) {
        if ((profile[key] || []).length) pairs.push([PROFILE_LABELS[key], profile[key].map((x) => (typeof x === "string" ? x : x.name || JSON.stringify(x))).join(", ")]);
      }
      if ((profile.medications || []).length) {
        pairs.push([PROFILE_LABELS.medications, profile.medications.map((m) => (typeof m === "string" ? m
          : [m.name, m.dose, m.frequency].filter(Boolean).join(" "))).join(", ")]);
      }
      for (const key of ["vitals", "labs"]) {
        const obj = profile[key] || {};
        const text = Object.entries(obj).map(([k, v]) => `${k} ${GA.value(v)}`).join(", ");
        if (text) pairs.push([PROFILE_LABELS[key], text]);
      }
      if (pairs.length) card.appendChild(kvTable(pairs));
      const note = el("span", "muted profile-note");
      note.setAttribute("role", "status");
      const clear = button("프로필 지우기", "small ghost danger clear-profile", async () => {
        clear.disabled = true;
        try {
          const res = await fetch("/api/rag/profile", { method: "DELETE" });
          const data = await res.json().catch(() => ({}));
          if (!res.ok) throw new Error(data.error || res.statusText);
          note.textContent = "저장된 건강 프로필과 캐시된 답변을 지웠어요. 다음 질문부터 새로 시작해요.";
        } catch (err) {
          note.textContent = `지우지 못했어요: ${err.message || err}`;
          clear.disabled = false;
        }
      });
      const row = el("div", "upload-row");
      row.append(clear, note);
      card.appendChild(row);
      box.appendChild(section("건강 프로필", card));
    }

    const plan = state.token_plan;
    if (plan && plan.sections) {
      const bars = el("div", "bars");
      for (const [name, s] of Object.entries(plan.sections)) {
        const row = el("div", "bar-row");
        row.dataset.section = name;
        row.appendChild(el("span", "", SECTION_LABELS[name] || name));
        const track = el("div", "bar-track");
        track.setAttribute("role", "meter");
        track.setAttribute("aria-label", `${SECTION_LABELS[name] || name} 토큰`);
        track.setAttribute("aria-valuemin", "0");
        track.setAttribute("aria-valuemax", String(s.budget || 0));
        track.setAttribute("aria-valuenow", String(Math.min(s.used || 0, s.budget || 0)));
        const fill = el("div", `bar-fill ${(s.used || 0) > (s.budget || 0) ? "over" : ""}`);
        fill.style.width = `${Math.min(100, s.budget ? (100 * (s.used || 0)) / s.budget : 0)}%`;
        track.appendChild(fill);
        row.appendChild(track);
        row.appendChild(el("span", "num", `${GA.number(s.used || 0)} / ${GA.number(s.budget || 0)}`));
        bars.appendChild(row);
      }
      const title = `토큰 계획 (창 ${GA.number(plan.window || 0)})`;
      const sec = section(title, bars);
      if (plan.estimator) sec.appendChild(el("p", "muted", `추정 방식: ${plan.estimator}`));
      box.appendChild(sec);
    }

    if ((state.retrieved_docs || []).length) {
      const ul = el("ul", "passages");
      for (const d of state.retrieved_docs) {
        const li = el("li", "passage");
        li.dataset.doc = d.id;
        const h = el("div", "passage-head");
        h.appendChild(el("span", "", d.title || d.id));
        h.appendChild(el("span", "num", `점수 ${Number.isFinite(d.score) ? d.score.toFixed(3) : "—"}`));
        li.appendChild(h);
        const ranks = [];
        if (d.bm25_rank !== null && d.bm25_rank !== undefined) ranks.push(badge(`BM25 ${d.bm25_rank}위`, ""));
        if (d.dense_rank !== null && d.dense_rank !== undefined) ranks.push(badge(`의미 ${d.dense_rank}위`, ""));
        if (Number.isFinite(d.iteration)) ranks.push(badge(`${d.iteration + 1}차 검색`, ""));
        if (ranks.length) { const chips = el("div", "chips"); chips.append(...ranks); li.appendChild(chips); }
        if (d.text) li.appendChild(el("p", "", d.text));
        ul.appendChild(li);
      }
      box.appendChild(section(`검색한 문서 ${GA.count(state.retrieved_docs.length, "건")}`, ul));
    }

    const logs = (state.refine_iteration_logs || []).slice();
    for (const d of (extra && extra.decisions) || []) {  // live: refine decisions of the running turn
      if (!logs.some((l) => l.iteration === d.iteration)) logs.push(d);
    }
    if (logs.length) {
      const ol = el("ol", "refine-log");
      const DECISIONS = { accept: "채택", retrieve_again: "다시 검색", stop: "중단" };
      for (const l of logs) {
        const li = el("li", l.decision || "");
        li.dataset.iteration = l.iteration;
        const parts = [`${l.iteration}회차`, DECISIONS[l.decision] || l.decision || ""];
        if (Number.isFinite(l.overall)) parts.push(`종합 ${l.overall.toFixed(2)}`);
        if (Number.isFinite(l.grounding)) parts.push(`근거 ${l.grounding.toFixed(2)}`);
        if (Number.isFinite(l.completeness)) parts.push(`완결성 ${l.completeness.toFixed(2)}`);
        li.appendChild(el("strong", "", parts.join(" · ")));
        if (l.reason) li.appendChild(el("div", "muted", l.reason));
        if (l.query) li.appendChild(el("div", "mono", l.query));
        ol.appendChild(li);
      }
      box.appendChild(section("답변 다듬기", ol));
    }
    return box;
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

  const STATE_VIEWS = { slotfill: slotfillView, text2sql: text2sqlView, supervisor: supervisorView, tableqa: tableqaView, rag: ragView };

  function renderStateView(agent, state, view, extra) {
    const liveOnly = extra && ((extra.live || []).length || (extra.decisions || []).length);
    if ((!state || !Object.keys(state).length) && !liveOnly) return el("p", "state-empty", "아직 상태가 없어요. 메시지를 보내 보세요.");
    const fn = STATE_VIEWS[agent] || genericView;
    try {
      return fn(state || {}, view, extra);
    } catch (err) {  // an unexpected shape: still show the values, never a blank panel
      console.warn("state view failed", err);
      return genericView(state);
    }
  }

  Object.assign(GA, {
    el, button, badge, kvTable, rawDetails, copyText, download, sqlBlock, tableBlock, chartFromTable, chartFromSpec,
    chartPlan, renderArtifact, renderArtifacts, withoutRowListing, renderStateView, retheme, slotValue,
  });
})();
