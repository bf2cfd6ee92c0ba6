// The web page's view of the rag agent (AgentSpec.page_view): an ES module the page imports when
// rag is selected. It draws the health profile (with a button that clears it through
// DELETE /api/agents/rag/profile), the token plan, the retrieved passages and the refine loop.
// Built as DOM nodes from data with the page's helpers (window.GA), never innerHTML.
const GA = window.GA;
const { el, button, badge, section, kvTable } = GA;

const SECTION_LABELS = { system: "시스템", profile: "프로필", evidence: "근거", history: "대화", query: "질문", generation: "답변" };
const INTENT_LABELS = { greeting: "인사", simple: "간단", moderate: "보통", complex: "복합" };
const PROFILE_LABELS = { demographics: "인적 사항", conditions: "질환", symptoms: "증상", medications: "복용 약", vitals: "활력 징후", labs: "검사 수치" };
const DEMO_LABELS = { age: "나이", age_group: "연령대", age_range: "연령 범위", sex: "성별", gender: "성별", height: "키",
  weight: "체중", pregnant: "임신" };
const DEMO_VALUES = { male: "남성", female: "여성", infant: "영아", child: "소아", adolescent: "청소년", adult: "성인",
  older_adult: "노년", true: "예", false: "아니요" };

export function renderState(state, ctx) {
  const extra = (ctx && ctx.extra) || {};
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
        await ctx.api("/profile", { method: "DELETE" });  // the caller's own, nobody else's
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
