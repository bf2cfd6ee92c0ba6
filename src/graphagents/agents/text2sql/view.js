// The web page's view of the text2sql agent (AgentSpec.page_view): an ES module the page imports when
// text2sql is selected. It draws the question's handling (status, tools, plan check,
// rewrites, the final SQL) and drops from the reply the rows its result table already shows.
// Built as DOM nodes from data with the page's helpers (window.GA), never innerHTML.
const GA = window.GA;
const { el, badge, section, kvTable, statusBadge } = GA;

/** The reply without the rows a table below already shows ("결과 12행:", "1. …", "… 외 7행"). */
export function replyText(text, artifacts) {
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


export function renderState(state) {
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
  if (state.sql) box.appendChild(GA.sqlBlock(state.sql, "최종 SQL"));
  return box;
}
