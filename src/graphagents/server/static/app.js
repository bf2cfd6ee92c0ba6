// graphagents web page: pick an agent, chat, watch events and state live. No dependencies.
"use strict";

const $ = (id) => document.getElementById(id);
const ui = {
  select: $("agent-select"), newSession: $("new-session"), sessionId: $("session-id"),
  description: $("agent-description"), samples: $("samples"), messages: $("messages"),
  form: $("composer"), input: $("input"), send: $("send"), status: $("status"),
  state: $("state"), events: $("events"), clear: $("clear-events"),
};
let agents = [];
let current = { agent: null, session: null, busy: false };

async function api(path, options = {}) {
  const res = await fetch(path, { headers: { "content-type": "application/json" }, ...options });
  if (!res.ok) {
    let message = res.statusText;
    try { message = (await res.json()).error || message; } catch (_) { /* not JSON */ }
    throw new Error(`${res.status}: ${message}`);
  }
  return res;
}

function addMessage(role, text) {
  const div = document.createElement("div");
  div.className = `msg ${role}`;
  div.textContent = text;
  ui.messages.appendChild(div);
  ui.messages.scrollTop = ui.messages.scrollHeight;
  return div;
}

function summarize(ev) {
  switch (ev.type) {
    case "step": return `${ev.phase} ${ev.node}${ev.error ? " ✗ " + ev.error : ""}`;
    case "tool_call": return `→ ${ev.tool} ${JSON.stringify(ev.args)}`;
    case "tool_result": return `← ${ev.tool} ${ev.ok ? "ok" : "error"}: ${ev.summary}`;
    case "decision": return `${ev.kind}: ${ev.choice} (${ev.reason})`;
    case "state_update": return `state: ${JSON.stringify(ev.state)}`;
    case "error": return `error [${ev.code}]: ${ev.message}`;
    case "final": return `final (done=${ev.done})`;
    default: return JSON.stringify(ev);
  }
}

function logEvent(ev) {
  if (ev.type === "token") return;
  const li = document.createElement("li");
  li.className = ev.type;
  li.dataset.type = ev.type;
  li.textContent = summarize(ev);
  ui.events.appendChild(li);
  li.scrollIntoView({ block: "nearest" });
}

function renderState(state) {
  const table = document.createElement("table");
  const addRow = (key, value) => {
    const tr = table.insertRow();
    tr.dataset.key = key;
    tr.insertCell().textContent = key;
    let text = typeof value === "string" ? value : JSON.stringify(value);
    if (key === "table" && value && Array.isArray(value.rows)) text = `${value.rows.length} rows (shown in the chat)`;
    tr.insertCell().textContent = text;
  };
  for (const [key, value] of Object.entries(state || {})) {
    // Small objects (collected slots, say) get a row per entry so changes are easy to follow.
    const isMap = value && typeof value === "object" && !Array.isArray(value) && key !== "table";
    if (isMap && Object.keys(value).length <= 30) {
      for (const [k, v] of Object.entries(value)) addRow(`${key}.${k}`, v);
    } else {
      addRow(key, value);
    }
  }
  ui.state.replaceChildren(table);
}

// A result table (state.sql + state.table, as text2sql returns) shown under the reply.
function renderResult(bubble, state) {
  if (!state || typeof state.sql !== "string" || !state.sql) return;
  const pre = document.createElement("pre");
  pre.className = "sql";
  pre.textContent = state.sql;
  bubble.appendChild(pre);
  const data = state.table;
  if (!data || !Array.isArray(data.columns) || !data.columns.length) return;
  const table = document.createElement("table");
  table.className = "result";
  const head = table.createTHead().insertRow();
  for (const col of data.columns) {
    const th = document.createElement("th");
    th.textContent = col;
    head.appendChild(th);
  }
  const body = table.createTBody();
  for (const row of (data.rows || []).slice(0, 50)) {
    const tr = body.insertRow();
    for (const v of row) tr.insertCell().textContent = v === null ? "" : String(v);
  }
  bubble.appendChild(table);
}

async function loadAgents() {
  agents = await (await api("/api/agents")).json();
  ui.select.replaceChildren(...agents.map((a) => new Option(`${a.title} (${a.name})`, a.name)));
  const wanted = new URLSearchParams(location.search).get("agent");
  if (wanted && agents.some((a) => a.name === wanted)) ui.select.value = wanted;
  await selectAgent(ui.select.value);
}

async function selectAgent(name) {
  const agent = agents.find((a) => a.name === name);
  current.agent = name;
  ui.description.textContent = agent ? agent.description : "";
  ui.samples.replaceChildren(...(agent ? agent.samples : []).map((turns) => {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = turns[0];
    b.addEventListener("click", () => { ui.input.value = turns[0]; ui.input.focus(); });
    return b;
  }));
  await newSession();
}

async function newSession() {
  ui.messages.replaceChildren();
  ui.events.replaceChildren();
  renderState({});
  const res = await api(`/api/agents/${current.agent}/sessions`, { method: "POST", body: "{}" });
  current.session = (await res.json()).session_id;
  ui.sessionId.textContent = `session ${current.session}`;
  ui.status.textContent = "";
}

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
  if (current.busy || !text.trim()) return;
  current.busy = true;
  ui.send.disabled = true;
  addMessage("user", text);
  const bubble = addMessage("agent", "…");
  let streamed = "";
  ui.status.textContent = "working…";
  try {
    const res = await api(`/api/agents/${current.agent}/sessions/${current.session}/messages`, {
      method: "POST", body: JSON.stringify({ text }),
    });
    for await (const ev of readSSE(res)) {
      logEvent(ev);
      if (ev.type === "token" && ev.section !== "reasoning") {
        streamed += ev.text;
        bubble.textContent = streamed;
      } else if (ev.type === "state_update") {
        renderState(ev.state);
      } else if (ev.type === "final") {
        bubble.textContent = ev.text || streamed || "(no reply)";
        renderResult(bubble, ev.state);
        renderState(ev.state);
        ui.status.textContent = ev.done ? "conversation finished" : "";
      } else if (ev.type === "error") {
        addMessage("error", ev.message);
      }
    }
  } catch (err) {
    bubble.remove();
    addMessage("error", String(err.message || err));
    ui.status.textContent = "";
  } finally {
    current.busy = false;
    ui.send.disabled = false;
  }
}

ui.select.addEventListener("change", () => selectAgent(ui.select.value));
ui.newSession.addEventListener("click", () => newSession());
ui.clear.addEventListener("click", () => ui.events.replaceChildren());
ui.form.addEventListener("submit", (e) => { e.preventDefault(); const t = ui.input.value; ui.input.value = ""; send(t); });
ui.input.addEventListener("keydown", (e) => {
  if (e.key === "Enter" && !e.shiftKey && !e.isComposing) { e.preventDefault(); ui.form.requestSubmit(); }
});
loadAgents().catch((err) => addMessage("error", String(err.message || err)));
