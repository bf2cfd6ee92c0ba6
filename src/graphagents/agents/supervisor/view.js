// The web page's view of the supervisor agent (AgentSpec.page_view): an ES module the page imports when
// supervisor is selected. It draws the plan, each team's run, the decisions, citations,
// sources and what could not be found.
// Built as DOM nodes from data with the page's helpers (window.GA), never innerHTML.
const GA = window.GA;
const { el, badge, section, kvTable, rawDetails } = GA;

const TEAM_LABELS = { search: "검색팀", analysis: "분석팀", document: "문서팀" };
const SCOPE_LABELS = { laws: "법령", market: "시세", loans: "대출" };
const ACTION_LABELS = { continue: "계획대로 진행", replan: "계획 수정", finish: "마무리", retry: "다시 시도", skip: "건너뜀" };
const INTENT_TYPES = { comprehensive: "종합 상담", legal: "법률", market: "시세", loan: "대출", document: "문서", simple: "간단한 질문" };
const ENTITY_LABELS = { region: "지역", property_type: "유형", deal_type: "거래", area: "면적", price: "가격" };

export function renderState(state) {
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
