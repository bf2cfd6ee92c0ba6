// The notes agent's page view (a third-party package's AgentSpec.page_view): the page imports it
// when notes is selected. It uses only what the page hands every agent's module (window.GA, ctx).
const GA = window.GA;
const { el, badge, section } = GA;

export function renderState(state, ctx) {
  const label = (ctx && ctx.view && ctx.view.label) || "메모";
  const box = el("div", "view notes-view");
  const head = el("div", "view-head");
  head.appendChild(el("span", "view-title", `${label} 목록`));
  if (state.tag) head.appendChild(badge(`태그 ${state.tag}`, "accent"));
  box.appendChild(head);
  const ul = el("ul", "notes-list");
  for (const note of state.notes || []) ul.appendChild(el("li", "note", note));
  box.appendChild(section(`${label} ${GA.count((state.notes || []).length, "개")}`, ul));
  return box;
}

/** An add-a-note box under the description, through the agent's own route. */
export async function intro(ctx) {
  const box = el("form", "upload-row notes-add");
  box.id = "notes-add";
  const input = el("input");
  input.type = "text"; input.id = "notes-text"; input.setAttribute("aria-label", "새 메모");
  const add = el("button", "btn small", "메모 추가");
  add.type = "submit";
  const count = el("span", "muted");
  count.id = "notes-count";
  count.setAttribute("role", "status");
  const show = (data) => { count.textContent = `${GA.count((data.notes || []).length, "개")} 저장됨`; };
  show(await (await ctx.api("/notes")).json());
  box.addEventListener("submit", async (e) => {
    e.preventDefault();
    show(await (await ctx.api("/notes", { method: "POST", body: JSON.stringify({ text: input.value }) })).json());
    input.value = "";
  });
  box.append(input, add, count);
  return box;
}

/** Every session the page makes is tagged "page". */
export function sessionOptions() {
  return { tag: "page" };
}

/** The reply as shown: a shout keeps its words, a note gets a mark. */
export function replyText(text) {
  return text.includes("개: ") ? `✎ ${text}` : text;
}
