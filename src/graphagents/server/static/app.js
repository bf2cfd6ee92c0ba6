// graphagents web page: pick an agent, chat, follow the agent's state and trace, come back to past
// conversations. Generic views live in views.js (artifacts, the generic state view), markdown.js and
// trace.js (the timeline); formatting in format.js. What is particular to an agent comes from its own
// page view module (AgentSpec.page_view, imported from /views/<name>.js): this file names no agent.
// A conversation's URL (?agent=…&session=…) can be reloaded or shared with its owner.
"use strict";

(() => {
  const GA = window.GA;
  const { el } = GA;
  const $ = (id) => document.getElementById(id);
  const ui = {
    select: $("agent-select"), newSession: $("new-session"), sessionId: $("session-id"), title: $("agent-title"),
    description: $("agent-description"), samples: $("samples"), messages: $("messages"),
    form: $("composer"), input: $("input"), send: $("send"), status: $("status"),
    state: $("state"), events: $("events"), clear: $("clear-events"),
    options: $("session-options"), agentOptions: $("agent-options"), optionsPanel: $("options-panel"),
    sessionsPanel: $("sessions-panel"), sessionList: $("session-list"), sessionsEmpty: $("sessions-empty"),
    sessionsToggle: $("sessions-toggle"), sessionsClose: $("sessions-close"), theme: $("theme-toggle"),
    themeIcon: $("theme-icon"), extra: $("agent-extra"), introToggle: $("intro-toggle"), pane: $("chat-pane"),
  };
  const trace = new GA.Trace(ui.events);
  let agents = [];
  const views = {};  // agent -> its view data (GET /api/agents/<name>/view)
  const modules = {};  // agent -> a promise of its page view module (null: none, or it failed to load)
  const current = { agent: null, module: null, session: null, busy: false, state: {}, openTurn: false, decisions: [],
                    intermediate: [], live: [] };

  async function api(path, options = {}) {
    const json = !(options.body instanceof FormData);  // a form sets its own multipart content type
    const res = await fetch(path, { headers: json ? { "content-type": "application/json" } : {}, ...options });
    if (!res.ok) {
      let message = res.statusText;
      try { message = (await res.json()).error || message; } catch (_) { /* not JSON */ }
      const err = new Error(`${res.status}: ${message}`);
      err.status = res.status;
      throw err;
    }
    return res;
  }

  // -- messages -------------------------------------------------------------------------------
  function nearBottom() { return ui.messages.scrollHeight - ui.messages.scrollTop - ui.messages.clientHeight < 120; }

  /** Keep the newest message in view, also after charts and tables finish laying out. */
  function scrollToEnd() {
    pinned = true;
    ui.messages.scrollTop = ui.messages.scrollHeight;
    requestAnimationFrame(() => { ui.messages.scrollTop = ui.messages.scrollHeight; });
  }
  // While the reader is at the end, stay there when the box or its content changes size (a phone
  // rotating, a chart drawing); once they scroll up to read, leave them where they are.
  let pinned = true;
  ui.messages.addEventListener("scroll", () => { pinned = nearBottom(); }, { passive: true });
  if (typeof ResizeObserver === "function") {
    const keep = new ResizeObserver(() => { if (pinned) ui.messages.scrollTop = ui.messages.scrollHeight; });
    keep.observe(ui.messages);
    new MutationObserver((records) => {
      for (const r of records) for (const n of r.addedNodes) if (n.nodeType === 1) keep.observe(n);
    }).observe(ui.messages, { childList: true });
  }

  function addMessage(role, text) {
    ui.pane.classList.add("has-messages");
    const div = el("div", `msg ${role}`);
    div.appendChild(el("div", "reply-text", text));
    ui.messages.appendChild(div);
    scrollToEnd();
    return div;
  }

  function addError(text) {
    const div = el("div", "msg error", text);
    div.setAttribute("role", "alert");
    ui.messages.appendChild(div);
    scrollToEnd();
    return div;
  }

  // A decision point fell back to offline rules (issue 24): said once per step above the reply.
  function addDegraded(bubble, ev, seen) {
    const key = `${ev.step}:${ev.reason}`;
    if (seen.has(key)) return;
    seen.add(key);
    const div = el("div", "msg notice degraded", `⚠ ${ev.message || "모델 대신 기본 규칙으로 답했어요"} [${ev.step}]`);
    div.dataset.step = ev.step;
    div.dataset.reason = ev.reason;
    ui.messages.insertBefore(div, bubble);
  }

  function renderReply(bubble, text, artifacts, questions) {
    bubble.classList.remove("pending");
    const mod = current.module;
    const shown = mod && typeof mod.replyText === "function" ? mod.replyText(text, artifacts) : text;
    bubble.replaceChildren(el("div", "reply-text", shown || "(답변 없음)"));
    if (artifacts.length) bubble.classList.add("wide");
    for (const node of GA.renderArtifacts(artifacts)) bubble.appendChild(node);
    const others = (questions || []).slice(1);
    if (others.length) {
      const list = el("ul", "questions");
      list.appendChild(el("li", "questions-title", "함께 기다리는 질문:"));
      for (const q of others) {
        const li = el("li", "question", q.text);
        if (q.path && q.path.length) li.title = q.path.join(" › ");
        list.appendChild(li);
      }
      bubble.appendChild(list);
    }
    scrollToEnd();
  }

  // -- the agent's page view module ---------------------------------------------------------------
  /** What a module's functions get: the agent's view data, what the running turn showed so far, the
   * agent's own routes (``api("/profile")`` is ``/api/agents/<name>/profile``), a redraw. */
  function moduleContext(name) {
    return {
      agent: name, view: views[name] || null,
      extra: { decisions: current.decisions, intermediate: current.intermediate, live: current.live },
      api: (path, options) => api(`/api/agents/${encodeURIComponent(name)}${path}`, options),
      refresh: () => renderState(current.state),
    };
  }

  /** The agent's page view module (``import()`` of its URL from /api/agents), once; null without one. */
  function pageView(name) {
    if (!(name in modules)) {
      const agent = agents.find((a) => a.name === name);
      modules[name] = agent && agent.page_view
        ? import(agent.page_view).catch((err) => { console.warn(`page view of ${name} failed to load`, err); return null; })
        : Promise.resolve(null);
    }
    return modules[name];
  }
  GA.pageView = pageView;
  GA.moduleContext = moduleContext;

  // -- state ----------------------------------------------------------------------------------
  function renderState(state) {
    current.state = state || {};
    ui.state.replaceChildren(GA.renderStateView(current.module, current.state, moduleContext(current.agent)));
  }

  async function loadView(name) {
    if (views[name] !== undefined) return;
    try { views[name] = await (await api(`/api/agents/${encodeURIComponent(name)}/view`)).json(); } catch (_) { views[name] = null; }
  }

  /** The module's controls under the description (an upload box ...), if it has any. */
  async function renderIntro(name) {
    ui.extra.replaceChildren();
    ui.extra.hidden = true;
    const mod = current.module;
    if (!mod || typeof mod.intro !== "function") return;
    try {
      const node = await mod.intro(moduleContext(name));
      if (node && current.agent === name) { ui.extra.replaceChildren(node); ui.extra.hidden = false; }
    } catch (err) {
      console.warn("page view intro failed", err);
    }
  }

  function usageLine(usage) {
    if (!usage) return "";
    return `모델 호출 ${usage.model_calls}회 · 토큰 ${GA.number(usage.input_tokens + usage.output_tokens)} · `
      + `${GA.duration(usage.latency_ms)} · ${usage.steps}단계`;
  }

  // -- options form from the JSON schema -----------------------------------------------------------
  function optionField(name, prop) {
    const label = el("label", "option");
    label.appendChild(el("span", "option-name", name));
    const type = prop.type || (prop.anyOf ? "json" : "string");
    let input;
    if (Array.isArray(prop.enum)) {
      input = document.createElement("select");
      for (const v of prop.enum) input.appendChild(new Option(String(v), String(v)));
      if (prop.default !== undefined) input.value = String(prop.default);
    } else if (type === "boolean") {
      input = document.createElement("input");
      input.type = "checkbox";
      input.checked = Boolean(prop.default);
    } else if (type === "integer" || type === "number") {
      input = document.createElement("input");
      input.type = "number";
      if (type === "number") input.step = "any";
      if (prop.default !== undefined && prop.default !== null) input.value = prop.default;
    } else if (type === "string") {
      input = document.createElement("input");
      input.type = "text";
      if (prop.default !== undefined && prop.default !== null) input.value = prop.default;
    } else {
      input = document.createElement("textarea");
      input.rows = 2;
      input.placeholder = "JSON";
      if (prop.default !== undefined && prop.default !== null) input.value = JSON.stringify(prop.default);
    }
    input.name = name;
    input.dataset.type = Array.isArray(prop.enum) ? "enum" : type;
    label.appendChild(input);
    if (prop.description) label.appendChild(el("small", "muted", prop.description));
    return label;
  }

  function renderOptionsForm(agent) {
    const schema = (agent && agent.session_options) || {};
    const props = schema.properties || {};
    ui.options.replaceChildren(...Object.entries(props).map(([name, prop]) => optionField(name, prop)));
    if (!Object.keys(props).length) ui.options.appendChild(el("p", "muted", "이 에이전트는 세션 옵션이 없어요."));
    const agentProps = ((agent && agent.options) || {}).properties || {};
    ui.agentOptions.replaceChildren();
    if (Object.keys(agentProps).length) {
      ui.agentOptions.appendChild(el("dt", "", "에이전트 옵션 (graphagents serve -o agent.key=value)"));
      for (const [name, prop] of Object.entries(agentProps)) ui.agentOptions.appendChild(el("dd", "", `${name}: ${prop.description || ""}`));
    }
  }

  function readOptions() {
    const out = {};
    for (const input of ui.options.querySelectorAll("[name]")) {
      const kind = input.dataset.type;
      if (kind === "boolean") { out[input.name] = input.checked; continue; }
      const raw = input.value.trim();
      if (raw === "") continue;  // the agent's default
      if (kind === "integer" || kind === "number") out[input.name] = Number(raw);
      else if (kind === "json") {
        try { out[input.name] = JSON.parse(raw); } catch (_) { throw new Error(`옵션 ${input.name}: JSON 형식이 아니에요`); }
      } else out[input.name] = raw;
    }
    return out;
  }

  // -- agents, sessions, URL -----------------------------------------------------------------------
  function setUrl(replace) {
    const params = new URLSearchParams(location.search);
    params.set("agent", current.agent);
    if (current.session) params.set("session", current.session); else params.delete("session");
    const url = `${location.pathname}?${params}`;
    if (url !== location.pathname + location.search) history[replace ? "replaceState" : "pushState"]({}, "", url);
  }

  function showSession(sid) {
    current.session = sid;
    ui.sessionId.textContent = sid ? `session ${sid}` : "no session";
    ui.sessionId.title = sid ? "이 주소를 저장하거나 공유하면 이 대화로 돌아올 수 있어요" : "";
  }

  function resetConversation() {
    ui.messages.replaceChildren();
    ui.pane.classList.remove("has-messages", "show-intro");
    ui.introToggle.setAttribute("aria-expanded", "false");
    ui.introToggle.textContent = "소개·예시 보기";
    trace.reset();
    current.decisions = [];
    current.intermediate = [];
    current.live = [];
    current.openTurn = false;
    renderState({});
    ui.status.textContent = "";
    delete ui.status.dataset.done;
  }

  async function loadAgents() {
    agents = await (await api("/api/agents")).json();
    ui.select.replaceChildren(...agents.map((a) => new Option(`${a.title} (${a.name})`, a.name)));
    const params = new URLSearchParams(location.search);
    const wanted = params.get("agent");
    if (wanted && agents.some((a) => a.name === wanted)) ui.select.value = wanted;
    await selectAgent(ui.select.value, params.get("session"));
  }

  async function selectAgent(name, sessionId) {
    const agent = agents.find((a) => a.name === name);
    current.agent = name;
    current.module = null;
    ui.title.textContent = agent ? agent.title : name;
    ui.description.textContent = agent ? agent.description : "";
    document.title = agent ? `${agent.title} · graphagents` : "graphagents";
    renderOptionsForm(agent);
    const seen = new Set();
    const samples = (agent ? agent.samples : []).filter((turns) => turns.length && !seen.has(turns[0]) && seen.add(turns[0]));
    ui.samples.replaceChildren(...samples.map((turns) => {
      const b = el("button", "", turns[0]);
      b.type = "button";
      b.title = turns.length > 1 ? `예시 대화: ${turns.join(" → ")}` : "예시 질문";
      b.addEventListener("click", () => { ui.input.value = turns[0]; ui.input.focus(); });
      return b;
    }));
    const [mod] = await Promise.all([pageView(name), loadView(name)]);
    if (current.agent !== name) return;  // another agent was picked meanwhile
    current.module = mod;
    renderIntro(name);
    if (sessionId) await resume(sessionId);
    else await newSession();
    refreshSessions();
  }

  async function newSession() {
    resetConversation();
    try {
      const options = readOptions();
      const mod = current.module;
      if (mod && typeof mod.sessionOptions === "function") Object.assign(options, mod.sessionOptions(moduleContext(current.agent)));
      const res = await api(`/api/agents/${current.agent}/sessions`, { method: "POST", body: JSON.stringify({ options }) });
      showSession((await res.json()).session_id);
      setUrl(false);
    } catch (err) {
      showSession(null);
      addError(String(err.message || err));
    }
    refreshSessions();
  }

  /** Open a past conversation: its messages (read back from the server), its state, its question. */
  async function resume(sid) {
    resetConversation();
    try {
      const [info, transcript] = await Promise.all([
        api(`/api/agents/${current.agent}/sessions/${encodeURIComponent(sid)}`).then((r) => r.json()),
        api(`/api/agents/${current.agent}/sessions/${encodeURIComponent(sid)}/transcript`).then((r) => r.json()),
      ]);
      showSession(info.session_id);
      setUrl(true);
      renderState(info.state || {});
      const messages = transcript.messages || [];
      let lastAgent = null;
      for (const m of messages) {
        const bubble = addMessage(m.role === "user" ? "user" : "agent", m.text);
        if (m.role !== "user") lastAgent = bubble;
      }
      if (info.pending && (!lastAgent || lastAgent.textContent !== info.pending)) lastAgent = addMessage("agent", info.pending);
      // the last answer's artifacts (its SQL, tables, document ...) as the session's state has them now
      const artifacts = info.artifacts || [];
      if (lastAgent && artifacts.length) renderReply(lastAgent, lastAgent.textContent, artifacts, []);
      current.openTurn = Boolean(info.pending);
      const n = messages.filter((m) => m.role === "user").length;
      ui.messages.prepend(el("div", "msg notice", n ? `이전 대화 ${n}개 메시지를 불러왔어요.` : "이어서 대화할 수 있어요."));
      scrollToEnd();
    } catch (err) {
      await newSession();
      addError(err.status === 404 ? "이 대화를 찾을 수 없어요 (삭제되었거나 다른 사용자의 대화예요). 새 대화를 시작했어요." : String(err.message || err));
    }
  }

  // -- the session list --------------------------------------------------------------------------
  async function refreshSessions() {
    if (!current.agent) return;
    let sessions = [];
    try {
      sessions = (await (await api(`/api/agents/${current.agent}/sessions`)).json()).sessions || [];
    } catch (_) {
      return;  // signed out, or the server is restarting: the list stays as it was
    }
    ui.sessionsEmpty.hidden = sessions.length > 0;
    ui.sessionList.replaceChildren(...sessions.map(sessionItem));
  }

  function sessionItem(s) {
    const li = el("li", "session-item");
    li.dataset.session = s.session_id;
    if (s.session_id === current.session) li.setAttribute("aria-current", "true");
    const open = el("button", "session-open");
    open.type = "button";
    open.appendChild(el("span", "session-title", s.title || "새 대화"));
    const time = el("time", "session-time", GA.when(s.updated_at));
    time.dateTime = s.updated_at;
    open.appendChild(time);
    open.setAttribute("aria-label", `${s.title || "새 대화"} 열기 (${GA.when(s.updated_at)})`);
    open.addEventListener("click", async () => {
      closeDrawer();
      await resume(s.session_id);
      setUrl(false);
      refreshSessions();
    });
    li.appendChild(open);
    const actions = el("div", "session-actions");
    const rename = GA.button("이름 바꾸기", "small ghost session-rename", () => startRename(li, s), { "aria-label": `${s.title || "새 대화"} 이름 바꾸기` });
    const del = GA.button("삭제", "small ghost danger session-delete", () => confirmDelete(li, s), { "aria-label": `${s.title || "새 대화"} 삭제` });
    actions.append(rename, del);
    li.appendChild(actions);
    return li;
  }

  function startRename(li, s) {
    const form = el("form", "session-rename-form");
    const input = el("input");
    input.type = "text"; input.value = s.title || ""; input.maxLength = 80; input.required = true;
    input.setAttribute("aria-label", "새 이름");
    const save = el("button", "btn small primary", "저장");
    save.type = "submit";
    const cancel = GA.button("취소", "small ghost", () => refreshSessions());
    form.append(input, save, cancel);
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      try {
        await api(`/api/agents/${current.agent}/sessions/${encodeURIComponent(s.session_id)}`, {
          method: "PATCH", body: JSON.stringify({ title: input.value }),
        });
      } catch (err) { addError(String(err.message || err)); }
      await refreshSessions();
      const again = ui.sessionList.querySelector(`[data-session="${CSS.escape(s.session_id)}"] .session-open`);
      if (again) again.focus();
    });
    input.addEventListener("keydown", (e) => { if (e.key === "Escape") refreshSessions(); });
    li.querySelector(".session-actions").replaceWith(form);
    input.focus();
    input.select();
  }

  function confirmDelete(li, s) {
    const box = el("div", "session-actions");
    box.appendChild(el("span", "muted", "삭제할까요?"));
    const yes = GA.button("삭제", "small danger session-delete-confirm", async () => {
      try {
        await api(`/api/agents/${current.agent}/sessions/${encodeURIComponent(s.session_id)}`, { method: "DELETE" });
      } catch (err) { addError(String(err.message || err)); }
      if (s.session_id === current.session) await newSession();
      await refreshSessions();
    });
    const no = GA.button("취소", "small ghost", () => refreshSessions());
    box.append(yes, no);
    li.querySelector(".session-actions").replaceWith(box);
    no.focus();
  }

  function openDrawer() {
    ui.sessionsPanel.classList.add("open");
    ui.sessionsToggle.setAttribute("aria-expanded", "true");
    const first = ui.sessionList.querySelector("button") || ui.sessionsClose;
    if (first) first.focus();
  }
  function closeDrawer() {
    if (!ui.sessionsPanel.classList.contains("open")) return;
    ui.sessionsPanel.classList.remove("open");
    ui.sessionsToggle.setAttribute("aria-expanded", "false");
  }

  // -- a turn ------------------------------------------------------------------------------------
  async function* readSSE(response) {
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true }).replace(/\r\n/g, "\n");
      let cut;
      while ((cut = buffer.indexOf("\n\n")) !== -1) {
        const frame = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const data = frame.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trimStart()).join("\n");
        if (data) yield JSON.parse(data);
      }
    }
  }

  async function send(text) {
    if (current.busy || !text.trim() || !current.session) return;
    current.busy = true;
    ui.send.disabled = true;
    addMessage("user", text);
    const bubble = addMessage("agent pending", "");
    let streamed = "";
    const degradedSeen = new Set();
    ui.status.textContent = "답변을 준비하고 있어요…";
    delete ui.status.dataset.done;
    trace.startTurn(text);
    current.decisions = [];
    current.intermediate = [];
    current.live = [];
    try {
      const res = await api(`/api/agents/${current.agent}/sessions/${current.session}/messages`, {
        method: "POST", body: JSON.stringify({ text }),
      });
      for await (const ev of readSSE(res)) {
        trace.add(ev);
        if (ev.type === "token" && ev.section !== "reasoning" && !(ev.namespace && ev.namespace.length)) {
          const stick = nearBottom();
          streamed += ev.text;
          bubble.firstChild.textContent = streamed;
          if (stick) scrollToEnd();
        } else if (ev.type === "degraded") {
          addDegraded(bubble, ev, degradedSeen);
        } else if (ev.type === "state_update") {
          renderState(ev.state);
        } else if (ev.type === "tool_result" && ev.data && ev.data.table && ev.data.table.id) {
          current.live.push(ev.data.table);  // an intermediate table, as its step creates it
          renderState(current.state);
        } else if (ev.type === "decision" && ev.details && Number.isFinite(ev.details.iteration)) {
          current.decisions.push({ ...ev.details, decision: ev.details.decision || ev.choice, reason: ev.details.reason || ev.reason });
          renderState(current.state);
        } else if (ev.type === "final") {
          current.intermediate = (ev.artifacts || []).filter((a) => a.kind === "intermediate_table");
          current.state = ev.state || {};
          renderReply(bubble, ev.text || streamed, ev.artifacts || [], ev.questions);
          renderState(ev.state);
          // "finished" only when a dialogue that asked questions has come to its end
          const finished = ev.done && current.openTurn;
          current.openTurn = !ev.done;
          ui.status.textContent = [finished ? "대화가 끝났어요" : "", usageLine(ev.usage)].filter(Boolean).join(" · ");
          ui.status.dataset.done = String(ev.done);
        } else if (ev.type === "error") {
          addError(ev.message);
        }
      }
    } catch (err) {
      bubble.remove();
      addError(String(err.message || err));
      ui.status.textContent = "";
    } finally {
      current.busy = false;
      ui.send.disabled = false;
      if (bubble.isConnected && bubble.classList.contains("pending")) bubble.remove();
      scrollToEnd();
      refreshSessions();
    }
  }

  // -- theme ------------------------------------------------------------------------------------
  const THEMES = ["system", "light", "dark"];
  const THEME_TEXT = { system: ["◐", "시스템 설정"], light: ["☀", "밝게"], dark: ["☾", "어둡게"] };
  function applyTheme(theme) {
    if (theme === "system") delete document.documentElement.dataset.theme;
    else document.documentElement.dataset.theme = theme;
    try { if (theme === "system") localStorage.removeItem("ga-theme"); else localStorage.setItem("ga-theme", theme); } catch (_) { /* storage off */ }
    const [icon, label] = THEME_TEXT[theme];
    ui.themeIcon.textContent = icon;
    ui.theme.setAttribute("aria-label", `화면 테마: ${label} (눌러서 바꾸기)`);
    GA.retheme();
  }
  function currentTheme() { return document.documentElement.dataset.theme || "system"; }

  // -- wiring -----------------------------------------------------------------------------------
  ui.select.addEventListener("change", async () => {
    current.session = null;
    await selectAgent(ui.select.value, null);
  });
  ui.newSession.addEventListener("click", () => newSession());
  const copyLink = $("copy-link");
  copyLink.addEventListener("click", async () => {
    const ok = await GA.copyText(location.href);
    copyLink.textContent = ok ? "복사했어요" : "주소창의 링크를 복사하세요";
    setTimeout(() => { copyLink.textContent = "링크 복사"; }, 1800);
  });
  ui.clear.addEventListener("click", () => trace.reset());
  ui.introToggle.addEventListener("click", () => {
    const shown = ui.pane.classList.toggle("show-intro");
    ui.introToggle.setAttribute("aria-expanded", String(shown));
    ui.introToggle.textContent = shown ? "소개 접기" : "소개·예시 보기";
  });
  ui.options.addEventListener("submit", (e) => { e.preventDefault(); newSession(); });
  ui.form.addEventListener("submit", (e) => { e.preventDefault(); const t = ui.input.value; ui.input.value = ""; send(t); });
  ui.input.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) { e.preventDefault(); ui.form.requestSubmit(); }
  });
  ui.sessionsToggle.addEventListener("click", () => (ui.sessionsPanel.classList.contains("open") ? closeDrawer() : openDrawer()));
  ui.sessionsClose.addEventListener("click", () => { closeDrawer(); ui.sessionsToggle.focus(); });
  document.addEventListener("keydown", (e) => { if (e.key === "Escape") closeDrawer(); });
  ui.theme.addEventListener("click", () => applyTheme(THEMES[(THEMES.indexOf(currentTheme()) + 1) % THEMES.length]));
  window.matchMedia("(prefers-color-scheme: dark)").addEventListener("change", () => GA.retheme());
  window.addEventListener("popstate", () => {
    const params = new URLSearchParams(location.search);
    const agent = params.get("agent");
    if (agent && agent !== current.agent && agents.some((a) => a.name === agent)) { ui.select.value = agent; selectAgent(agent, params.get("session")); }
    else if (params.get("session") && params.get("session") !== current.session) resume(params.get("session"));
  });
  applyTheme(currentTheme());
  loadAgents().catch((err) => addError(String(err.message || err)));
})();
