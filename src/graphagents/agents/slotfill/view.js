// The web page's view of the slotfill agent (AgentSpec.page_view): an ES module the page imports when
// slotfill is selected. It draws the application form: the scenario's groups (from
// GET /api/agents/slotfill/view), Korean labels, amounts in won, confirmed and pending marks, the stage.
// Built as DOM nodes from data with the page's helpers (window.GA), never innerHTML.
const GA = window.GA;
const { el, badge, statusBadge } = GA;

const GROUP_TITLES = {
  basic_info: "기본 정보", account_settings: "계좌 설정", internet_banking_basic: "인터넷뱅킹",
  internet_banking_alerts: "알림 설정", summary: "최종 확인",
};

export function slotValue(def, v) {
  if (v === null || v === undefined || v === "") return null;
  if (def && def.display && Object.prototype.hasOwnProperty.call(def.display, String(v))) return def.display[String(v)];
  if (def && def.type === "amount") return GA.won(v);
  if (v === true) return "예";
  if (v === false) return "아니요";
  return String(v);
}

export function renderState(state, ctx) {
  const view = ctx && ctx.view;
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
  if (!sc) { box.appendChild(GA.genericView(state)); return box; }
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
