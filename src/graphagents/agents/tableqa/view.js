// The web page's view of the tableqa agent (AgentSpec.page_view): an ES module the page imports when
// tableqa is selected. It draws the steps and their intermediate tables (live, as each
// step makes one), and puts an upload control for the user's own tables beside the description.
// Built as DOM nodes from data with the page's helpers (window.GA), never innerHTML.
const GA = window.GA;
const { el, badge, section, kvTable, statusBadge } = GA;

export function renderState(state, ctx) {
  const extra = (ctx && ctx.extra) || {};
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
      if (table) li.appendChild(GA.renderArtifact(table));
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

// -- the user's own tables: POST /api/agents/tableqa/uploads, chosen for the next new session -------
const uploads = { list: null, chosen: new Set() };

/** The upload control the page puts under the description; null when the uploads cannot be listed
 * (the page then works without it). */
export async function intro(ctx) {
  if (uploads.list === null) {
    try {
      const listed = await (await ctx.api("/uploads")).json();
      uploads.list = Array.isArray(listed) ? listed : listed.uploads || [];
    } catch (_) {
      return null;
    }
  }
  const box = el("div", "upload-box");
  box.id = "upload-box";
  const row = el("div", "upload-row");
  const label = el("label", "btn small", "표 파일 올리기");
  label.setAttribute("for", "upload-file");
  const file = el("input");
  file.type = "file"; file.id = "upload-file"; file.className = "visually-hidden";
  file.accept = ".csv,.tsv,.json,.jsonl,.xlsx,.sqlite,.db";
  const note = el("span", "muted upload-note", "CSV, TSV, JSON, JSONL, XLSX, SQLite");
  note.setAttribute("role", "status");
  const list = el("ul", "upload-list");
  list.id = "upload-list";
  file.addEventListener("change", async () => {
    if (!file.files || !file.files.length) return;
    const body = new FormData();
    body.append("file", file.files[0]);
    note.textContent = "올리는 중…";
    try {
      const data = await (await ctx.api("/uploads", { method: "POST", body })).json();
      uploads.list.unshift(data);
      uploads.chosen.add(data.id);
      note.textContent = `${data.name}: ${GA.count(data.rows, "행")} × ${GA.count((data.columns || []).length, "열")} 올렸어요. 새 대화에서 써요.`;
      renderUploadList(list);
    } catch (err) {
      note.textContent = `올리지 못했어요: ${err.message || err}`;
    }
    file.value = "";
  });
  row.append(label, file, note);
  box.append(row, list);
  renderUploadList(list);
  return box;
}

function renderUploadList(list) {
  list.replaceChildren();
  for (const u of uploads.list.slice(0, 12)) {
    const li = el("li");
    const label = el("label", "badge");
    const box = el("input");
    box.type = "checkbox"; box.checked = uploads.chosen.has(u.id); box.value = u.id;
    box.addEventListener("change", () => { if (box.checked) uploads.chosen.add(u.id); else uploads.chosen.delete(u.id); });
    label.append(box, document.createTextNode(` ${u.name} (${GA.count(u.rows, "행")})`));
    li.appendChild(label);
    list.appendChild(li);
  }
}

/** What a new session takes besides the option form: the uploads the user ticked. */
export function sessionOptions() {
  // "channel": the agent's declines then point at the upload button, not at the CLI's --table
  return uploads.chosen.size ? { tables: [...uploads.chosen], channel: "page" } : { channel: "page" };
}
