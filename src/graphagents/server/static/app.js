// graphagents web page: pick an agent, chat, watch events and state live. No dependencies.
// Everything here is generic: events by type, artifacts by kind, options from each agent's JSON schema.
"use strict";

const $ = (id) => document.getElementById(id);
const ui = {
  select: $("agent-select"), newSession: $("new-session"), sessionId: $("session-id"),
  description: $("agent-description"), samples: $("samples"), messages: $("messages"),
  form: $("composer"), input: $("input"), send: $("send"), status: $("status"),
  state: $("state"), events: $("events"), clear: $("clear-events"),
  options: $("session-options"), agentOptions: $("agent-options"),
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

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function addMessage(role, text) {
  const div = el("div", `msg ${role}`, text);
  ui.messages.appendChild(div);
  ui.messages.scrollTop = ui.messages.scrollHeight;
  return div;
}

// -- events ------------------------------------------------------------------------------------

function where(ev) {
  return ev.namespace && ev.namespace.length ? `[${ev.namespace.join(" › ")}] ` : "";
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
  const li = el("li", ev.type);
  li.dataset.type = ev.type;
  if (ev.namespace && ev.namespace.length) {
    li.dataset.namespace = ev.namespace.join("/");
    li.appendChild(el("span", "ns", where(ev)));
  }
  li.appendChild(document.createTextNode(summarize(ev)));
  ui.events.appendChild(li);
  li.scrollIntoView({ block: "nearest" });
}

function usageLine(usage) {
  if (!usage) return "";
  const calls = `${usage.model_calls} model call${usage.model_calls === 1 ? "" : "s"}`;
  const tokens = usage.input_tokens + usage.output_tokens;
  return `${calls} · ${tokens} tokens · ${Math.round(usage.latency_ms)} ms · ${usage.steps} steps`;
}

// -- state -------------------------------------------------------------------------------------

function shortText(value) {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text && text.length > 240 ? text.slice(0, 240) + "…" : text;
}

function renderState(state) {
  const table = document.createElement("table");
  const addRow = (key, value) => {
    const tr = table.insertRow();
    tr.dataset.key = key;
    tr.insertCell().textContent = key;
    tr.insertCell().textContent = shortText(value);
  };
  for (const [key, value] of Object.entries(state || {})) {
    // Small flat objects (collected slots, say) get a row per entry so changes are easy to follow.
    const isMap = value && typeof value === "object" && !Array.isArray(value);
    const flat = isMap && Object.values(value).every((v) => v === null || typeof v !== "object");
    if (flat && Object.keys(value).length <= 30) {
      for (const [k, v] of Object.entries(value)) addRow(`${key}.${k}`, v);
    } else {
      addRow(key, value);
    }
  }
  ui.state.replaceChildren(table);
}

// -- artifacts, by kind ------------------------------------------------------------------------

function tableElement(columns, rows, note) {
  const table = el("table", "result");
  const head = table.createTHead().insertRow();
  for (const col of columns) head.appendChild(el("th", "", String(col)));
  const body = table.createTBody();
  for (const row of (rows || []).slice(0, 50)) {
    const tr = body.insertRow();
    for (const v of row) tr.insertCell().textContent = v === null || v === undefined ? "" : String(v);
  }
  if (note) table.createCaption().textContent = note;
  return table;
}

// A bar or line chart from the Vega-Lite subset: mark, data.values, encoding.x/y.field.
function chartElement(spec) {
  const NS = "http://www.w3.org/2000/svg";
  const values = (spec.data && spec.data.values) || [];
  const x = spec.encoding && spec.encoding.x && spec.encoding.x.field;
  const y = spec.encoding && spec.encoding.y && spec.encoding.y.field;
  const points = values.map((v) => [String(v[x]), Number(v[y])]).filter((p) => Number.isFinite(p[1]));
  const svg = document.createElementNS(NS, "svg");
  const width = 320, height = 140, pad = 20;
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("class", "chart");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", `${spec.mark || "chart"} of ${y} by ${x}`);
  const top = Math.max(1e-12, ...points.map((p) => Math.abs(p[1])));
  const step = (width - 2 * pad) / Math.max(points.length, 1);
  const yOf = (n) => height - pad - (Math.abs(n) / top) * (height - 2 * pad);
  const add = (tag, attrs, text) => {
    const node = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    svg.appendChild(node);
    return node;
  };
  if (spec.mark === "line") {
    const path = points.map((p, i) => `${pad + step * (i + 0.5)},${yOf(p[1])}`).join(" ");
    add("polyline", { points: path, fill: "none", stroke: "#2f80ed", "stroke-width": 2 });
  }
  points.forEach(([label, n], i) => {
    const cx = pad + step * i;
    if (spec.mark !== "line") {
      add("rect", { x: cx + step * 0.15, y: yOf(n), width: step * 0.7, height: height - pad - yOf(n), fill: "#2f80ed" })
        .appendChild(document.createElementNS(NS, "title")).textContent = `${label}: ${n}`;
    }
    add("text", { x: cx + step / 2, y: height - 5, "text-anchor": "middle", "font-size": 10 }, label);
  });
  return svg;
}

function renderArtifact(a) {
  const box = el("div", `artifact ${a.kind}`);
  box.dataset.kind = a.kind;
  if (a.title) box.appendChild(el("div", "artifact-title", a.title));
  switch (a.kind) {
    case "sql": box.appendChild(el("pre", "sql", a.sql)); break;
    case "table":
    case "intermediate_table": {
      const shown = Math.min((a.rows || []).length, 50);
      const total = a.total_rows ?? (a.rows || []).length;
      const note = [a.step ? `step: ${a.step}` : "", total > shown ? `${total} rows, first ${shown} shown` : ""]
        .filter(Boolean).join("; ");
      box.appendChild(tableElement(a.columns || [], a.rows || [], note));
      break;
    }
    case "chart": box.appendChild(chartElement(a.spec || {})); break;
    case "citation": {
      const line = el("div", "citation-line", `${a.ref ? a.ref + " " : ""}${a.source}${a.text ? ": " + a.text : ""}`);
      if (a.url) { const link = el("a", "", " ↗"); link.href = a.url; link.target = "_blank"; line.appendChild(link); }
      box.appendChild(line);
      break;
    }
    case "document": box.appendChild(el("div", "document-text", `[${a.id}] ${a.text}`)); break;
    default: box.appendChild(el("pre", "", JSON.stringify(a)));
  }
  return box;
}

function renderFinal(bubble, ev, streamed) {
  bubble.textContent = ev.text || streamed || "(no reply)";
  for (const a of ev.artifacts || []) bubble.appendChild(renderArtifact(a));
  const others = (ev.questions || []).slice(1);
  if (others.length) {
    const list = el("ul", "questions");
    list.appendChild(el("li", "questions-title", "Also waiting for:"));
    for (const q of others) {
      const li = el("li", "question", q.text);
      if (q.path && q.path.length) li.title = q.path.join(" › ");
      list.appendChild(li);
    }
    bubble.appendChild(list);
  }
}

// -- options form from the JSON schema ---------------------------------------------------------

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
  input.title = prop.description || "";
  label.appendChild(input);
  if (prop.description) label.appendChild(el("small", "muted", prop.description));
  return label;
}

function renderOptionsForm(agent) {
  const schema = (agent && agent.session_options) || {};
  const props = schema.properties || {};
  ui.options.replaceChildren(...Object.entries(props).map(([name, prop]) => optionField(name, prop)));
  if (!Object.keys(props).length) ui.options.appendChild(el("p", "muted", "This agent takes no session options."));
  const agentProps = ((agent && agent.options) || {}).properties || {};
  ui.agentOptions.replaceChildren();
  if (Object.keys(agentProps).length) {
    ui.agentOptions.appendChild(el("dt", "", "Agent options (graphagents serve -o agent.key=value)"));
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
      try { out[input.name] = JSON.parse(raw); } catch (_) { throw new Error(`option ${input.name}: not valid JSON`); }
    } else out[input.name] = raw;
  }
  return out;
}

// -- agents and sessions -----------------------------------------------------------------------

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
  renderOptionsForm(agent);
  ui.samples.replaceChildren(...(agent ? agent.samples : []).map((turns) => {
    const b = el("button", "", turns[0]);
    b.type = "button";
    b.addEventListener("click", () => { ui.input.value = turns[0]; ui.input.focus(); });
    return b;
  }));
  await newSession();
}

async function newSession() {
  ui.messages.replaceChildren();
  ui.events.replaceChildren();
  renderState({});
  ui.status.textContent = "";
  try {
    const body = JSON.stringify({ options: readOptions() });
    const res = await api(`/api/agents/${current.agent}/sessions`, { method: "POST", body });
    current.session = (await res.json()).session_id;
    ui.sessionId.textContent = `session ${current.session}`;
  } catch (err) {
    current.session = null;
    ui.sessionId.textContent = "no session";
    addMessage("error", String(err.message || err));
  }
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
  if (current.busy || !text.trim() || !current.session) return;
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
      if (ev.type === "token" && ev.section !== "reasoning" && !(ev.namespace && ev.namespace.length)) {
        streamed += ev.text;
        bubble.textContent = streamed;
      } else if (ev.type === "state_update") {
        renderState(ev.state);
      } else if (ev.type === "final") {
        renderFinal(bubble, ev, streamed);
        renderState(ev.state);
        ui.status.textContent = [ev.done ? "conversation finished" : "", usageLine(ev.usage)].filter(Boolean).join(" · ");
        ui.status.dataset.done = String(ev.done);
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
ui.options.addEventListener("submit", (e) => { e.preventDefault(); newSession(); });
ui.form.addEventListener("submit", (e) => { e.preventDefault(); const t = ui.input.value; ui.input.value = ""; send(t); });
ui.input.addEventListener("keydown", (e) => {
  if (e.key === "Enter" && !e.shiftKey && !e.isComposing) { e.preventDefault(); ui.form.requestSubmit(); }
});
loadAgents().catch((err) => addMessage("error", String(err.message || err)));
